using System.Diagnostics;
using System.Globalization;
using System.Runtime.InteropServices;
using RapidFix.MatchingService;

namespace RapidFix.TradeDriver.Measure;

/// <summary>
/// The matching service as a child process (its own process: the driver's allocations never count against it): its
/// settings, journal and stats file in a work directory, optionally traced from its first instruction by the
/// runtime's EventPipe environment variables (the same providers as <c>tools/EtwAnalyzer collect</c>), stopped with
/// SIGTERM (its clean stop), its continuous-phase report read from its last lines.
/// </summary>
internal sealed partial class ServiceProcess : IDisposable
{
    private readonly Process _process;
    private ChildOutput? _output;
    private readonly TaskCompletionSource<bool> _ready = new(TaskCreationOptions.RunContinuationsAsynchronously);
    private readonly TaskCompletionSource<bool> _waiting = new(TaskCreationOptions.RunContinuationsAsynchronously);

    private ServiceProcess(Process process, int port, string work, string? trace)
    {
        _process = process;
        Port = port;
        WorkDirectory = work;
        TracePath = trace;
        StatsPath = Path.Combine(work, "service.stats");
    }

    public int Port { get; }

    public string WorkDirectory { get; }

    /// <summary>The EventPipe trace of the child, or null when not traced.</summary>
    public string? TracePath { get; }

    public string StatsPath { get; }

    public int ProcessId => _process.Id;

    /// <summary>
    /// The lines the child printed (standard output and error; the first and last 64 KiB, <see cref="ChildOutput"/>):
    /// decoded when read, so read them outside the measured phase.
    /// </summary>
    public IReadOnlyList<string> Lines => _output?.Lines ?? [];

    /// <summary>
    /// Starts the service on a free port with its input journal, stores and open-trade table sized by <paramref name="sizing"/> (checked
    /// against the machine by the caller). The service waits up to two minutes for the participants before its
    /// continuous phase (connection set-up allocates).
    /// </summary>
    public static ServiceProcess Start(string work, JournalSizing sizing, bool trace, string flushPolicy, string staticData)
    {
        Directory.CreateDirectory(work);
        string service = Path.Combine(AppContext.BaseDirectory, "RapidFix.MatchingService.dll");
        if (!File.Exists(service))
        {
            throw new FileNotFoundException($"the matching service is not built beside the driver: {service}");
        }

        long messages = sizing.Inputs;
        int port = Participants.FreePort();
        string settings = Verifier.ServiceSettings(TradeGenerator.Participants, "MATCH", (int)Math.Min(int.MaxValue, messages + 1000))
            .Replace("StoreFlushPolicy=OsOnly", "StoreFlushPolicy=" + flushPolicy, StringComparison.Ordinal);
        string config = Path.Combine(work, "service.cfg");
        File.WriteAllText(config, settings);
        string? tracePath = trace ? Path.Combine(work, "service.nettrace") : null;
        var start = new ProcessStartInfo(DotNetHost)
        {
            RedirectStandardOutput = true,
            RedirectStandardError = true,
            UseShellExecute = false,
        };
        foreach (var argument in new[]
                 {
                     "exec", service, "--config", config, "--static-data", staticData, "--port", port.ToString(CultureInfo.InvariantCulture),
                     "--data-dir", Path.Combine(work, "data"), "--wait-for-participants", "120", "--log", Path.Combine(work, "engine.log"),
                     "--max-inputs", (messages + 1000).ToString(CultureInfo.InvariantCulture),
                     "--journal-bytes", sizing.JournalBytes.ToString(CultureInfo.InvariantCulture),
                     "--open-trades", sizing.OpenTrades.ToString(CultureInfo.InvariantCulture),
                 })
        {
            start.ArgumentList.Add(argument);
        }

        var result = new ServiceProcess(new Process { StartInfo = start }, port, work, tracePath);
        start.Environment[ServiceStatsPublisher.EnvironmentVariable] = result.StatsPath;
        if (tracePath is not null)
        {
            foreach (var (key, value) in TraceEnvironment(tracePath))
            {
                start.Environment[key] = value;
            }
        }

        result._process.Start();
        // Read on two threads of the driver's own into buffers made now: a line the service prints in the measured
        // phase allocates nothing in the driver (the process's events made a string and thread-pool work for each).
        result._output = ChildOutput.Of(result._process, "service", result.OnLine, result.OnEnd);
        return result;
    }

    /// <summary>
    /// The runtime's EventPipe variables for a trace streamed from the first instruction: the runtime's GC, JIT and
    /// exception events and the engine's "RapidFix" provider (its phase markers and latency summaries), the
    /// configuration tools/EtwAnalyzer collects (docs/tracing.md). <see cref="ProvidersVariable"/> replaces the
    /// providers (to find an allocation: <c>Microsoft-Windows-DotNETRuntime:0x1040288019:5,RapidFix:0xF:5</c>, the
    /// runtime's sampled allocation events with the JIT's, docs/tracing.md).
    /// </summary>
    public static IEnumerable<(string Key, string Value)> TraceEnvironment(string path) =>
    [
        ("DOTNET_EnableEventPipe", "1"),
        ("DOTNET_EventPipeConfig", Environment.GetEnvironmentVariable(ProvidersVariable) is { Length: > 0 } providers
            ? providers
            : "Microsoft-Windows-DotNETRuntime:0x1000008011:5,RapidFix:0xF:5"),
        ("DOTNET_EventPipeOutputPath", path),
        ("DOTNET_EventPipeOutputStreaming", "1"),
        ("DOTNET_EventPipeRundown", "0"),
    ];

