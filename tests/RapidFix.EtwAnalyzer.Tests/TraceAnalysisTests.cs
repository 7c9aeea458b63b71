using RapidFix.EtwAnalyzer.Analysis;
using RapidFix.EtwAnalyzer.Reading;
using RapidFix.EtwAnalyzer.Reporting;
using RapidFix.Pools.Diagnostics;

namespace RapidFix.EtwAnalyzer.Tests;

/// <summary>The judgement on traces built event by event: what falls in which phase, and what fails the gate.</summary>
public sealed class TraceAnalysisTests
{
    private static readonly Dictionary<string, long> NoValues = [];

    /// <summary>Startup 0-1000 ms, continuous 1000-5000 ms, shutdown to 6000 ms; the report says 0 bytes allocated.</summary>
    private static TraceModel CleanRun(long allocatedBytes = 0, bool regionRequested = false, bool regionHeld = false)
    {
        var m = new TraceModel { Path = "synthetic.nettrace", StartMs = 0, EndMs = 6000, EventCount = 100 };
        m.Markers.Add(new PhaseMarker(0, "StartupBegin", "e", NoValues));
        m.Markers.Add(new PhaseMarker(900, "WarmUpEnd", "e", new Dictionary<string, long> { ["warmUpNanoseconds"] = 700_000_000, ["rounds"] = 9, ["methodsCompiled"] = 321, ["settled"] = 1 }));
        m.Markers.Add(new PhaseMarker(1000, "ContinuousBegin", "e", new Dictionary<string, long> { ["processAllocatedBytes"] = 5_000_000 }));
        m.Markers.Add(new PhaseMarker(5000, "ContinuousEnd", "e", NoValues));
        m.Markers.Add(new PhaseMarker(5001, "ContinuousReport", "e", new Dictionary<string, long>
        {
            ["processAllocatedBytes"] = allocatedBytes,
            ["engineThreadsAllocatedBytes"] = 0,
            ["noGcRegionRequested"] = regionRequested ? 1 : 0,
            ["noGcRegionHeld"] = regionHeld ? 1 : 0,
        }));
        m.Markers.Add(new PhaseMarker(5002, "ShutdownBegin", "e", NoValues));
        // Startup and shutdown may collect and allocate as they like.
        m.Collections.Add(new GcEvent(950, 1, 2, "Induced", "NonConcurrentGC", 4));
        m.Suspensions.Add(new SuspensionEvent(949, "SuspendForGC", 5, true));
        m.AllocationTicks.Add(new AllocationTick(10, "System.Byte[]", 100_000, "Small", 1));
        m.AllocationTicks.Add(new AllocationTick(5500, "System.String", 100_000, "Small", 1));
        m.Compilations.Add(new JitEvent(5600, "Shutdown.Method", "QuickJitted"));
        return m;
    }

    [Fact]
    public void A_clean_continuous_phase_passes_whatever_startup_and_shutdown_did()
    {
        var a = TraceAnalysis.Analyze(CleanRun());
        Assert.Equal(Verdict.Pass, a.Verdict);
        Assert.Empty(a.Reasons);
        Assert.Equal(1000, a.Startup.DurationMs);
        Assert.Equal(4000, a.Continuous.DurationMs);
        Assert.Single(a.Startup.Collections);
        Assert.Single(a.Startup.AllocationTicks);
        Assert.Single(a.Shutdown.AllocationTicks);
        Assert.Single(a.Shutdown.Compilations);
        Assert.Equal(5, a.Startup.GcPauseMs);
        Assert.Equal(0L, a.ProcessAllocatedBytes);
        Assert.Equal(9, a.WarmUp!.Values["rounds"]);
        Assert.StartsWith("verdict: PASS: continuous phase 4.0 s: 0 GCs, 0 allocation ticks, 0 bytes allocated", TextReport.VerdictLine(a), StringComparison.Ordinal);
    }

    [Fact]
    public void A_collection_in_the_continuous_phase_fails_with_its_generation_and_reason()
    {
        var m = CleanRun();
        m.Collections.Add(new GcEvent(3000, 2, 0, "AllocSmall", "NonConcurrentGC", 1.5));
        m.Suspensions.Add(new SuspensionEvent(2999, "SuspendForGC", 2, true));
        var a = TraceAnalysis.Analyze(m);
        Assert.Equal(Verdict.Fail, a.Verdict);
        Assert.Contains(a.Reasons, r => r.Contains("1 garbage collection(s) in the continuous phase (gen0 1", StringComparison.Ordinal) && r.Contains("AllocSmall x1", StringComparison.Ordinal));
        Assert.Equal(2, a.Continuous.GcPauseMs);
        Assert.Contains("FAIL: continuous phase 4.0 s: 1 GCs", TextReport.VerdictLine(a), StringComparison.Ordinal);
    }

