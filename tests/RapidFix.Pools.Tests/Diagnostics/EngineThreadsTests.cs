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

    [Fact]
    public void A_released_recorder_serves_the_next_thread_and_keeps_what_the_last_one_measured()
    {
        EngineThreadStats? first = null, second = null;
        long firstBytes = 0;
        RunThread("first-connection", () =>
        {
            first = EngineThreads.Current;
            first.Histogram(LatencyChannel.Receive).Record(1_000);
            GC.KeepAlive(new byte[4096]);
            first.RefreshAllocatedBytes();
            firstBytes = first.AllocatedBytes;
            EngineThreads.Release();
        });
        Assert.False(first!.InUse);
        int registered = EngineThreads.All.Length;

        RunThread("second-connection", () =>
        {
            second = EngineThreads.Current;
            second.Histogram(LatencyChannel.Receive).Record(2_000);
            EngineThreads.Release();
        });

        // Threads that end one after another share one recorder: the registry does not grow with them...
        Assert.Same(first, second);
        Assert.Equal(registered, EngineThreads.All.Length);
        Assert.Equal("second-connection", second!.Name);

        // ...and nothing either measured is lost: both timings, and allocation counts that never go back.
        Assert.True(second.Histogram(LatencyChannel.Receive).TotalCount >= 2);
        Assert.True(second.AllocatedBytes >= firstBytes, $"{second.AllocatedBytes} < {firstBytes}");
    }

    [Fact]
    public void Thousands_of_short_lived_threads_leave_the_registry_as_large_as_the_most_alive_at_once()
    {
        int before = EngineThreads.All.Length;
        for (int i = 0; i < 2_000; i++)
        {
            RunThread("short-lived", () =>
            {
                EngineThreads.Current.Histogram(LatencyChannel.Send).Record(i);
                EngineThreads.Release();
            });
        }

        // Other tests' threads may register meanwhile; 2,000 threads one after another need one recorder.
        Assert.InRange(EngineThreads.All.Length - before, 0, 16);
    }

    private static void RunThread(string name, Action body)
    {
        var thread = new Thread(() => body()) { Name = name };
        thread.Start();
        thread.Join();
    }
}
