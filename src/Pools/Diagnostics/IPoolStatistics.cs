namespace RapidFix.Pools.Diagnostics;

/// <summary>Counters every pool exposes. All reads are lock-free and allocation-free.</summary>
public interface IPoolStatistics
{
    /// <summary>The name given at creation, used in logs and reports.</summary>
    string Name { get; }

    /// <summary>Items created at startup; the pool never holds more.</summary>
    int Capacity { get; }

    /// <summary>Items currently rented (approximate while other threads rent and return).</summary>
    int InUse { get; }

    /// <summary>The largest <see cref="InUse"/> seen since creation.</summary>
    int HighWater { get; }

    /// <summary>Rent calls that found the pool empty: the back-pressure signal.</summary>
    long RentFailures { get; }

    /// <summary>Returns that were refused (pool already full: a double return or a foreign item).</summary>
    long ReturnFailures { get; }
}

/// <summary>A snapshot of one pool's counters.</summary>
public readonly record struct PoolSnapshot(
    string Name,
    int Capacity,
    int InUse,
    int HighWater,
    long RentFailures,
    long ReturnFailures);
