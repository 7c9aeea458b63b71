using RapidFix.Engine.Hosting;
using RapidFix.Engine.Tests.Store;
using RapidFix.Pools.Diagnostics;
using RapidFix.Pools.Phases;

namespace RapidFix.Engine.Tests.Hosting;

[Collection(AllocationTestCollection.Name)]
public sealed class EngineHostTests
{
    private static EngineHostOptions Options(string name) => new()
    {
        Name = name,
        RecordLatencyWithoutListener = true,
        MaxWarmUp = TimeSpan.FromSeconds(20),
    };

    [Fact]
    public void Runs_startup_warm_up_continuous_and_shutdown_with_sessions_exchanging_messages()
    {
        using var engine = new LoopbackEngine(Options("host-phases"));
        var host = engine.Host;
        Assert.Equal(EnginePhase.Startup, host.Phases.Phase);
        Assert.Equal(2, host.Phases.Pools.Count); // one pool per session, sized by BufferPoolSize
        host.ReadCounters(out var atStart);
        Assert.Equal(16, atStart.PoolsCapacity);

        var warm = host.WarmUp(_ => engine.Exchange(500));
        Assert.True(warm.Rounds >= 3);
        Assert.True(warm.MethodsCompiled > 0);
        Assert.Equal(warm, host.LastWarmUp);

        host.ReadCounters(out var before);
        host.EnterContinuous();
        var phase = host.Phases.Phase;
        engine.Exchange(2_000); // nothing else on this thread until shutdown: it is an engine thread, its bytes count
        host.ReadCounters(out var after);
        var report = host.Shutdown();

        Assert.Equal(EnginePhase.Continuous, phase);
        Assert.Equal(before.MessagesOut + 4_000, after.MessagesOut); // 2,000 orders and 2,000 reports
        Assert.Equal(before.MessagesIn + 4_000, after.MessagesIn);
        Assert.Equal(0, after.InboundQueueDepth);
        Assert.True(report.RanContinuous);
        Assert.Equal(EnginePhase.Shutdown, host.Phases.Phase);
        Assert.True(report.Continuous.NoGarbageCollections, $"collections in the continuous phase: {report.Continuous}");
        Assert.Equal(0, report.Continuous.EngineThreadsAllocatedBytes);
        var send = host.Monitor.Totals(EnginePhase.Continuous, LatencyChannel.Send);
        var receive = host.Monitor.Totals(EnginePhase.Continuous, LatencyChannel.Receive);
        Assert.Equal(4_000, send.TotalCount);   // orders by the buyer's thread, reports by the acceptor's
        Assert.Equal(4_000, receive.TotalCount);
        Assert.True(receive.ValueAtPercentile(50) > 0);
        Assert.Same(report, host.Shutdown());
    }

    [Fact]
    public void Warm_up_stops_at_its_time_limit_and_says_it_did_not_settle()
    {
        var options = Options("host-unsettled");
        using var engine = new LoopbackEngine(new EngineHostOptions
        {
            Name = options.Name,
            WarmUpPause = TimeSpan.FromMilliseconds(10),
            MinWarmUpRounds = 1000,
            MaxWarmUp = TimeSpan.FromMilliseconds(300),
        });
        var warm = engine.Host.WarmUp(_ => engine.Exchange(10));
        Assert.False(warm.Settled);
        Assert.True(warm.Duration >= TimeSpan.FromMilliseconds(300));
        Assert.True(warm.Rounds < 1000);
    }

    [Fact]
    public void The_no_gc_region_tripwire_is_reported_at_shutdown()
    {
        var options = Options("host-tripwire");
        using var engine = new LoopbackEngine(new EngineHostOptions
        {
            Name = options.Name,
            NoGcRegionBytes = 16L << 20,
            WarmUpPause = options.WarmUpPause,
            MinWarmUpRounds = 3,
            SettledRounds = 1,
        });
        engine.Host.WarmUp(_ => engine.Exchange(200));
        Assert.True(engine.Host.EnterContinuous());
        engine.Exchange(500);
        var report = engine.Host.Shutdown();
        Assert.True(report.Continuous.NoGcRegionRequested);
        Assert.True(report.Continuous.NoGcRegionHeld);
    }

    [Fact]
    public void The_engine_hot_paths_allocate_nothing_with_latency_recording_on()
    {
        using var engine = new LoopbackEngine(Options("host-allocations"));
        var host = engine.Host;
        host.WarmUp(_ => engine.Exchange(500));

        // Sending (this thread), receiving and answering (the connection threads), summarising and counting.
        long sendBytes = RapidFix.Tests.Shared.Allocations.Measure(engine, static e => e.Exchange(1), 5_000, warmup: 500);
        long monitorBytes = RapidFix.Tests.Shared.Allocations.Measure(host, static h => h.Monitor.Flush(), 2_000, warmup: 100);
        long counterBytes = RapidFix.Tests.Shared.Allocations.Measure(host, static h => h.ReadCounters(out _), 10_000);
        Assert.Equal(0, sendBytes);
        Assert.Equal(0, monitorBytes);
        Assert.Equal(0, counterBytes);

        // The connection threads publish their own counters at every turn of their loops.
        // The recorders of this engine's two connection threads (a recorder serves one connection thread after
        // another, so the registry's order says nothing about which are these).
        var connections = host.Sessions.Select(s => ((RapidFix.Engine.Transport.FixSocketConnection)s.Transport!).Recorder).OfType<EngineThreadStats>().ToArray();
        Assert.Equal(2, connections.Length);
        Thread.Sleep(200);
        long[] allocated = new long[connections.Length];
        // Repeated while a window counted bytes during a collection or a compilation (see
        // Allocations.WindowOnOtherThreads); real allocation recurs.
        var window = RapidFix.Tests.Shared.Allocations.WindowOnOtherThreads(() =>
        {
            long[] before = connections.Select(t => t.AllocatedBytes).ToArray();
            engine.Exchange(20_000);
            Thread.Sleep(200);
            for (int i = 0; i < connections.Length; i++)
            {
                allocated[i] = connections[i].AllocatedBytes - before[i];
            }

            return allocated.Sum();
        });

        for (int i = 0; i < connections.Length; i++)
        {
            Assert.True(allocated[i] == 0, $"connection thread {connections[i].ManagedThreadId} allocated {allocated[i]} bytes ({window})");
        }
    }

    [Fact]
    public void Buffers_of_a_foreign_session_are_refused()
    {
        using var a = new LoopbackEngine(Options("host-a"));
        var foreign = a.Buyer.Session;
        using var b = new LoopbackEngine(Options("host-b"));
        Assert.Throws<ArgumentException>(() => b.Host.BuffersOf(foreign));
        Assert.Equal(8, a.Host.BuffersOf(foreign).Capacity);
    }
}
