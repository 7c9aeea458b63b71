using RapidFix.Pools.Diagnostics;

namespace RapidFix.Pools.Tests.Diagnostics;

[Collection(nameof(GcSensitive))]
public sealed class EngineThreadsTests
{
    [Fact]
    public void A_thread_registers_once_and_publishes_what_it_allocated()
    {
        EngineThreadStats? stats = null;
        long before = 0, after = 0;
        var thread = new Thread(() =>
        {
            stats = EngineThreads.Current;
            Assert.Same(stats, EngineThreads.Register());
            stats.RefreshAllocatedBytes();
            before = stats.AllocatedBytes;
            GC.KeepAlive(new byte[4096]);
            stats.RefreshAllocatedBytes();
            after = stats.AllocatedBytes;
        }) { Name = "engine-threads-test" };
        thread.Start();
        thread.Join();

        Assert.NotNull(stats);
        Assert.Equal("engine-threads-test", stats!.Name);
        Assert.Contains(stats, EngineThreads.All.ToArray());
        Assert.InRange(after - before, 4096, 4096 + 256);
    }

    [Fact]
    public void Latency_hooks_record_only_while_recording_is_on()
    {
        bool previous = EngineLatency.AlwaysRecord;
        try
        {
            var histogram = EngineThreads.Current.Histogram(LatencyChannel.Send);
            EngineLatency.AlwaysRecord = false;
            long count = histogram.TotalCount;
            long start = EngineLatency.Start();
            Assert.Equal(0, start);
            EngineLatency.Stop(LatencyChannel.Send, start);
            Assert.Equal(count, histogram.TotalCount);

            EngineLatency.AlwaysRecord = true;
            start = EngineLatency.Start();
            Thread.Sleep(2);
            EngineLatency.Stop(LatencyChannel.Send, start);
            Assert.Equal(count + 1, histogram.TotalCount);
            Assert.True(histogram.Max >= 1_000_000, $"recorded {histogram.Max} ns for a 2 ms sleep");
        }
        finally
        {
            EngineLatency.AlwaysRecord = previous;
        }
    }

    [Fact]
    public void Recording_and_refreshing_allocate_nothing()
    {
        bool previous = EngineLatency.AlwaysRecord;
        EngineLatency.AlwaysRecord = true;
        try
        {
            var stats = EngineThreads.Current;
            long bytes = RapidFix.Tests.Shared.Allocations.Measure(stats, static s =>
            {
                long start = EngineLatency.Start();
                EngineLatency.Stop(LatencyChannel.Receive, start);
                s.RefreshAllocatedBytes();
                _ = EngineThreads.TotalAllocatedBytes;
            }, 100_000);
            Assert.Equal(0, bytes);
        }
        finally
        {
            EngineLatency.AlwaysRecord = previous;
        }
    }
}
