using RapidFix.Engine.Codec;
using RapidFix.Engine.Fields;

namespace RapidFix.TradeDriver;

/// <summary>What an answer of the service is.</summary>
internal enum AnswerKind : byte
{
    Other,

    /// <summary>The answer to a message the participant sent: AR, P, AU, or a BusinessMessageReject of a SET (it carries RefSeqNum).</summary>
    Ack,

    /// <summary>A CLS: Confirmation with ConfirmType 1.</summary>
    Cls,

    /// <summary>An exception notice about a message the participant sent earlier (BusinessMessageReject without RefSeqNum).</summary>
    Notice,
}

/// <summary>One answer, classified.</summary>
/// <param name="Kind">What it is.</param>
/// <param name="Rejected">For an ack: the message was refused.</param>
/// <param name="Trade">The trade its IDs name (T&lt;n&gt;-...), 0 when none.</param>
internal readonly record struct Answer(AnswerKind Kind, bool Rejected, int Trade);

/// <summary>Classifies the service's answers (docs/matching.md, "Acks", "CLS", "Exceptions").</summary>
internal static class Answers
{
    public static Answer Read(FixMessage m)
    {
        var type = m.MsgType;
        if (type.SequenceEqual("AR"u8))
        {
            return new Answer(AnswerKind.Ack, Is(m, 939, '1'), TradeOf(m, 571));
        }

        if (type.SequenceEqual("P"u8))
        {
            return new Answer(AnswerKind.Ack, Is(m, 87, '1'), TradeOf(m, 70));
        }

        if (type.SequenceEqual("AU"u8))
        {
            return new Answer(AnswerKind.Ack, Is(m, 940, '2'), TradeOf(m, 664));
        }

        if (type.SequenceEqual("AK"u8))
        {
            return Is(m, 773, '1') ? new Answer(AnswerKind.Cls, false, TradeOf(m, 70)) : default;
        }

        if (type.SequenceEqual("j"u8))
        {
            return m.TryGetInt(45, out _)
                ? new Answer(AnswerKind.Ack, true, TradeOf(m, 379))
                : new Answer(AnswerKind.Notice, false, TradeOf(m, 379));
        }

        return default;
    }

    private static bool Is(FixMessage m, int tag, char value) => m.TryGetText(FieldScope.Message, tag, out var v) && v.Length == 1 && v[0] == value;

    // "T<n>-..." names trade n (the generator's IDs; a SET's SettlInstMsgID is its ID + "-M").
    private static int TradeOf(FixMessage m, int tag)
    {
        if (!m.TryGetText(FieldScope.Message, tag, out var id) || id.Length < 2 || id[0] != 'T')
        {
            return 0;
        }

        int n = 0;
        for (int i = 1; i < id.Length && id[i] != '-'; i++)
        {
            if (id[i] < '0' || id[i] > '9')
            {
                return 0;
            }

            n = (n * 10) + (id[i] - '0');
        }

        return n;
    }
}
