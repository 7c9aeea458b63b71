using System.Diagnostics;
using RapidFix.Engine.Configuration;
using RapidFix.Engine.Diagnostics;
using RapidFix.Engine.Sessions;
using RapidFix.Engine.Transport;
using RapidFix.Pools.Buffers;
using RapidFix.Pools.Diagnostics;
using RapidFix.Pools.Phases;

namespace RapidFix.Engine.Hosting;

/// <summary>
/// Runs a <see cref="FixEngine"/> through the three phases. <see cref="Start"/> is startup: the phase controller,
/// one buffer pool per session sized from the settings (BufferPoolSize buffers of MaxMessageSize), the sessions with
/// their dictionaries and stores, the sockets, the summary thread. <see cref="WarmUp"/> drives the application's
/// hot paths until tiered compilation has settled; <see cref="EnterContinuous"/> then collects everything startup
/// left behind and starts the continuous phase (optionally inside a no-GC region). <see cref="Shutdown"/> reports
/// what the GC did, closes the sessions and releases the pools.
/// </summary>
public sealed class EngineHost : IEngineCounterSource, IDisposable
{
    private readonly FixEngine _engine;
    private readonly EngineHostOptions _options;
    private readonly PhaseController _phases;
    private readonly EngineMonitor _monitor;
    private readonly BufferPool[] _pools;
    private readonly FixSession[] _sessions; // an array: a foreach over the engine's IReadOnlyList would box its enumerator
    private readonly bool _previousAlwaysRecord;
    private WarmUpReport _warmUp;
    private EngineRunReport? _report;

    private EngineHost(FixEngine engine, EngineHostOptions options, PhaseController phases, BufferPool[] pools)
    {
        _engine = engine;
        _options = options;
        _phases = phases;
        _pools = pools;
        _sessions = [.. engine.Sessions];
        _previousAlwaysRecord = EngineLatency.AlwaysRecord;
        if (options.RecordLatencyWithoutListener)
        {
            EngineLatency.AlwaysRecord = true;
        }

        _monitor = new EngineMonitor(phases, this, options.SummaryInterval);
    }

    /// <summary>The engine the host runs.</summary>
    public FixEngine Engine => _engine;

    /// <summary>The phase controller: the phase, the pools, the last continuous-phase report.</summary>
    public PhaseController Phases => _phases;

    /// <summary>The monitor that publishes latency and counter summaries.</summary>
    public EngineMonitor Monitor => _monitor;

    /// <summary>The sessions of the settings, in their order.</summary>
    public IReadOnlyList<FixSession> Sessions => _engine.Sessions;

    /// <summary>The last warm-up's report.</summary>
    public WarmUpReport LastWarmUp => _warmUp;

    /// <summary>
    /// Startup: creates the phase controller (the "startup begins" marker), the sessions of
    /// <paramref name="settings"/> with the applications <paramref name="applications"/> returns, a buffer pool per
    /// session, then opens the sockets and starts the initiators.
    /// </summary>
    public static EngineHost Start(SettingsFile settings, Func<SessionSettings, IFixApplication> applications, EngineHostOptions? options = null,
        EngineLog? log = null)
    {
        ArgumentNullException.ThrowIfNull(settings);
        ArgumentNullException.ThrowIfNull(applications);
        options ??= new EngineHostOptions();
        var phases = new PhaseController(options.Name);
        // One pool per session, in the engine's order: an acceptor template is no session (its sessions come at logon).
        var sections = settings.Sessions.Where(s => !s.GetBool(SettingKeys.AcceptorTemplate)).ToArray();
        var pools = new BufferPool[sections.Length];
        for (int i = 0; i < pools.Length; i++)
        {
            var s = sections[i];
            pools[i] = new BufferPool(s.SessionId + " buffers", s.GetInt(SettingKeys.MaxMessageSize), s.GetInt(SettingKeys.BufferPoolSize), pinned: true, phases);
        }

        var engine = FixEngine.Create(settings, applications, log);
        EngineHost? host = null;
        try
        {
            host = new EngineHost(engine, options, phases, pools);
            engine.Start();
            host._monitor.Start();
            return host;
        }
        catch
        {
            if (host is not null)
            {
                host.Dispose();
            }
            else
            {
                engine.Dispose();
            }

            throw;
        }
    }

