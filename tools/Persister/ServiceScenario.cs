using System.Diagnostics;
using System.Globalization;
using System.Text;
using RapidFix.Persistence;

namespace RapidFix.Persister;

/// <summary>One trade's expected outcome, as <c>tools/TradeDriver generate</c> writes it in expected.csv.</summary>
internal sealed record Expectation(int Trade, string Kind, int Cls, int Exceptions, int Acks);

/// <summary>
/// A real run of the matching service to persist: <c>TradeDriver generate</c> writes a set and its expected
/// outcomes, the service's own executable runs on a data directory, <c>TradeDriver verify</c> sends the set through
/// FIX sessions and checks the answers; the service's journals are then what the persister reads. The three are
/// child processes, run as users run them (their executables are copied beside this one).
/// </summary>
internal sealed class ServiceScenario : IDisposable
{
    private Process? _service;

    private ServiceScenario(string work, List<Expectation> expected, int messages)
    {
        Work = work;
        Expected = expected;
        Messages = messages;
    }

    public string Work { get; }

    /// <summary>The running service's process ID (null when it is not running): its CPU is read from /proc.</summary>
    public int? ServiceProcessId => _service is { HasExited: false } service ? service.Id : null;

    /// <summary>The service's data directory (input journal and session stores): what the persister tails.</summary>
    public string DataDirectory => Path.Combine(Work, "data");

    public List<Expectation> Expected { get; }

    /// <summary>Messages in the set (inputs the service journals).</summary>
    public int Messages { get; }

    /// <summary>Business date of the run (the service's input journal records it; trade dates are it and the 3 business days before).</summary>
    public const int BusinessDate = 20261123;

    /// <summary>Generates a set of <paramref name="trades"/> trades (every kind of the generator) under <paramref name="work"/>.</summary>
    public static ServiceScenario Generate(string work, int trades, int seed, TextWriter log)
    {
        Directory.CreateDirectory(work);
        string set = Path.Combine(work, "set");
        Run(log, "RapidFix.TradeDriver.dll", work, "generate", "--trades", trades.ToString(CultureInfo.InvariantCulture), "--seed",
            seed.ToString(CultureInfo.InvariantCulture), "--out", set, "--duplicates", "0.05", "--amendments", "0.05", "--cancels", "0.05", "--bad", "0.15");
        var expected = File.ReadLines(Path.Combine(set, "expected.csv")).Skip(1).Select(l => l.Split(','))
            .Select(c => new Expectation(int.Parse(c[0], CultureInfo.InvariantCulture), c[1], int.Parse(c[2], CultureInfo.InvariantCulture),
                int.Parse(c[3], CultureInfo.InvariantCulture), int.Parse(c[4], CultureInfo.InvariantCulture)))
            .ToList();
        int messages = File.ReadLines(Path.Combine(set, "messages.fix")).Count(l => l.Length > 0);
        return new ServiceScenario(work, expected, messages);
    }

    /// <summary>
    /// Starts the service on the data directory and returns once it listens: on a free port, or on
    /// <paramref name="port"/> (a restart after <see cref="KillService"/>: the participants reconnect to the same address).
    /// </summary>
    public int StartService(TextWriter log, int port = 0)
    {
        string config = Path.Combine(Work, "service.cfg");
        File.WriteAllText(config, Settings(Messages));
        port = port > 0 ? port : PgCluster.FreePort();
        // The set's static data (generate writes it beside the set: the demo's and the generated securities).
        var start = DotnetStart("RapidFix.MatchingService.dll", Work, ServiceArguments(Work, DataDirectory, Messages, port));
        _service = Process.Start(start)!;
        _service.ErrorDataReceived += (_, e) =>
        {
            if (e.Data is { } line)
            {
                log.WriteLine("service: " + line);
            }
        };
        _service.BeginErrorReadLine();
        var deadline = DateTime.UtcNow.AddSeconds(120);
        while (_service.StandardOutput.ReadLine() is { } line)
        {
            if (line.StartsWith("ready:", StringComparison.Ordinal))
            {
                // Keep reading (synchronously, as above) so that the service never blocks on a full pipe.
                var stdout = _service.StandardOutput;
                _ = Task.Run(() =>
                {
                    while (stdout.ReadLine() is { } more)
                    {
                        log.WriteLine("service: " + more);
                    }
                });
                return port;
            }

            if (DateTime.UtcNow > deadline)
            {
                break;
            }
        }

        throw new InvalidOperationException($"the matching service did not start (exit {(_service.HasExited ? _service.ExitCode : -1)})");
    }

