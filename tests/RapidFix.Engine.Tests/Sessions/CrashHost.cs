using System.Diagnostics;

namespace RapidFix.Engine.Tests.Sessions;

/// <summary>Starts the session crash host (tests/RapidFix.SessionCrashHost) as a child process, to be killed.</summary>
internal static class CrashHost
{
    /// <summary>Starts it with <paramref name="arguments"/> and waits for its "READY"; fails the test if it does not come.</summary>
    public static Process Start(params string[] arguments)
    {
        string host = Path.Combine(AppContext.BaseDirectory, "RapidFix.SessionCrashHost.dll");
        Assert.True(File.Exists(host), $"crash host not built: {host}");
        var start = new ProcessStartInfo(Environment.GetEnvironmentVariable("DOTNET_HOST_PATH") is { Length: > 0 } dotnet ? dotnet : "dotnet")
        {
            RedirectStandardOutput = true,
            RedirectStandardError = true,
            UseShellExecute = false,
        };
        start.ArgumentList.Add("exec");
        start.ArgumentList.Add(host);
        foreach (var argument in arguments)
        {
            start.ArgumentList.Add(argument);
        }

        var process = Process.Start(start)!;
        var ready = process.StandardOutput.ReadLine();
        if (ready != "READY")
        {
            process.Kill(entireProcessTree: true);
            Assert.Fail($"the crash host ({string.Join(' ', arguments)}) did not start: {ready} {process.StandardError.ReadToEnd()}");
        }

        return process;
    }
}
