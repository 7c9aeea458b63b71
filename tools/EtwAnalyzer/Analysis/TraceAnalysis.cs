using RapidFix.EtwAnalyzer.Reading;
using RapidFix.Pools.Diagnostics;

namespace RapidFix.EtwAnalyzer.Analysis;

/// <summary>The analyzer's judgement, which is also its exit code.</summary>
public enum Verdict
{
    /// <summary>The continuous phase had no GC, no allocation tick and allocated nothing.</summary>
    Pass = 0,

    /// <summary>The continuous phase collected or allocated.</summary>
    Fail = 1,

    /// <summary>The trace cannot tell (missing markers, truncated, events lost).</summary>
    Inconclusive = 2,
}

/// <summary>Suspensions of one reason in one phase.</summary>
public sealed record SuspensionGroup(string Reason, int Count, double TotalMs, double MaxMs);

/// <summary>Allocation ticks of one type in one phase.</summary>
public sealed record AllocatedType(string TypeName, int Ticks, long Bytes);

/// <summary>What happened in one phase.</summary>
public sealed class PhaseSummary
{
    public required string Name { get; init; }

    public required double StartMs { get; init; }

    public required double EndMs { get; init; }

    public double DurationMs => Math.Max(0, EndMs - StartMs);

    public List<GcEvent> Collections { get; } = [];

    public List<SuspensionEvent> Suspensions { get; } = [];

    public List<AllocationTick> AllocationTicks { get; } = [];

    public List<JitEvent> Compilations { get; } = [];

    public List<ExceptionEvent> Exceptions { get; } = [];

    public List<LatencyInterval> LatencyIntervals { get; } = [];

    public List<SessionEvent> SessionEvents { get; } = [];

    public LatencyHistogram Receive { get; } = new();

    public LatencyHistogram Send { get; } = new();

    public int CollectionsOfGeneration(int generation) => Collections.Count(c => c.Generation == generation);

    /// <summary>Time the runtime was suspended for collections (pause time).</summary>
    public double GcPauseMs => Suspensions.Where(s => s.ForGc).Sum(s => s.DurationMs);

    public double MaxGcPauseMs => Suspensions.Where(s => s.ForGc).Select(s => s.DurationMs).DefaultIfEmpty(0).Max();

    public long AllocatedTickBytes => AllocationTicks.Sum(t => t.Bytes);

    public IEnumerable<(string Reason, int Count)> CollectionReasons =>
        Collections.GroupBy(c => c.Reason).Select(g => (g.Key, g.Count())).OrderByDescending(g => g.Item2);

    public IEnumerable<SuspensionGroup> SuspensionsByReason =>
        Suspensions.GroupBy(s => s.Reason)
            .Select(g => new SuspensionGroup(g.Key, g.Count(), g.Sum(s => s.DurationMs), g.Max(s => s.DurationMs)))
            .OrderByDescending(g => g.Count);

    public IEnumerable<AllocatedType> TopAllocatedTypes(int count) =>
        AllocationTicks.GroupBy(t => t.TypeName)
            .Select(g => new AllocatedType(g.Key, g.Count(), g.Sum(t => t.Bytes)))
            .OrderByDescending(t => t.Bytes)
            .Take(count);

    public LatencyHistogram Histogram(LatencyChannel channel) => channel == LatencyChannel.Send ? Send : Receive;
}

/// <summary>The phases of a traced RapidFix process and the verdict on its continuous phase.</summary>
public sealed class TraceAnalysis
{
    private TraceAnalysis(TraceModel model)
    {
        Model = model;
    }

    public TraceModel Model { get; }

    public string Engine { get; private set; } = "";

    public PhaseSummary Startup { get; private set; } = null!;

    public PhaseSummary Continuous { get; private set; } = null!;

    public PhaseSummary Shutdown { get; private set; } = null!;

    /// <summary>The engine's own figures at the start of the continuous phase (ContinuousBegin), if traced.</summary>
    public PhaseMarker? ContinuousBegin { get; private set; }

    /// <summary>The engine's own figures for the continuous phase (ContinuousReport), if traced.</summary>
    public PhaseMarker? ContinuousReport { get; private set; }

    /// <summary>The warm-up's marker (duration, rounds, methods compiled, settled), if traced.</summary>
    public PhaseMarker? WarmUp { get; private set; }

    public Verdict Verdict { get; private set; }

    /// <summary>Why the verdict is what it is, one reason a line.</summary>
    public List<string> Reasons { get; } = [];

    /// <summary>Things a reader should know that do not change the verdict.</summary>
    public List<string> Notes { get; } = [];

    public IEnumerable<PhaseSummary> Phases => [Startup, Continuous, Shutdown];

    /// <summary>Bytes the process allocated during the continuous phase by the engine's precise count (null when not traced).</summary>
    public long? ProcessAllocatedBytes => Value(ContinuousReport, "processAllocatedBytes");

    /// <summary>Bytes the engine threads allocated during the continuous phase, by their own counters (null when not traced).</summary>
    public long? EngineThreadsAllocatedBytes => Value(ContinuousReport, "engineThreadsAllocatedBytes");

    public static TraceAnalysis Analyze(TraceModel model)
    {
        ArgumentNullException.ThrowIfNull(model);
        var analysis = new TraceAnalysis(model);
        analysis.Run();
        return analysis;
    }