    /// <summary>
    /// Sends the set through the service (<c>TradeDriver verify</c>); the driver itself checks every answer against
    /// expected.csv. A positive <paramref name="pace"/> caps the messages a second, so a fault meets traffic still flowing.
    /// </summary>
    public string Drive(int port, TextWriter log, int pace = 0)
    {
        string last = Run(log, "RapidFix.TradeDriver.dll", Work, "verify", "--input", Path.Combine(Work, "set"), "--host", "127.0.0.1", "--port",
            port.ToString(CultureInfo.InvariantCulture), "--timeout", "300", "--pace", pace.ToString(CultureInfo.InvariantCulture));
        return last;
    }

    /// <summary>kill -9 of the service: no shutdown, its journals as the crash leaves them (the restart recovers them).</summary>
    public void KillService()
    {
        if (_service is { } service)
        {
            service.Kill(entireProcessTree: true);
            service.WaitForExit();
            service.Dispose();
            _service = null;
        }
    }

    /// <summary>Stops the service cleanly (SIGTERM), so its journals are complete.</summary>
    public void StopService()
    {
        if (_service is { HasExited: false } service)
        {
            Process.Start("kill", $"-TERM {service.Id}")!.WaitForExit();
            if (!service.WaitForExit(60_000))
            {
                service.Kill(entireProcessTree: true);
            }
        }

        _service?.Dispose();
        _service = null;
    }

    /// <summary>The service's settings: one session per demo participant, stores sized for the set, OsOnly flushes (survive a process crash).</summary>
    private static string Settings(int messages)
    {
        long perParticipant = Math.Max(100_000, messages);
        var text = new StringBuilder();
        text.AppendLine("[DEFAULT]\nConnectionType=acceptor\nSocketAcceptHost=127.0.0.1\nSocketAcceptPort=5010\nStartTime=00:00:00\nEndTime=00:00:00");
        text.AppendLine("FileStorePath=store\nStoreSyncBeforeSend=Y\nStoreFlushPolicy=OsOnly\nOutboundQueueDepth=65536");
        // The service refuses a store larger than the largest array .NET makes (Array.MaxLength, below int.MaxValue):
        // the cap was int.MaxValue - 1, which a set of about 3.6 million messages (500,000 trades) reached, and the
        // service then refused its settings. A participant's store holds about 95 bytes a message of the set (the
        // answers to it); 200 leaves twice that, and 1,000,000 trades need 1.4 GB a store, not 2 GB.
        text.AppendLine($"StoreMaxMessages={perParticipant}\nStoreMaxBytes={StoreBytes(messages)}");
        foreach (var p in new[] { "IM1", "IM2", "EB1", "EB2" })
        {
            text.AppendLine($"[SESSION]\nBeginString=FIX.4.4\nSenderCompID=MATCH\nTargetCompID={p}");
        }

        return text.ToString();
    }

    /// <summary>The matching service's command line for a set of <paramref name="messages"/> in <paramref name="work"/>.</summary>
    internal static string[] ServiceArguments(string work, string dataDirectory, int messages, int port) =>
    [
        "--config", Path.Combine(work, "service.cfg"), "--static-data", Path.Combine(work, "set", "static-data"),
        "--port", port.ToString(CultureInfo.InvariantCulture),
        "--data-dir", dataDirectory, "--no-warm-up", "--business-date", BusinessDate.ToString(CultureInfo.InvariantCulture),
        "--max-inputs", MaxInputs(messages).ToString(CultureInfo.InvariantCulture),
        "--journal-bytes", JournalBytes(messages).ToString(CultureInfo.InvariantCulture),
        "--open-trades", OpenTrades(messages).ToString(CultureInfo.InvariantCulture), "--log", Path.Combine(work, "engine.log"),
    ];

