using System.Collections.Concurrent;
using System.Diagnostics;
using System.Diagnostics.Tracing;
using RapidFix.Engine.Hosting;
using RapidFix.TradeDriver;

namespace RapidFix.MatchingService.Tests;

/// <summary>
/// The service's own warm-up (the default startup, no round of the test's) drives the real connection paths through
/// its scratch service: participants that log on during startup and send their first trades only in the continuous
/// phase (as the measuring <c>run</c> does) find every method of the path compiled, and nothing of the path allocates.
/// Without the session warm-up (the matcher-only warm-up of before) the connection threads compile and allocate in the
/// phase. The scratch service leaves nothing behind: the live journal and stores hold only the participants' traffic.
/// </summary>
[Collection(nameof(ServiceProcesses))]
public sealed class SessionWarmUpTests : IDisposable
{
    private readonly string _work = Path.Combine(Path.GetTempPath(), "rapidfix-session-warm-up-" + Guid.NewGuid().ToString("N"));

    public void Dispose()
    {
        if (Directory.Exists(_work))
        {
            Directory.Delete(_work, recursive: true);
        }
    }

    [Fact]
    public void After_the_warm_up_the_first_trades_of_the_continuous_phase_compile_and_allocate_nothing_on_the_path()
    {
        Result? result = null;
        Exception? failure = null;
        var thread = new Thread(() =>
        {
            try
            {
                result = Run();
            }
            catch (Exception ex)
            {
                failure = ex;
            }
        });
        thread.Start();
        thread.Join();
        Assert.Null(failure);
        var r = result!;

        Assert.True(r.WarmUp.Settled, $"warm-up not settled: {r.WarmUp}");
        Assert.True(r.Acks > 0 && r.Cls > 0, $"acks {r.Acks}, CLS {r.Cls}");
        Assert.Equal(0, r.Report.Continuous.Gen0Collections);
        // No method of the service's path was compiled (at any tier) after the phase began.
        Assert.True(r.LateMethods.Count == 0, $"{r.LateMethods.Count} methods compiled in the continuous phase: {string.Join(", ", r.LateMethods.Take(40))}");
        // Every engine thread of the path (the service's connection threads and matcher thread, the participants'
        // connection threads) and the journals' flusher threads: 0 bytes.
        Assert.Equal(0, r.Report.Continuous.EngineThreadsAllocatedBytes);
        Assert.Equal(0, r.FlusherBytes);
        // The live journal holds the participants' inputs only: nothing of the warm-up.
        Assert.Equal(r.Sent, r.Journalled);
        Assert.False(Directory.Exists(Path.Combine(_work, "data", "warm-up.scratch")), "the scratch service's directory was left behind");
        // A restart from the journal replays the participants' inputs and nothing of the warm-up.
        Assert.Equal(r.Sent, r.ReplayedAfterRestart);
    }

    private Result Run()
    {
        Directory.CreateDirectory(_work);
        var (messages, _) = TradeGenerator.Generate(GeneratorOptions.DefaultMix(200, 7));
        var set = Verifier.Encode(messages);
        string config = Path.Combine(_work, "service.cfg");
        File.WriteAllText(config, Verifier.ServiceSettings(TradeGenerator.Participants, "MATCH", set.Count * 4));
        int port = Participants.FreePort();
        var collector = new AnswerCollector { Keep = false };
        // The participants connect while the service starts (they retry until it listens): logged on in startup,
        // before the warm-up, as with --wait-for-participants.
        using var participants = new Participants(TradeGenerator.Participants, "MATCH", "127.0.0.1", port, collector);
        var options = new ServiceOptions
        {
            SettingsPath = config,
            StaticDataPath = DocumentedExamplesTests.GeneratedStaticData,
            Port = port,
            DataDirectory = Path.Combine(_work, "data"),
            BusinessDate = 20261123,
            LogPath = Path.Combine(_work, "engine.log"),
            MaxInputs = set.Count * 10,
            WaitForLogons = TimeSpan.FromSeconds(60),
        };
        var server = MatchingServer.Start(options);
        Assert.True(participants.WaitForLogons(TimeSpan.FromSeconds(60)), "logons");

        // The test's own sending code shares the engine's namespace (FixEngine.Sessions): called in startup until it
        // is tiered up, so that a compilation in the phase is the service's. The service's warm-up covers its side.
        // Paced, so that each tier (instrumented, then optimized) is compiled before the next calls.
        for (int round = 0; round < 10; round++)
        {
            for (int i = 0; i < 50; i++)
            {
                participants.FlushAll();
            }

            Thread.Sleep(150);
        }

        using var jit = new JitListener();
        long flushers = server.FlusherAllocatedBytes;
        server.EnterContinuous();
        var since = DateTime.UtcNow; // the switch's own compilations (its first calls) are before
        long sent = Verifier.Send(set, participants, collector, window: 64);
        long deadline = Stopwatch.GetTimestamp() + (60 * Stopwatch.Frequency);
        while (collector.Acks < sent && Stopwatch.GetTimestamp() < deadline)
        {
            Thread.Sleep(5);
        }

        Thread.Sleep(500); // the CLS after the last acks; tier-ups the traffic queued (there must be none)
        var until = DateTime.UtcNow;
        server.EndContinuous();
        Thread.Sleep(1000); // the listener's events arrive with a delay
        flushers = server.FlusherAllocatedBytes - flushers;
        long journalled = server.Counters.JournalledInputs;
        var late = jit.Methods.Where(m => m.Time >= since && m.Time <= until && IsPath(m.Method)).Select(m => m.Method).Distinct().ToList();
        var warmUp = server.Host.LastWarmUp;
        var report = server.Stop();
        var restarted = MatchingServer.Start(options with { WarmUp = false, WaitForLogons = TimeSpan.Zero });
        int replayed = restarted.Replay.Inputs;
        restarted.Stop();
        return new Result(warmUp, set.Count, journalled, collector.Acks, collector.Cls, late, flushers, report, replayed);
    }