    private void Run()
    {
        var m = Model;
        double start = double.IsNaN(m.StartMs) ? 0 : m.StartMs;
        double end = double.IsNaN(m.EndMs) ? start : m.EndMs;
        var begin = m.Markers.FirstOrDefault(x => x.Name == "ContinuousBegin");
        Engine = begin?.Engine ?? m.Markers.FirstOrDefault()?.Engine ?? "";
        var sameEngine = m.Markers.Where(x => x.Engine == Engine).ToList();
        var endMarker = begin is null ? null : sameEngine.FirstOrDefault(x => x.Name == "ContinuousEnd" && x.TimeMs >= begin.TimeMs);
        ContinuousBegin = begin;
        ContinuousReport = begin is null ? null : sameEngine.FirstOrDefault(x => x.Name == "ContinuousReport" && x.TimeMs >= begin.TimeMs);
        WarmUp = sameEngine.LastOrDefault(x => x.Name == "WarmUpEnd" && (begin is null || x.TimeMs <= begin.TimeMs));
        if (m.Markers.Select(x => x.Engine).Distinct().Count() > 1)
        {
            Notes.Add($"markers of several engines in the trace ({string.Join(", ", m.Markers.Select(x => x.Engine).Distinct())}); the phases of '{Engine}' are used");
        }

        if (m.Markers.Count(x => x.Name == "ContinuousBegin") > 1)
        {
            Notes.Add("more than one continuous phase in the trace; the first one is analyzed");
        }

        double continuousStart = begin?.TimeMs ?? end;
        double continuousEnd = endMarker?.TimeMs ?? end;
        Startup = new PhaseSummary { Name = "startup", StartMs = start, EndMs = continuousStart };
        Continuous = new PhaseSummary { Name = "continuous", StartMs = continuousStart, EndMs = begin is null ? continuousStart : continuousEnd };
        Shutdown = new PhaseSummary { Name = "shutdown", StartMs = Continuous.EndMs, EndMs = end };

        PhaseSummary PhaseAt(double t) => t < Continuous.StartMs ? Startup : t <= Continuous.EndMs && begin is not null ? Continuous : Shutdown;

        foreach (var gc in m.Collections)
        {
            PhaseAt(gc.TimeMs).Collections.Add(gc);
        }

        foreach (var s in m.Suspensions)
        {
            PhaseAt(s.TimeMs).Suspensions.Add(s);
        }

        foreach (var tick in m.AllocationTicks)
        {
            PhaseAt(tick.TimeMs).AllocationTicks.Add(tick);
        }

        foreach (var jit in m.Compilations)
        {
            PhaseAt(jit.TimeMs).Compilations.Add(jit);
        }

        foreach (var ex in m.Exceptions)
        {
            PhaseAt(ex.TimeMs).Exceptions.Add(ex);
        }

        foreach (var s in m.SessionEvents)
        {
            PhaseAt(s.TimeMs).SessionEvents.Add(s);
        }

        foreach (var interval in m.Latency)
        {
            var phase = PhaseAt(interval.TimeMs);
            phase.LatencyIntervals.Add(interval);
            if (interval.Histogram is not null)
            {
                phase.Histogram((LatencyChannel)interval.Channel).Add(interval.Histogram);
            }
        }

        Judge(begin, endMarker);
    }

    private void Judge(PhaseMarker? begin, PhaseMarker? endMarker)
    {
        var m = Model;
        var c = Continuous;
        if (begin is null)
        {
            Verdict = Verdict.Inconclusive;
            if (m.TruncationMessage is not null)
            {
                Reasons.Add(m.TruncationMessage);
            }

            Reasons.Add(m.Markers.Count == 0
                ? "no RapidFix phase markers in the trace: enable the 'RapidFix' provider (see docs/tracing.md)"
                : "no continuous phase in the trace: the engine never called EnterContinuous while traced");
            return;
        }

        if (c.Collections.Count > 0)
        {
            Reasons.Add($"{c.Collections.Count} garbage collection(s) in the continuous phase (gen0 {c.CollectionsOfGeneration(0)}, gen1 {c.CollectionsOfGeneration(1)}, gen2 {c.CollectionsOfGeneration(2)}; reasons {string.Join(", ", c.CollectionReasons.Select(r => $"{r.Reason} x{r.Count}"))})");
        }

        if (c.AllocationTicks.Count > 0)
        {
            Reasons.Add($"{c.AllocationTicks.Count} allocation tick(s) in the continuous phase (~{c.AllocatedTickBytes:N0} bytes; top type {c.TopAllocatedTypes(1).First().TypeName})");
        }

        if (ProcessAllocatedBytes is > 0)
        {
            Reasons.Add($"the process allocated {ProcessAllocatedBytes:N0} bytes in the continuous phase (engine's precise count at the phase boundaries)");
        }

        if (Value(ContinuousReport, "noGcRegionRequested") == 1 && Value(ContinuousReport, "noGcRegionHeld") == 0)
        {
            Reasons.Add("the no-GC region of the continuous phase did not hold");
        }

        if (Reasons.Count > 0)
        {
            Verdict = Verdict.Fail;
            return;
        }

        // Nothing wrong was seen; make sure everything was there to be seen.
        if (endMarker is null)
        {
            Reasons.Add("the continuous phase has no end marker: the process stopped (or the trace was cut) during the phase");
        }

        if (m.TruncationMessage is not null)
        {
            Reasons.Add(m.TruncationMessage);
        }

        if (m.EventsLost > 0)
        {
            Reasons.Add($"the runtime lost {m.EventsLost:N0} events (trace buffers full): a GC or allocation tick may be missing");
        }

        Verdict = Reasons.Count > 0 ? Verdict.Inconclusive : Verdict.Pass;
        if (ContinuousReport is null)
        {
            Notes.Add("no ContinuousReport event: the engine's own allocated-bytes counters are not in the trace");
        }
    }

    private static long? Value(PhaseMarker? marker, string name) =>
        marker is not null && marker.Values.TryGetValue(name, out long v) ? v : null;
}
