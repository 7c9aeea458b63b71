using System.Diagnostics;
using System.Runtime;
using RapidFix.Pools.Diagnostics;

namespace RapidFix.Pools.Phases;

/// <summary>
/// Owns the engine's phase: <see cref="EnginePhase.Startup"/> → <see cref="EnginePhase.Continuous"/> →
/// <see cref="EnginePhase.Shutdown"/>. The GC is process-wide, so one controller normally serves a whole process;
/// tests create their own.
/// </summary>
/// <remarks>
/// Pools created with a controller refuse to be created outside startup and register themselves in
/// <see cref="Pools"/>, so their occupancy can be read at any time without allocation.
/// Entering the continuous phase runs a full, blocking, compacting collection so that the phase starts with a
/// clean heap, and optionally starts a no-GC region as a tripwire: if anything allocates more than the region's
/// budget, the runtime leaves the region and <see cref="ContinuousPhaseReport.NoGcRegionHeld"/> says so.
/// </remarks>
public sealed class PhaseController
{
    private readonly object _gate = new();
    private IPhaseObserver[] _observers = [];
    private volatile int _phase = (int)EnginePhase.Startup;

    private readonly long _startupTimestamp;
    private long _continuousStartTimestamp;
    private long _shutdownStartTimestamp;
    private long _continuousStartAllocatedBytes;
    private long _continuousStartEngineThreadsBytes;
    private int _continuousStartGen0;
    private int _continuousStartGen1;
    private int _continuousStartGen2;
    private bool _noGcRegionRequested;

    // The transitions read the field, not the property: a getter called at every transition of every controller in
    // the process is promoted by tiered compilation after its 30th call, on a background thread, which under load
    // happened inside a later controller's continuous phase (one method compiled there: the zero-JIT check failed).
    private readonly string _name;

    /// <summary>A controller in the startup phase; <paramref name="name"/> labels its events and reports.</summary>
    public PhaseController(string name = "engine")
    {
        _name = name;
        Pools = new PoolRegistry();
        _startupTimestamp = Stopwatch.GetTimestamp();
        RapidFixEventSource.Log.StartupBegin(name);
    }

    /// <summary>A name used in log lines and traces.</summary>
    public string Name => _name;

    /// <summary>The current phase. Reading it is a volatile load: cheap enough for hot paths.</summary>
    public EnginePhase Phase => (EnginePhase)_phase;

    /// <summary>True while code may allocate freely (startup and shutdown).</summary>
    public bool AllowsAllocation => _phase != (int)EnginePhase.Continuous;

    /// <summary>Every pool created with this controller.</summary>
    public PoolRegistry Pools { get; }

    /// <summary>The report of the last continuous phase, available once shutdown has begun.</summary>
    public ContinuousPhaseReport? LastReport { get; private set; }

    /// <summary>Registers an observer. Only allowed during startup.</summary>
    public void AddObserver(IPhaseObserver observer)
    {
        ArgumentNullException.ThrowIfNull(observer);
        lock (_gate)
        {
            EnsureStartup("register a phase observer");
            var next = new IPhaseObserver[_observers.Length + 1];
            _observers.CopyTo(next, 0);
            next[^1] = observer;
            _observers = next;
        }
    }

    /// <summary>Throws <see cref="PhaseViolationException"/> unless the controller is in startup.</summary>
    /// <param name="action">What the caller tried to do, for the message.</param>
    public void EnsureStartup(string action)
    {
        if (_phase != (int)EnginePhase.Startup)
        {
            ThrowNotStartup(action, Phase);
        }
    }

    /// <summary>
    /// Ends startup: runs a full blocking compacting collection, records the GC counters, optionally starts a
    /// no-GC region of <paramref name="noGcRegionBytes"/> bytes, then tells the observers.
    /// </summary>
    /// <param name="noGcRegionBytes">0 for no region; otherwise the region's budget (the runtime caps it by segment size).</param>
    /// <returns>True when a requested no-GC region was started.</returns>
    public bool EnterContinuous(long noGcRegionBytes = 0)
    {
        lock (_gate)
        {
            EnsureStartup("enter the continuous phase");

            // Everything startup left behind is garbage now: collect it while pauses are still acceptable.
            GCSettings.LargeObjectHeapCompactionMode = GCLargeObjectHeapCompactionMode.CompactOnce;
            // Finalizers found by the first collection run (and may free more); the second collection reclaims what
            // they released, and its own finalizers run before the phase starts, not in it.
            GC.Collect(GC.MaxGeneration, GCCollectionMode.Forced, blocking: true, compacting: true);
            GC.WaitForPendingFinalizers();
            GC.Collect(GC.MaxGeneration, GCCollectionMode.Forced, blocking: true, compacting: true);
            GC.WaitForPendingFinalizers();

            bool regionStarted = false;
            if (noGcRegionBytes > 0)
            {
                try
                {
                    regionStarted = GC.TryStartNoGCRegion(noGcRegionBytes, disallowFullBlockingGC: true);
                }
                catch (ArgumentOutOfRangeException)
                {
                    // Budget larger than the runtime allows (an ephemeral segment): run without the tripwire.
                    regionStarted = false;
                }
            }

            _noGcRegionRequested = regionStarted;
            _continuousStartGen0 = GC.CollectionCount(0);
            _continuousStartGen1 = GC.CollectionCount(1);
            _continuousStartGen2 = GC.CollectionCount(2);
            // The precise count briefly suspends the runtime: done here, before the continuous marker.
            _continuousStartAllocatedBytes = GC.GetTotalAllocatedBytes(precise: true);
            EngineThreads.RefreshCurrentThread();
            _continuousStartEngineThreadsBytes = EngineThreads.TotalAllocatedBytes;
            var log = RapidFixEventSource.Log;
            log.StartupEnd(_name, EngineLatencyNanoseconds(_startupTimestamp));
            log.ContinuousBegin(_name, _continuousStartAllocatedBytes, _continuousStartEngineThreadsBytes,
                _continuousStartGen0, _continuousStartGen1, _continuousStartGen2, regionStarted);
            _continuousStartTimestamp = Stopwatch.GetTimestamp();
            _phase = (int)EnginePhase.Continuous;
            Notify(EnginePhase.Startup, EnginePhase.Continuous);
            return regionStarted;
        }
    }

