using System.Runtime.CompilerServices;

namespace RapidFix.Tests.Shared;

/// <summary>
/// Measures what a piece of code allocates on the calling thread. The hot-path rule is exact: after warm-up the
/// delta of <see cref="GC.GetAllocatedBytesForCurrentThread"/> over many iterations must be 0.
/// </summary>
/// <remarks>
/// Warm-up runs the code, then pauses so that tiered compilation finishes promoting it (the runtime waits
/// 100 ms of quiet before it compiles the tier-1 code), twice. The loop itself is compiled fully optimized at once:
/// on-stack replacement of a measuring loop allocates a few bytes of its own the first time, which would be
/// charged to the code under test.
/// </remarks>
public static class Allocations
{
    /// <summary>Warms up <paramref name="action"/>, then returns the bytes allocated by <paramref name="iterations"/> runs.</summary>
    public static long Measure<TState>(TState state, Action<TState> action, int iterations, int warmup = 2_000)
    {
        for (int round = 0; round < 2; round++)
        {
            Run(state, action, warmup);
            Thread.Sleep(200);
        }

        long before = GC.GetAllocatedBytesForCurrentThread();
        Run(state, action, iterations);
        return GC.GetAllocatedBytesForCurrentThread() - before;
    }

    [MethodImpl(MethodImplOptions.NoInlining | MethodImplOptions.AggressiveOptimization)]
    private static void Run<TState>(TState state, Action<TState> action, int iterations)
    {
        for (int i = 0; i < iterations; i++)
        {
            action(state);
        }
    }
}
