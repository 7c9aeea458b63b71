namespace RapidFix.Pools.Buffers;

/// <summary>
/// Thrown only by APIs that cannot report exhaustion any other way (<see cref="SlabMemoryPool.Rent"/>). The failure
/// has already been counted (<see cref="Diagnostics.IPoolStatistics.RentFailures"/>, or <see cref="SlabMemoryPool.OversizeRequests"/>).
/// </summary>
public sealed class PoolExhaustedException : InvalidOperationException
{
    public PoolExhaustedException(string pool, string detail)
        : base($"Pool '{pool}' exhausted: {detail}.")
    {
        Pool = pool;
    }

    public string Pool { get; }
}
