using RapidFix.Tests.Shared;

namespace RapidFix.Pools.Tests;

/// <summary>The allocation measurement every hot-path test relies on must see real allocation, with or without collections.</summary>
[Collection(nameof(GcSensitive))]
public sealed class AllocationsHelperTests
{
    [Fact]
    public void A_window_that_allocates_is_reported_at_once()
    {
        var result = Allocations.Window(1_000, n =>
        {
            for (int i = 0; i < n; i++)
            {
                GC.KeepAlive(new object());
            }
        });

        Assert.True(result.Bytes >= 1_000 * IntPtr.Size * 2, result.ToString());
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
