namespace RapidFix.Pools.Diagnostics;

/// <summary>
/// The pools of one engine. Pools register during startup; reading their counters later is allocation-free, so
/// a monitoring thread may poll it during the continuous phase.
/// </summary>
public sealed class PoolRegistry
{
    private readonly object _gate = new();
    private IPoolStatistics[] _pools = [];

    /// <summary>Number of registered pools.</summary>
    public int Count => Volatile.Read(ref _pools).Length;

    /// <summary>The registered pools (the array is replaced, never mutated, so it is safe to enumerate).</summary>
    public ReadOnlySpan<IPoolStatistics> All => Volatile.Read(ref _pools);

    internal void Register(IPoolStatistics pool)
    {
        lock (_gate)
        {
            var next = new IPoolStatistics[_pools.Length + 1];
            _pools.CopyTo(next, 0);
            next[^1] = pool;
            Volatile.Write(ref _pools, next);
        }
    }

    /// <summary>Copies every pool's counters into <paramref name="destination"/>; returns how many were written.</summary>
    public int Snapshot(Span<PoolSnapshot> destination)
    {
        var pools = Volatile.Read(ref _pools);
        int n = Math.Min(pools.Length, destination.Length);
        for (int i = 0; i < n; i++)
        {
            var p = pools[i];
            destination[i] = new PoolSnapshot(p.Name, p.Capacity, p.InUse, p.HighWater, p.RentFailures, p.ReturnFailures);
        }

        return n;
    }

    /// <summary>Sum of <see cref="IPoolStatistics.RentFailures"/> over all pools.</summary>
    public long TotalRentFailures
    {
        get
        {
            long total = 0;
            foreach (var p in Volatile.Read(ref _pools))
            {
                total += p.RentFailures;
            }

            return total;
        }
    }
}
