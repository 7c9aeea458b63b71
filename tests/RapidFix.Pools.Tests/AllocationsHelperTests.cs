using System.Runtime.CompilerServices;
using RapidFix.Tests.Shared;

namespace RapidFix.Pools.Tests;

/// <summary>The allocation measurement every hot-path test relies on must see real allocation, with or without collections.</summary>
[Collection(nameof(GcSensitive))]
public sealed class AllocationsHelperTests
{
    [Fact]
    public void A_window_that_allocates_is_reported_at_once()
    {
        AllocateObjects(10); // compiled before the window, so nothing makes the window inconclusive
        var result = Allocations.Window(1_000, AllocateObjects);

        Assert.True(result.Bytes >= 1_000 * IntPtr.Size * 2, result.ToString());
        Assert.Equal(1, result.Window);
    }

    [Fact]
    public void A_window_that_allocated_only_while_compiling_its_first_calls_is_repeated_and_passes()
    {
        var result = Allocations.Window(0, static _ => FirstUse.MakeOnce());

        Assert.Equal(0, result.Bytes);
        Assert.Equal(2, result.Window);
        Assert.True(FirstUse.Made, "the first window did not run the code");
    }

    [Fact]
    public void A_window_that_compiles_and_allocates_every_time_fails_in_the_repetition_without_compilation()
    {
        var result = Allocations.Window(1_000, static n => GC.KeepAlive(new byte[n]));

        Assert.True(result.Bytes >= 1_000, result.ToString());
        Assert.Equal(0, result.MethodsJitted);
        Assert.Equal(2, result.Window);
    }

    [Fact]
    public void A_window_that_allocates_and_collects_every_time_still_fails_after_the_last_repetition()
    {
        var result = Allocations.Window(1_000, n =>
        {
            GC.KeepAlive(new byte[n]);
            GC.Collect(0);
        });

        Assert.True(result.Bytes >= 1_000, result.ToString());
        Assert.True(result.Collections >= 1, result.ToString());
        Assert.Equal(Allocations.MaxWindows, result.Window);
    }

    [Fact]
    public void A_window_in_which_another_thread_s_collection_paused_the_runtime_records_the_pause()
    {
        var result = Allocations.Window(0, static _ =>
        {
            var collector = new Thread(static () => GC.Collect(2, GCCollectionMode.Forced, blocking: true));
            collector.Start();
            collector.Join();
        });

        Assert.True(result.GcPaused, result.ToString());
    }

    [Fact]
    public void Bytes_counted_in_a_window_with_a_GC_pause_but_no_collection_counted_yet_are_not_final()
    {
        // A background collection's first pause can fall in the window and its count move only after it.
        Assert.False(new WindowResult(8_136, 0, 0, 1, GcPaused: true).Conclusive);
        Assert.True(new WindowResult(8_136, 0, 0, 1, GcPaused: false).Conclusive);
        Assert.True(new WindowResult(0, 0, 0, 1, GcPaused: true).Conclusive);
    }

    private static void AllocateObjects(int count)
    {
        for (int i = 0; i < count; i++)
        {
            GC.KeepAlive(new object());
        }
    }

    /// <summary>Allocates on its first call only, like a lazily built table.</summary>
    private static class FirstUse
    {
        private static byte[]? s_table;

        public static bool Made => s_table is not null;

        [MethodImpl(MethodImplOptions.NoInlining)]
        public static void MakeOnce() => s_table ??= new byte[1_000];
    }

    [Fact]
    public void Another_thread_that_allocates_in_every_window_fails_it()
    {
        var result = Allocations.WindowOnOtherThreads(static () =>
        {
            long bytes = 0;
            var worker = new Thread(() =>
            {
                long before = GC.GetAllocatedBytesForCurrentThread();
                GC.KeepAlive(new byte[1_000]);
                bytes = GC.GetAllocatedBytesForCurrentThread() - before;
            });
            worker.Start();
            worker.Join();
            return bytes;
        });

        Assert.True(result.Bytes >= 1_000, result.ToString());
    }

    [Fact]
    public void Warmed_up_code_that_allocates_nothing_measures_zero()
    {
        var numbers = new long[64];
        long bytes = Allocations.Measure(numbers, static a =>
        {
            for (int i = 0; i < a.Length; i++)
            {
                a[i] += i;
            }
        }, 10_000);

        Assert.Equal(0, bytes);
    }
}
