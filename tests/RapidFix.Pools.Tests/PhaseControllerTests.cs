using RapidFix.Pools.Objects;
using RapidFix.Pools.Phases;

namespace RapidFix.Pools.Tests;

[Collection(nameof(GcSensitive))]
public sealed class PhaseControllerTests
{
    private sealed class Recorder : IPhaseObserver
    {
        public readonly List<(EnginePhase From, EnginePhase To)> Seen = [];

        public void OnPhaseChanged(EnginePhase from, EnginePhase to) => Seen.Add((from, to));
    }

    [Fact]
    public void Phases_advance_in_order_and_observers_see_each_transition()
    {
        var phases = new PhaseController("order");
        var rec = new Recorder();
        phases.AddObserver(rec);
        Assert.Equal(EnginePhase.Startup, phases.Phase);
        Assert.True(phases.AllowsAllocation);

        phases.EnterContinuous();
        Assert.Equal(EnginePhase.Continuous, phases.Phase);
        Assert.False(phases.AllowsAllocation);
        Assert.Throws<PhaseViolationException>(() => phases.AddObserver(new Recorder()));
        Assert.Throws<PhaseViolationException>(() => phases.EnterContinuous());

        phases.EnterShutdown();
        Assert.Equal(EnginePhase.Shutdown, phases.Phase);
        Assert.True(phases.AllowsAllocation);
        Assert.Equal([(EnginePhase.Startup, EnginePhase.Continuous), (EnginePhase.Continuous, EnginePhase.Shutdown)], rec.Seen);
    }

    [Fact]
    public void Entering_continuous_runs_a_full_blocking_collection()
    {
        var phases = new PhaseController("gc");
        int gen2Before = GC.CollectionCount(2);
        phases.EnterContinuous();
        Assert.True(GC.CollectionCount(2) > gen2Before);
        phases.EnterShutdown();
    }

    [Fact]
    public void Report_counts_the_garbage_made_during_the_continuous_phase()
    {
        var phases = new PhaseController("report");
        phases.EnterContinuous();
        object? keep = null;
        for (int i = 0; i < 1000; i++)
        {
            keep = new byte[1024];
        }

        GC.KeepAlive(keep);
        var report = phases.EnterShutdown();
        Assert.True(report.AllocatedBytes >= 1000 * 1024, $"allocated {report.AllocatedBytes}");
        Assert.Equal(report, phases.LastReport);
    }

    [Fact]
    public void A_quiet_continuous_phase_reports_no_collection_and_a_held_no_gc_region()
    {
        var phases = new PhaseController("quiet");
        var pool = new ObjectPool<object>("objs", 16, () => new object(), phases);
        bool started = phases.EnterContinuous(noGcRegionBytes: 16 * 1024 * 1024);
        Assert.True(started);
        for (int i = 0; i < 10_000; i++)
        {
            pool.TryRent(out var o);
            pool.Return(o!);
        }

        var report = phases.EnterShutdown();
        Assert.True(report.NoGcRegionRequested);
        Assert.True(report.NoGcRegionHeld);
        Assert.True(report.NoGarbageCollections, report.ToString());
    }

    [Fact]
    public void The_no_gc_region_tripwire_reports_when_allocation_broke_it()
    {
        var phases = new PhaseController("tripwire");
        Assert.True(phases.EnterContinuous(noGcRegionBytes: 1024 * 1024));
        object? keep = null;
        for (int i = 0; i < 20_000; i++)
        {
            keep = new byte[1024]; // ~20 MB: far beyond the 1 MB budget
        }

        GC.KeepAlive(keep);
        var report = phases.EnterShutdown();
        Assert.False(report.NoGcRegionHeld);
        Assert.False(report.NoGarbageCollections);
    }
}

/// <summary>Tests that read process-wide GC counters run alone, not beside other allocating tests.</summary>
[CollectionDefinition(nameof(GcSensitive), DisableParallelization = true)]
public sealed class GcSensitive
{
}