    [Fact]
    public void An_allocation_tick_in_the_continuous_phase_fails_and_names_the_type()
    {
        var m = CleanRun();
        m.AllocationTicks.Add(new AllocationTick(1000, "MyApp.Order", 104_000, "Small", 7)); // on the boundary: continuous
        var a = TraceAnalysis.Analyze(m);
        Assert.Equal(Verdict.Fail, a.Verdict);
        Assert.Contains(a.Reasons, r => r.Contains("1 allocation tick(s)", StringComparison.Ordinal) && r.Contains("MyApp.Order", StringComparison.Ordinal));
        Assert.Equal(("MyApp.Order", 1, 104_000L), a.Continuous.TopAllocatedTypes(5).Select(t => (t.TypeName, t.Ticks, t.Bytes)).Single());
    }

    [Fact]
    public void Bytes_counted_by_the_engine_fail_the_phase_even_without_a_tick()
    {
        var a = TraceAnalysis.Analyze(CleanRun(allocatedBytes: 440));
        Assert.Equal(Verdict.Fail, a.Verdict);
        Assert.Contains(a.Reasons, r => r.Contains("allocated 440 bytes", StringComparison.Ordinal));
    }

    [Fact]
    public void A_broken_no_gc_region_fails()
    {
        Assert.Equal(Verdict.Pass, TraceAnalysis.Analyze(CleanRun(regionRequested: true, regionHeld: true)).Verdict);
        var a = TraceAnalysis.Analyze(CleanRun(regionRequested: true, regionHeld: false));
        Assert.Equal(Verdict.Fail, a.Verdict);
        Assert.Contains(a.Reasons, r => r.Contains("no-GC region", StringComparison.Ordinal));
    }

    [Fact]
    public void A_trace_without_markers_cannot_tell()
    {
        var m = CleanRun();
        m.Markers.Clear();
        var a = TraceAnalysis.Analyze(m);
        Assert.Equal(Verdict.Inconclusive, a.Verdict);
        Assert.Contains(a.Reasons, r => r.Contains("enable the 'RapidFix' provider", StringComparison.Ordinal));
    }

    [Fact]
    public void A_trace_cut_short_or_with_lost_events_cannot_pass()
    {
        var cut = CleanRun();
        cut.TruncationMessage = "the trace ends abruptly after 100 events";
        Assert.Equal(Verdict.Inconclusive, TraceAnalysis.Analyze(cut).Verdict);

        var lost = CleanRun();
        lost.EventsLost = 3;
        var a = TraceAnalysis.Analyze(lost);
        Assert.Equal(Verdict.Inconclusive, a.Verdict);
        Assert.Contains(a.Reasons, r => r.Contains("lost 3 events", StringComparison.Ordinal));

        // The process stopped during the continuous phase: nothing wrong seen, but the phase is not complete.
        var noEnd = CleanRun();
        noEnd.Markers.RemoveAll(x => x.Name is "ContinuousEnd" or "ContinuousReport" or "ShutdownBegin");
        noEnd.AllocationTicks.RemoveAll(t => t.TimeMs > 1000);
        var b = TraceAnalysis.Analyze(noEnd);
        Assert.Equal(Verdict.Inconclusive, b.Verdict);
        Assert.Contains(b.Reasons, r => r.Contains("no end marker", StringComparison.Ordinal));
        Assert.Equal(6000, b.Continuous.EndMs);
    }

    [Fact]
    public void Latency_intervals_are_merged_per_phase_and_channel()
    {
        var m = CleanRun();
        var early = new LatencyHistogram();
        early.Record(50_000);
        var steady = new LatencyHistogram();
        for (int i = 1; i <= 100; i++)
        {
            steady.Record(i * 1_000);
        }

        m.Latency.Add(new LatencyInterval(999, 0, 0, 1, 1, 0, 0, 0, 0, early));
        m.Latency.Add(new LatencyInterval(2000, 0, 1, 1, 100, 0, 0, 0, 0, steady));
        m.Latency.Add(new LatencyInterval(3000, 0, 1, 1, 100, 0, 0, 0, 0, steady));
        m.Latency.Add(new LatencyInterval(3000, 1, 1, 1, 1, 0, 0, 0, 0, early));
        var a = TraceAnalysis.Analyze(m);
        Assert.Equal(1, a.Startup.Receive.TotalCount);
        Assert.Equal(200, a.Continuous.Receive.TotalCount);
        Assert.Equal(1, a.Continuous.Send.TotalCount);
        Assert.InRange(a.Continuous.Receive.ValueAtPercentile(50), 50_000, 50_000 + 50_000 / 128);
        Assert.Equal(100_000, a.Continuous.Receive.Max);
        string report = TextReport.Format(a, []);
        Assert.Contains("99.99th Percentile (us)", report, StringComparison.Ordinal);
        Assert.EndsWith(TextReport.VerdictLine(a), report, StringComparison.Ordinal);
    }
}
