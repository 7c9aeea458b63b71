namespace RapidFix.Tests.Shared;

/// <summary>
/// Measures what a piece of code allocates on the calling thread. The hot-path rule is exact: after warm-up the
/// delta of <see cref="GC.GetAllocatedBytesForCurrentThread"/> over many iterations must be 0.
/// </summary>
public static class Allocations
{
    /// <summary>Runs <paramref name="action"/> <paramref name="warmup"/> times, then measures <paramref name="iterations"/> runs.</summary>
    /// <returns>Bytes allocated by the measured runs.</returns>
    public static long Measure<TState>(TState state, Action<TState> action, int iterations, int warmup = 2_000)
    {
        for (int i = 0; i < warmup; i++)
        {
            action(state);
        }

        long before = GC.GetAllocatedBytesForCurrentThread();
        for (int i = 0; i < iterations; i++)
        {
            action(state);
        }

        return GC.GetAllocatedBytesForCurrentThread() - before;
    }
}