    /// <summary>The environment variable that replaces the traced service's EventPipe providers.</summary>
    public const string ProvidersVariable = "RAPIDFIX_SERVICE_TRACE_PROVIDERS";

    /// <summary>Waits until the service listens and waits for its participants; false when it exited or timed out.</summary>
    public bool WaitListening(TimeSpan timeout) => _waiting.Task.Wait(timeout) && _waiting.Task.Result;

    /// <summary>Waits until the service entered its continuous phase ("ready:"); false when it exited or timed out.</summary>
    public bool WaitReady(TimeSpan timeout) => _ready.Task.Wait(timeout) && _ready.Task.Result;

    public bool HasExited => _process.HasExited;

    /// <summary>Bytes the threads reading the service's output have allocated so far (<see cref="ChildOutput.ThreadsAllocatedBytes"/>).</summary>
    public long OutputThreadsAllocatedBytes => _output?.ThreadsAllocatedBytes ?? 0;

    /// <summary>Stops the service with SIGTERM (its clean stop) and waits for it; returns its exit code (-1 when it had to be killed).</summary>
    /// <remarks>
    /// The stop is asked for through the stats file first (<see cref="ServiceStatsPublisher.RequestStop"/>): the
    /// runtime's dispatch of SIGTERM allocates in the service, inside its continuous phase, which the zero-GC verdict
    /// would count; SIGTERM follows when the service has not stopped within half the timeout.
    /// </remarks>
    public int Stop(TimeSpan timeout)
    {
        if (!_process.HasExited && File.Exists(StatsPath))
        {
            try
            {
                ServiceStatsPublisher.RequestStop(StatsPath);
                if (_process.WaitForExit(timeout / 2))
                {
                    _output?.WaitForEnd(TimeSpan.FromSeconds(10)); // the output readers finish
                    return _process.ExitCode;
                }
            }
            catch (IOException)
            {
                // the file cannot be mapped: the signal below
            }
        }

        int exit = Terminate(_process, timeout);
        _output?.WaitForEnd(TimeSpan.FromSeconds(10));
        return exit;
    }

    /// <summary>The dotnet host that runs this driver (the SDK's when under dotnet run), for the child processes.</summary>
    public static string DotNetHost => Environment.GetEnvironmentVariable("DOTNET_HOST_PATH") is { Length: > 0 } dotnet ? dotnet : "dotnet";

    /// <summary>SIGTERM (a child's clean stop), then a kill after <paramref name="timeout"/>; the exit code, -1 when killed.</summary>
    public static int Terminate(Process process, TimeSpan timeout)
    {
        if (!process.HasExited)
        {
            _ = Kill(process.Id, 15);
            if (!process.WaitForExit(timeout))
            {
                process.Kill(entireProcessTree: true);
                process.WaitForExit();
                return -1;
            }
        }

        process.WaitForExit(); // the output readers finish
        return process.ExitCode;
    }

    /// <summary>
    /// The service's own report of its continuous phase ("continuous phase: N collections, B bytes allocated"): the
    /// phase controller's precise figures; null when it printed none.
    /// </summary>
    public (long Collections, long AllocatedBytes)? ContinuousReport()
    {
        foreach (var line in Lines)
        {
            var m = ContinuousLine().Match(line);
            if (m.Success)
            {
                return (long.Parse(m.Groups[1].Value, CultureInfo.InvariantCulture), long.Parse(m.Groups[2].Value, CultureInfo.InvariantCulture));
            }
        }

        return null;
    }

    public void Dispose()
    {
        if (!_process.HasExited)
        {
            _process.Kill(entireProcessTree: true);
            _process.WaitForExit();
        }

        _process.Dispose();
    }

    // On a reading thread, for every line: no allocation (the two markers come before the measured phase).
    private void OnLine(ReadOnlySpan<byte> line)
    {
        if (line.StartsWith("matching service: waiting"u8))
        {
            _waiting.TrySetResult(true);
        }
        else if (line.StartsWith("ready:"u8))
        {
            _waiting.TrySetResult(true);
            _ready.TrySetResult(true);
        }
    }

    // Both streams ended: the service exited.
    private void OnEnd()
    {
        _ready.TrySetResult(false);
        _waiting.TrySetResult(false);
    }

    [System.Text.RegularExpressions.GeneratedRegex(@"^continuous phase: (\d+) collections, (\d+) bytes allocated")]
    private static partial System.Text.RegularExpressions.Regex ContinuousLine();

    [DllImport("libc", EntryPoint = "kill", SetLastError = true)]
    private static extern int Kill(int pid, int signal);
}
