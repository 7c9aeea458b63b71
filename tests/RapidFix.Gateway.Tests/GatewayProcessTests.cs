using System.Diagnostics;
using System.Globalization;

namespace RapidFix.Gateway.Tests;

/// <summary>
/// The gateway executable in a process of its own (its phase report counts the whole process, which a test host
/// cannot: its own threads allocate): idle in its continuous phase with its services connected, it allocates nothing.
/// </summary>
[Collection(nameof(GatewayProcesses))]
public sealed class GatewayProcessTests : IDisposable
{
    private readonly ScaleOut _scale = new();

    public void Dispose() => _scale.Dispose();

    [Fact]
    public void The_idle_gateway_process_allocates_nothing_in_its_continuous_phase()
    {
        using var service = _scale.StartService("service", ScaleOut.FreePort(), 1, null);

        var (exit, output) = RunGateway("--partitions", "1", "--service", $"127.0.0.1:{service.Port}=0", "--port", ScaleOut.FreePort().ToString(CultureInfo.InvariantCulture),
            "--data-dir", Path.Combine(_scale.Work, "gateway"), "--log", Path.Combine(_scale.Work, "gateway.log"), "--wait-for-services", "60", "--seconds", "5");

        // Its own verdict: the exit code is 1 when the continuous phase allocated (it was, by 32 bytes: the main
        // thread's first touch of a thread-static inside the phase switch).
        Assert.Contains("continuous phase: 0 collections, 0 bytes allocated", output, StringComparison.Ordinal);
        Assert.True(exit == 0, output);
    }

    private static (int Exit, string Output) RunGateway(params string[] args)
    {
        string gateway = Path.Combine(AppContext.BaseDirectory, "RapidFix.Gateway.dll");
        var start = new ProcessStartInfo(Environment.GetEnvironmentVariable("DOTNET_HOST_PATH") is { Length: > 0 } dotnet ? dotnet : "dotnet")
        {
            RedirectStandardOutput = true,
            RedirectStandardError = true,
        };
        start.ArgumentList.Add("exec");
        start.ArgumentList.Add(gateway);
        foreach (var arg in args)
        {
            start.ArgumentList.Add(arg);
        }

        using var process = Process.Start(start)!;
        var stdout = process.StandardOutput.ReadToEndAsync();
        var stderr = process.StandardError.ReadToEndAsync();
        if (!process.WaitForExit(TimeSpan.FromMinutes(3)))
        {
            process.Kill(entireProcessTree: true);
            process.WaitForExit();
        }

        return (process.ExitCode, stdout.Result + stderr.Result);
    }
}