    /// <summary>
    /// The service's <c>--open-trades</c> for a set of <paramref name="messages"/> (about 7 a trade): a quarter of the
    /// set's trades, at least the service's default 65,536. The generator's incomplete and cancelled trades stay open
    /// until they expire (business days, never within a run): 7.4 % of a 1,000,000-trade set, so from its 886,626th
    /// trade on every new trade found the default table full and was answered TABLE-FULL.
    /// </summary>
    internal static int OpenTrades(int messages) => Math.Max(65_536, messages / 28);

    /// <summary>
    /// The service's <c>--journal-bytes</c> (its input journal's in-memory write window) for a set of
    /// <paramref name="messages"/>: 40 bytes a message (an input is about 220 bytes, so about a sixth of the set),
    /// between the service's default 64 MiB and 512 MiB (the service commits it at startup). The degradation run sends 7.2 million messages unpaced while
    /// PostgreSQL shares the disk; with the default window a few seconds of slow disk filled it and the service
    /// refused 85,145 inputs (BusinessMessageReject, reason 4) near the end of the send, which then showed as
    /// mismatches. A larger window lets the scenario measure the persister, not the disk's stalls.
    /// </summary>
    internal static int JournalBytes(int messages) => (int)Math.Clamp(40L * messages, 64L << 20, 512L << 20);

    /// <summary>
    /// The service's <c>--max-inputs</c> for a set of <paramref name="messages"/>: twice the set (resends after the fault
    /// scenarios' reconnects are inputs too), at least the service's default of 4,000,000. With the default alone a
    /// 1,000,000-trade set (7.2 million messages) filled the input journal at 4 million and every later input was refused.
    /// </summary>
    internal static int MaxInputs(int messages) => (int)Math.Min(int.MaxValue, Math.Max(4_000_000, 2L * messages));

    /// <summary>The service's StoreMaxBytes for a set of <paramref name="messages"/>: 200 bytes a message, at least 60 MB, at most Array.MaxLength.</summary>
    internal static long StoreBytes(int messages) => Math.Min(Array.MaxLength, Math.Max(100_000, (long)messages) * 200);

    internal static ProcessStartInfo DotnetStart(string dll, string workingDirectory, params string[] arguments)
    {
        string path = Path.Combine(AppContext.BaseDirectory, dll);
        if (!File.Exists(path))
        {
            throw new FileNotFoundException($"not built beside the persister: {path}");
        }

        var start = new ProcessStartInfo(Environment.GetEnvironmentVariable("DOTNET_HOST_PATH") is { Length: > 0 } dotnet ? dotnet : "dotnet")
        {
            RedirectStandardOutput = true,
            RedirectStandardError = true,
            UseShellExecute = false,
            WorkingDirectory = workingDirectory,
        };
        start.ArgumentList.Add("exec");
        start.ArgumentList.Add(path);
        foreach (var a in arguments)
        {
            start.ArgumentList.Add(a);
        }

        return start;
    }

    /// <summary>Runs a tool to its end; throws with its output when it fails; returns its last line.</summary>
    private static string Run(TextWriter log, string dll, string work, params string[] arguments)
    {
        using var process = Process.Start(DotnetStart(dll, work, arguments))!;
        var error = process.StandardError.ReadToEndAsync();
        string output = process.StandardOutput.ReadToEnd();
        process.WaitForExit();
        string last = output.TrimEnd().Split('\n').LastOrDefault() ?? "";
        log.WriteLine($"{Path.GetFileNameWithoutExtension(dll)} {arguments[0]}: {last}");
        if (process.ExitCode != 0)
        {
            throw new InvalidOperationException($"{dll} {arguments[0]} failed (exit {process.ExitCode}): {output.Trim()} {error.Result.Trim()}");
        }

        return last;
    }

    public void Dispose()
    {
        if (_service is { HasExited: false } service)
        {
            service.Kill(entireProcessTree: true);
        }

        _service?.Dispose();
    }
}
