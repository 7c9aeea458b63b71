using RapidFix.Tests.Shared;

namespace RapidFix.Fuzzing;

/// <summary>The CI slices' measurement: warm up, then one window over fixed inputs that must allocate nothing.</summary>
public static class FuzzWindow
{
    /// <summary>
    /// Runs <paramref name="warmup"/> then <paramref name="inputs"/> twice (tiered compilation settles on exactly the
    /// paths measured), then measures one run of <paramref name="inputs"/>; the target's counters cover that run only.
    /// </summary>
    public static (WindowResult Window, TimeSpan Slowest) Measure<T>(T target, byte[][] warmup, byte[][] inputs, Action<T> resetCounters)
        where T : IFuzzTarget
    {
        FuzzSlice.RunAll(target, warmup);
        FuzzSlice.RunAll(target, inputs);
        Thread.Sleep(200);
        FuzzSlice.RunAll(target, inputs);
        resetCounters(target);
        long slowest = 0;
        var window = Allocations.Window(target, t => slowest = FuzzSlice.RunAll(t, inputs));
        return (window, TimeSpan.FromTicks(slowest));
    }
}
