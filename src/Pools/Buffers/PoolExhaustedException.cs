namespace RapidFix.Pools.Buffers;

/// <summary>
/// Thrown only by APIs that cannot report exhaustion any other way (<see cref="SlabMemoryPool.Rent"/>). The failure
/// has already been counted (<see cref="Diagnostics.IPoolStatistics.RentFailures"/>, or <see cref="SlabMemoryPool.OversizeRequests"/>).
/// </summary>
public sealed class PoolExhaustedException : InvalidOperationException
{
    /// <summary>Pool <paramref name="pool"/> had nothing to give; <paramref name="detail"/> says what was asked.</summary>
    public PoolExhaustedException(string pool, string detail)
        : base($"Pool '{pool}' exhausted: {detail}.")
    {
        Pool = pool;
    }

    /// <summary>The name of the exhausted pool.</summary>
    public string Pool { get; }
}