    /// <summary>The buffer pool of a session (same order as <see cref="Sessions"/>).</summary>
    public BufferPool BuffersOf(FixSession session)
    {
        int i = IndexOf(session);
        return i >= 0 ? _pools[i] : throw new ArgumentException($"Session {session.Id} is not one of this engine's.", nameof(session));
    }

    /// <summary>
    /// Waits until every session is logged on and the acceptors' connection threads are settled (each connection's
    /// hand-over makes an acceptor start a spare thread, and a thread's start allocates: it belongs to startup);
    /// false when a session is not logged on by the timeout (true when only the threads had not settled by then).
    /// </summary>
    public bool WaitForLogons(TimeSpan timeout)
    {
        var deadline = Stopwatch.GetTimestamp() + (long)(timeout.TotalSeconds * Stopwatch.Frequency);
        while (true)
        {
            bool all = true;
            foreach (var session in _sessions)
            {
                all &= session.IsLoggedOn;
            }

            if (all && AcceptorThreadsSettled())
            {
                return true;
            }

            if (Stopwatch.GetTimestamp() > deadline)
            {
                return all;
            }

            Thread.Sleep(5);
        }
    }

    /// <summary>True when every acceptor's connection threads are settled (<see cref="FixAcceptor.ConnectionThreadsSettled"/>).</summary>
    public bool AcceptorThreadsSettled()
    {
        var acceptors = _engine.Acceptors;
        for (int i = 0; i < acceptors.Count; i++)
        {
            if (!acceptors[i].ConnectionThreadsSettled)
            {
                return false;
            }
        }

        return true;
    }

    /// <summary>
    /// Waits until the JIT has compiled nothing for <paramref name="quietWindows"/> windows of <paramref name="window"/>
    /// in a row (at most <paramref name="limit"/>) and returns the methods compiled meanwhile: a host calls it at the
    /// end of startup, so the tier-ups its last calls queued finish before the continuous phase, not in it.
    /// </summary>
    public static long SettleJit(TimeSpan window, int quietWindows, TimeSpan limit)
    {
        long start = System.Diagnostics.Stopwatch.GetTimestamp();
        long first = System.Runtime.JitInfo.GetCompiledMethodCount();
        long before = first;
        int quiet = 0;
        while (quiet < quietWindows && System.Diagnostics.Stopwatch.GetElapsedTime(start) < limit)
        {
            Thread.Sleep(window);
            long now = System.Runtime.JitInfo.GetCompiledMethodCount();
            quiet = now == before ? quiet + 1 : 0;
            before = now;
        }

        return before - first;
    }

    /// <summary>
    /// Warm-up: runs <paramref name="round"/> (which must drive every hot path the continuous phase will use, on
    /// every thread that will use it), pauses <see cref="EngineHostOptions.WarmUpPause"/>, and repeats until the JIT
    /// has compiled nothing new for <see cref="EngineHostOptions.SettledRounds"/> rounds in a row (tier-1 and PGO
    /// code in place, loops' on-stack replacement done) or <see cref="EngineHostOptions.MaxWarmUp"/> has passed.
    /// Each round ends with a summary interval, so the monitor meets every engine thread during startup.
    /// </summary>
    public WarmUpReport WarmUp(Action<int> round)
    {
        ArgumentNullException.ThrowIfNull(round);
        _phases.EnsureStartup("warm up");
        long started = Stopwatch.GetTimestamp();
        long compiledAtStart = System.Runtime.JitInfo.GetCompiledMethodCount();
        long compiledBefore = compiledAtStart;
        int rounds = 0;
        int quietRounds = 0;
        bool settled = false;
        while (true)
        {
            round(rounds);
            rounds++;
            _monitor.Flush();
            Thread.Sleep(_options.WarmUpPause);
            long compiled = System.Runtime.JitInfo.GetCompiledMethodCount();
            quietRounds = compiled == compiledBefore ? quietRounds + 1 : 0;
            compiledBefore = compiled;
            if (quietRounds >= _options.SettledRounds && rounds >= _options.MinWarmUpRounds)
            {
                settled = true;
                break;
            }

            if (Stopwatch.GetElapsedTime(started) >= _options.MaxWarmUp)
            {
                break;
            }
        }

        var duration = Stopwatch.GetElapsedTime(started);
        int methods = (int)(compiledBefore - compiledAtStart);
        _warmUp = new WarmUpReport(duration, rounds, methods, settled);
        RapidFixEventSource.Log.WarmUpEnd(_options.Name, (long)duration.TotalNanoseconds, rounds, methods, settled);
        return _warmUp;
    }

