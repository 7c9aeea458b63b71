using RapidFix.Engine.Codec;
using RapidFix.Engine.Configuration;
using RapidFix.Matching;

namespace RapidFix.MatchingService;

/// <summary>The partitions this instance owns when matching services scale out (docs/scale-out.md).</summary>
public sealed partial record ServiceOptions
{
    /// <summary>
    /// How many partitions the trades are split into (<see cref="TradePartition.Of(ReadOnlySpan{byte}, ReadOnlySpan{byte}, int)"/>);
    /// 1, the default: one process owns every trade.
    /// </summary>
    public int Partitions { get; init; } = 1;

    /// <summary>The partitions this instance owns (null: every one). A message of another partition is refused.</summary>
    public IReadOnlyList<int>? OwnedPartitions { get; init; }
}

/// <summary>
/// Which partitions this service owns, checked on the connection thread before a message is journalled: a message
/// of a partition another instance owns was routed wrongly (a gateway whose partition map disagrees with the
/// services'), and matching it here would split a trade across two matchers. It is refused with a
/// BusinessMessageReject (reason 6, not authorised: this instance is not the partition's owner), counted, and never
/// journalled. A message without the two parties (partition -1) is let through: the matcher rejects it with its reason.
/// </summary>
internal sealed class PartitionOwnership
{
    private readonly bool[] _owned;
    private long _refused;

    private PartitionOwnership(bool[] owned) => _owned = owned;

    /// <summary>BusinessRejectReason of a message of a partition this instance does not own (6: not authorized).</summary>
    public const int RefusedReason = 6;

    /// <summary>Partitions in all.</summary>
    public int Partitions => _owned.Length;

    /// <summary>Messages refused because another instance owns their partition.</summary>
    public long Refused => Interlocked.Read(ref _refused);

    /// <summary>The ownership the options describe (startup). Throws <see cref="ConfigurationException"/> for one the service cannot honour.</summary>
    public static PartitionOwnership From(ServiceOptions options)
    {
        if (options.Partitions < 1)
        {
            throw new ConfigurationException($"Partitions={options.Partitions}: at least one partition is needed");
        }

        var owned = new bool[options.Partitions];
        if (options.OwnedPartitions is null)
        {
            Array.Fill(owned, true);
            return new PartitionOwnership(owned);
        }

        if (options.OwnedPartitions.Count == 0)
        {
            throw new ConfigurationException("OwnedPartitions is empty: a matching service must own at least one partition");
        }

        foreach (int p in options.OwnedPartitions)
        {
            if (p < 0 || p >= options.Partitions)
            {
                throw new ConfigurationException($"owned partition {p} is outside 0..{options.Partitions - 1}");
            }

            owned[p] = true;
        }

        return new PartitionOwnership(owned);
    }

    /// <summary>True when this instance matches the message (counted when not).</summary>
    public bool Owns(FixMessage message)
    {
        if (_owned.Length == 1)
        {
            return true;
        }

        int partition = TradePartition.Of(message, _owned.Length);
        if (partition < 0 || _owned[partition])
        {
            return true;
        }

        Interlocked.Increment(ref _refused);
        return false;
    }
}

/// <summary>The partition ownership of the running service.</summary>
public sealed partial class MatchingServer
{
    /// <summary>Messages refused because another instance owns their partition (docs/scale-out.md).</summary>
    public long RefusedForPartition => _ownership?.Refused ?? 0;

    private PartitionOwnership? _ownership;
}