    // The service's path: the service, the matcher and the engine (the test's own code and the trade driver's
    // collector are not the service's).
    private static bool IsPath(string method) =>
        method.StartsWith("RapidFix.MatchingService.", StringComparison.Ordinal) || method.StartsWith("RapidFix.Matching.", StringComparison.Ordinal)
        || method.StartsWith("RapidFix.Engine.", StringComparison.Ordinal) || method.StartsWith("RapidFix.Pools.", StringComparison.Ordinal)
        || method.StartsWith("RapidFix.Fields.", StringComparison.Ordinal) || method.StartsWith("RapidFix.Telemetry.", StringComparison.Ordinal);

    private sealed record Result(WarmUpReport WarmUp, long Sent, long Journalled, long Acks, long Cls, List<string> LateMethods, long FlusherBytes,
        EngineRunReport Report, int ReplayedAfterRestart);

    // The runtime's JIT events in process (MethodLoadVerbose: every method compiled, at any tier), with their times.
    private sealed class JitListener : EventListener
    {
        public ConcurrentQueue<(DateTime Time, string Method)> Methods { get; } = new();

        protected override void OnEventSourceCreated(EventSource eventSource)
        {
            if (eventSource.Name == "Microsoft-Windows-DotNETRuntime")
            {
                EnableEvents(eventSource, EventLevel.Verbose, (EventKeywords)0x10); // JitKeyword
            }
        }

        protected override void OnEventWritten(EventWrittenEventArgs e)
        {
            if (e.EventName is "MethodLoadVerbose_V1" or "MethodLoadVerbose_V2" or "MethodLoadVerbose" && e.Payload is { Count: > 5 } payload)
            {
                int ns = e.PayloadNames!.IndexOf("MethodNamespace");
                int name = e.PayloadNames.IndexOf("MethodName");
                if (ns >= 0 && name >= 0)
                {
                    Methods.Enqueue((e.TimeStamp.ToUniversalTime(), payload[ns] + "." + payload[name]));
                }
            }
        }
    }
}

/// <summary>
/// The scratch service's port is the one its own acceptor bound (port 0, read back), not one chosen first and bound
/// later: a port chosen by binding and releasing port 0 could be taken by another process before the scratch service
/// bound it again, and the session warm-up was then lost (the first trades of the phase compiled the path).
/// </summary>
[Collection(nameof(ServiceProcesses))]
public sealed class SessionWarmUpPortTests : IDisposable
{
    private readonly string _work = Path.Combine(Path.GetTempPath(), "rapidfix-session-warm-up-port-" + Guid.NewGuid().ToString("N"));

    public void Dispose()
    {
        SessionWarmUp.ScratchPortChosen = null;
        if (Directory.Exists(_work))
        {
            Directory.Delete(_work, recursive: true);
        }
    }

    [Fact]
    public void Another_listener_on_the_scratch_services_port_once_it_is_known_does_not_cost_the_session_warm_up()
    {
        Directory.CreateDirectory(_work);
        var (messages, _) = TradeGenerator.Generate(GeneratorOptions.DefaultMix(20, 7));
        string config = Path.Combine(_work, "service.cfg");
        File.WriteAllText(config, Verifier.ServiceSettings(TradeGenerator.Participants, "MATCH", messages.Count * 4));
        // Whoever else listens on loopback takes the scratch service's port as soon as it is known (as a parallel
        // test's listener or another process can): it gets it only if the scratch service is not listening on it yet.
        System.Net.Sockets.TcpListener? other = null;
        bool taken = false;
        SessionWarmUp.ScratchPortChosen = port =>
        {
            try
            {
                var listener = new System.Net.Sockets.TcpListener(System.Net.IPAddress.Loopback, port);
                listener.Start();
                other = listener;
                taken = true;
            }
            catch (System.Net.Sockets.SocketException)
            {
                // in use: the scratch service holds it
            }
        };
        var output = new StringWriter();
        try
        {
            var server = MatchingServer.Start(new ServiceOptions
            {
                SettingsPath = config,
                StaticDataPath = DocumentedExamplesTests.GeneratedStaticData,
                Port = Participants.FreePort(),
                DataDirectory = Path.Combine(_work, "data"),
                BusinessDate = 20261123,
                LogPath = Path.Combine(_work, "engine.log"),
                MaxInputs = 1000,
            }, output);
            server.Stop();
        }
        finally
        {
            SessionWarmUp.ScratchPortChosen = null;
            other?.Stop();
        }

        string text = output.ToString();
        Assert.False(taken, "another listener took the scratch service's port: " + text);
        Assert.DoesNotContain("covers the matcher only", text, StringComparison.Ordinal);
        Assert.Contains("scratch service matched", text, StringComparison.Ordinal);
    }
}