    /// <summary>Ends startup: the last startup interval is summarised, then the phase controller collects and switches.</summary>
    public bool EnterContinuous()
    {
        _monitor.Flush();
        return _phases.EnterContinuous(_options.NoGcRegionBytes);
    }

    /// <summary>
    /// Shutdown: the last continuous interval is summarised, the phase report taken; then the sessions log out, the
    /// sockets close, the pools are released and the "shutdown ends" marker is written.
    /// </summary>
    public EngineRunReport Shutdown()
    {
        if (_report is not null)
        {
            return _report;
        }

        if (_phases.Phase == EnginePhase.Continuous)
        {
            _monitor.Flush();
        }

        var continuous = _phases.EnterShutdown();
        _monitor.Flush();
        _monitor.Dispose();
        _engine.Dispose();
        Array.Clear(_pools); // released: the GC may have them now
        EngineLatency.AlwaysRecord = _previousAlwaysRecord;
        _phases.CompleteShutdown();
        _report = new EngineRunReport(_warmUp, continuous, _phases.LastReport is not null);
        return _report;
    }

    /// <summary>The engine's counters, allocation-free, at any time.</summary>
    public void ReadCounters(out EngineCountersData counters)
    {
        counters = default;
        foreach (var session in _sessions)
        {
            var c = session.Counters;
            counters.MessagesIn += c.MessagesReceived;
            counters.MessagesOut += c.MessagesSent;
            counters.InboundQueueDepth += session.InboundQueueDepth;
            if (session.Transport is FixSocketConnection connection)
            {
                counters.OutboundPendingBytes += connection.PendingBytes;
            }
        }

        foreach (var pool in _phases.Pools.All)
        {
            counters.PoolsInUse += pool.InUse;
            counters.PoolsCapacity += pool.Capacity;
            counters.PoolRentFailures += pool.RentFailures;
        }

        counters.EngineThreadsAllocatedBytes = EngineThreads.TotalAllocatedBytes;
        // The imprecise total: the precise one suspends the runtime.
        counters.ProcessAllocatedBytes = GC.GetTotalAllocatedBytes(precise: false);
        counters.Gen0Collections = GC.CollectionCount(0);
        counters.Gen1Collections = GC.CollectionCount(1);
        counters.Gen2Collections = GC.CollectionCount(2);
    }

    /// <summary>Shuts down: the shutdown phase's report, then the engine (Logouts, sockets, stores).</summary>
    public void Dispose()
    {
        if (_report is null)
        {
            Shutdown();
        }
    }

    private int IndexOf(FixSession session)
    {
        var sessions = _engine.Sessions;
        for (int i = 0; i < sessions.Count; i++)
        {
            if (ReferenceEquals(sessions[i], session))
            {
                return i;
            }
        }

        return -1;
    }
}

/// <summary>What the warm-up did.</summary>
/// <param name="Duration">From the first round to the decision, pauses included.</param>
/// <param name="Rounds">Rounds run.</param>
/// <param name="MethodsCompiled">Methods the JIT compiled meanwhile (every tier, on-stack replacement included).</param>
/// <param name="Settled">True when compilation settled; false when the time limit ended the warm-up.</param>
public readonly record struct WarmUpReport(TimeSpan Duration, int Rounds, int MethodsCompiled, bool Settled);

/// <summary>The phases of one run.</summary>
/// <param name="WarmUp">The warm-up.</param>
/// <param name="Continuous">What the GC did during the continuous phase.</param>
/// <param name="RanContinuous">False when shutdown came straight from startup.</param>
public sealed record EngineRunReport(WarmUpReport WarmUp, ContinuousPhaseReport Continuous, bool RanContinuous);
