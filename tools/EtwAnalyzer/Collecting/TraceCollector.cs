using System.ComponentModel;
using System.Diagnostics;
using Microsoft.Diagnostics.NETCore.Client;

namespace RapidFix.EtwAnalyzer.Collecting;

/// <summary>A capture that could not be made; the message says why, for a person.</summary>
public sealed class CollectException : Exception
{
    public CollectException(string message, Exception? inner = null) : base(message, inner)
    {
    }
}

/// <summary>Captures a trace of a RapidFix process: by launching it with EventPipe's environment variables, or by attaching to it.</summary>
public static class TraceCollector
{
    /// <summary>
    /// Starts <paramref name="program"/> (a .dll runs under dotnet) with the runtime's EventPipe session streaming into
    /// <paramref name="output"/>, waits for it and returns its exit code. Its output goes to ours. A program still
    /// running after <paramref name="timeout"/> (when given) is killed and reported.
    /// </summary>
    public static int Launch(string program, IReadOnlyList<string> arguments, string output, TextWriter log, TimeSpan? timeout = null)
    {
        var start = new ProcessStartInfo { UseShellExecute = false };
        if (program.EndsWith(".dll", StringComparison.OrdinalIgnoreCase))
        {
            if (!File.Exists(program))
            {
                throw new CollectException($"program not found: {program}");
            }

            start.FileName = "dotnet";
            start.ArgumentList.Add(program);
        }
        else
        {
            start.FileName = program;
        }

        foreach (var a in arguments)
        {
            start.ArgumentList.Add(a);
        }

        string fullOutput = Path.GetFullPath(output);
        Directory.CreateDirectory(Path.GetDirectoryName(fullOutput)!);
        File.Delete(fullOutput);
        foreach (var (key, value) in TraceProviders.Environment(fullOutput))
        {
            start.Environment[key] = value;
        }

        Process process;
        try
        {
            process = Process.Start(start) ?? throw new CollectException($"could not start {program}");
        }
        catch (Win32Exception ex)
        {
            throw new CollectException($"could not start {program}: {ex.Message}", ex);
        }

        using (process)
        {
            if (!process.WaitForExit(timeout ?? Timeout.InfiniteTimeSpan))
            {
                process.Kill(entireProcessTree: true);
                process.WaitForExit();
                throw new CollectException($"{Path.GetFileName(program)} was still running after {timeout!.Value.TotalSeconds:F0} s and was killed");
            }

            long size = File.Exists(fullOutput) ? new FileInfo(fullOutput).Length : 0;
            log.WriteLine($"collect: {Path.GetFileName(program)} exited with code {process.ExitCode}; trace {fullOutput} ({size:N0} bytes)");
            return process.ExitCode;
        }
    }

    /// <summary>
    /// Attaches to process <paramref name="processId"/> through its diagnostics port and copies the session's events
    /// into <paramref name="output"/> until the process exits or <paramref name="duration"/> passes. Enabling providers
    /// in a running process makes its event sources do startup work, so attach before the engine enters its
    /// continuous phase.
    /// </summary>
    public static void Attach(int processId, string output, TimeSpan? duration, TextWriter log)
    {
        Process target;
        try
        {
            target = Process.GetProcessById(processId);
        }
        catch (ArgumentException)
        {
            throw new CollectException($"no process with id {processId}");
        }

        EventPipeSession session;
        try
        {
            session = new DiagnosticsClient(processId).StartEventPipeSession(TraceProviders.Providers, requestRundown: false, circularBufferMB: 256);
        }
        catch (Exception ex) when (ex is ServerNotAvailableException or UnsupportedCommandException or TimeoutException or IOException or UnauthorizedAccessException)
        {
            throw new CollectException($"cannot attach to process {processId} ({target.ProcessName}): {ex.Message} (is it a .NET process of this user, with diagnostics enabled?)", ex);
        }

        using (session)
        using (var file = File.Create(output))
        {
            var copy = Task.Run(() => session.EventStream.CopyTo(file));
            log.WriteLine($"collect: attached to {processId} ({target.ProcessName}); writing {Path.GetFullPath(output)}{(duration is null ? " until it exits" : $" for {duration.Value.TotalSeconds:F0} s")}");
            bool exited = duration is null ? target.WaitForExit(int.MaxValue) : target.WaitForExit(duration.Value);
            if (!exited || !target.HasExited)
            {
                try
                {
                    session.Stop();
                }
                catch (Exception ex) when (ex is ServerNotAvailableException or IOException)
                {
                    // The process went away as we stopped: the stream ends by itself.
                }
            }

            copy.Wait(TimeSpan.FromSeconds(30));
        }

        log.WriteLine($"collect: trace {Path.GetFullPath(output)} ({new FileInfo(output).Length:N0} bytes)");
    }
}
