using System.Runtime;
using RapidFix.Tests.Shared;

namespace RapidFix.Engine.Tests.Store;

/// <summary>
/// <see cref="Allocations.Measure"/> in the conditions of the continuous phase: after a full warm-up pass (JIT and
/// tiering settled, lazily created runtime state in place) and inside a no-GC region, as the engine runs. A
/// collection triggered by another thread of the test host can otherwise leave a spurious delta in the per-thread
/// counter; with no collection possible, every byte counted was allocated by the measured code.
/// </summary>
internal static class SteadyStateAllocations
{
    private const long NoGcBudget = 200L << 20;

    public static long Measure<TState>(TState state, Action<TState> action, int iterations, int warmup = 2_000)
    {
        _ = Allocations.Measure(state, action, iterations: Math.Max(1, iterations / 4), warmup);
        GC.Collect();
        GC.WaitForPendingFinalizers();
        bool region = GC.TryStartNoGCRegion(NoGcBudget);
        try
        {
            return Allocations.Measure(state, action, iterations, warmup: 0);
        }
        finally
        {
            if (region && GCSettings.LatencyMode == GCLatencyMode.NoGCRegion)
            {
                GC.EndNoGCRegion();
            }
        }
    }
}