    /// <summary>
    /// Ends the continuous phase (or startup, if continuous was never entered) and reports what the GC did
    /// meanwhile. Allocation is allowed again once this returns.
    /// </summary>
    public ContinuousPhaseReport EnterShutdown()
    {
        lock (_gate)
        {
            var from = Phase;
            if (from == EnginePhase.Shutdown)
            {
                return LastReport ?? default;
            }

            ContinuousPhaseReport report = default;
            if (from == EnginePhase.Continuous)
            {
                // The marker first: what follows (the precise allocation count suspends the runtime) is not the phase's.
                RapidFixEventSource.Log.ContinuousEnd(_name);

                // Read the counters before anything here allocates.
                EngineThreads.RefreshCurrentThread();
                long engineThreads = EngineThreads.TotalAllocatedBytes - _continuousStartEngineThreadsBytes;
                long allocated = GC.GetTotalAllocatedBytes(precise: true) - _continuousStartAllocatedBytes;
                int gen0 = GC.CollectionCount(0) - _continuousStartGen0;
                int gen1 = GC.CollectionCount(1) - _continuousStartGen1;
                int gen2 = GC.CollectionCount(2) - _continuousStartGen2;
                var duration = Stopwatch.GetElapsedTime(_continuousStartTimestamp);
                bool held = false;
                if (_noGcRegionRequested)
                {
                    held = GCSettings.LatencyMode == GCLatencyMode.NoGCRegion;
                    if (held)
                    {
                        try
                        {
                            GC.EndNoGCRegion();
                        }
                        catch (InvalidOperationException)
                        {
                            // The runtime reports here that the region was exited by an induced or budget GC.
                            held = false;
                        }
                    }
                }

                report = new ContinuousPhaseReport(duration, gen0, gen1, gen2, allocated, _noGcRegionRequested, held)
                {
                    EngineThreadsAllocatedBytes = engineThreads,
                };
                LastReport = report;
                RapidFixEventSource.Log.ContinuousReport(_name, (long)duration.TotalNanoseconds, gen0, gen1, gen2, allocated, engineThreads,
                    _noGcRegionRequested, held);
            }

            _shutdownStartTimestamp = Stopwatch.GetTimestamp();
            RapidFixEventSource.Log.ShutdownBegin(_name);
            _phase = (int)EnginePhase.Shutdown;
            Notify(from, EnginePhase.Shutdown);
            return report;
        }
    }

    /// <summary>
    /// Marks the end of shutdown in the trace (pools released, the process about to exit or start over). Optional:
    /// without it a trace's shutdown phase runs to the end of the trace.
    /// </summary>
    public void CompleteShutdown()
    {
        lock (_gate)
        {
            if (Phase != EnginePhase.Shutdown)
            {
                ThrowNotShutdown();
            }

            RapidFixEventSource.Log.ShutdownEnd(_name, EngineLatencyNanoseconds(_shutdownStartTimestamp));
        }
    }

    private static long EngineLatencyNanoseconds(long since) => (long)Stopwatch.GetElapsedTime(since).TotalNanoseconds;

    private void ThrowNotShutdown() =>
        throw new PhaseViolationException($"Cannot complete the shutdown of '{_name}' in the {Phase} phase: call EnterShutdown first.");

    private void Notify(EnginePhase from, EnginePhase to)
    {
        foreach (var observer in _observers)
        {
            observer.OnPhaseChanged(from, to);
        }
    }

    private void ThrowNotStartup(string action, EnginePhase phase) =>
        throw new PhaseViolationException($"Cannot {action} in the {phase} phase of '{_name}': only allowed during startup.");
}
