using RapidFix.Engine.Fields;

namespace RapidFix.Matching;

/// <summary>
/// Which of N partitions owns a trade. The partition key is the pair every one of a trade's seven messages carries:
/// investment manager (PartyRole 13) and executing broker (PartyRole 1). The hash is FNV-1a 64 over the manager's
/// ID bytes, one 0x1F byte, the broker's ID bytes; the partition is that hash modulo N. It depends on nothing but
/// those bytes (no process-randomised string hash), so routers, matchers and the persistence layer agree across
/// processes, runs and machines. Changing N moves trades: only change it with the tables empty.
/// </summary>
public static class TradePartition
{
    private const ulong FnvOffset = 14695981039346656037UL;
    private const ulong FnvPrime = 1099511628211UL;

    /// <summary>The FNV-1a 64 hash of the partition key.</summary>
    public static ulong Hash(ReadOnlySpan<byte> investmentManager, ReadOnlySpan<byte> executingBroker)
    {
        ulong h = FnvOffset;
        foreach (byte b in investmentManager)
        {
            h = (h ^ b) * FnvPrime;
        }

        h = (h ^ 0x1F) * FnvPrime;
        foreach (byte b in executingBroker)
        {
            h = (h ^ b) * FnvPrime;
        }

        return h;
    }

    /// <summary>The partition (0..<paramref name="partitions"/>-1) of a trade key.</summary>
    public static int Of(ReadOnlySpan<byte> investmentManager, ReadOnlySpan<byte> executingBroker, int partitions)
    {
        ArgumentOutOfRangeException.ThrowIfLessThan(partitions, 1);
        return (int)(Hash(investmentManager, executingBroker) % (ulong)partitions);
    }

    /// <summary>
    /// The partition of a received trade message (AE, J, AK, T), reading the two parties where the contract puts
    /// them; -1 when the message is not one of the four or lacks either party (the matcher of any partition will
    /// reject it with the reason).
    /// </summary>
    public static int Of<T>(T message, int partitions)
        where T : IFieldAccessor
    {
        var kind = MessageReader.KindOf(message.MsgType);
        FieldScope scope = FieldScope.Message;
        if (kind == MessageKind.Noe && !message.TryGetGroupEntry(FieldScope.Message, 552, 0, out scope))
        {
            return -1;
        }

        if (kind == MessageKind.Set && !message.TryGetGroupEntry(FieldScope.Message, 778, 0, out scope))
        {
            return -1;
        }

        if (kind == MessageKind.None)
        {
            return -1;
        }

        ReadOnlySpan<byte> im = default, eb = default;
        int count = message.GetGroupCount(scope, 453);
        for (int i = 0; i < count; i++)
        {
            if (message.TryGetGroupEntry(scope, 453, i, out var party) && message.TryGetInt(party, 452, out int role) &&
                message.TryGetText(party, 448, out var id))
            {
                if (role == MessageReader.RoleInvestmentManager)
                {
                    im = id;
                }
                else if (role == MessageReader.RoleExecutingBroker)
                {
                    eb = id;
                }
            }
        }

        return im.IsEmpty || eb.IsEmpty ? -1 : Of(im, eb, partitions);
    }
}
