using System.Runtime.CompilerServices;
using System.Runtime.InteropServices;
using RapidFix.Engine.Codec;
using RapidFix.Engine.Fields;
using RapidFix.Matching;

namespace RapidFix.MatchingService;

/// <summary>
/// An input as the connection thread read it, for the matcher thread: the matcher's <see cref="MatchInput"/>
/// (<see cref="MessageReader.TryRead"/>, a pure function of the message and its sender) and the fields its answers
/// echo (<see cref="EchoFields"/>). It travels in the <see cref="InputRing"/> after the message's bytes, so the matcher
/// thread, the service's one serial stage, neither parses the message again nor reads it: it matches. An input the
/// reader refuses travels without one and the matcher thread parses it and answers its rejection, as before.
/// Unmanaged: copied into and read in place from the ring's bytes.
/// </summary>
internal struct ReadInput
{
    /// <summary>What the matcher takes.</summary>
    public MatchInput Input;

    /// <summary>Where the echoed fields are in the message.</summary>
    public EchoFields Echo;

    /// <summary>Bytes one takes in a ring entry.</summary>
    public static int Size => Unsafe.SizeOf<ReadInput>();

    /// <summary>
    /// Reads <paramref name="message"/> of <paramref name="sender"/> into <paramref name="read"/>; false when the reader
    /// refuses it (the matcher then reads it itself, to answer the refusal).
    /// </summary>
    public static bool TryRead(FixMessage message, ReadOnlySpan<byte> sender, ref ReadInput read)
    {
        if (!MessageReader.TryRead(message, sender, out read.Input, out _))
        {
            return false;
        }

        read.Echo = EchoFields.Of(message);
        return true;
    }
}

/// <summary>
/// The fields of an input that its answers echo (<see cref="AnswerWriter"/>): SecurityID (48) in a NOE's ack, a valid
/// TradeDate (75) in an NPR's, MsgSeqNum (34) and MsgType (35) in a BusinessMessageReject. Texts are offsets into the
/// message's bytes (the ring's copy or the parsed view), so an echo is the sender's bytes exactly, of any length.
/// </summary>
internal struct EchoFields
{
    /// <summary>SecurityID's offset in the message, or -1 when it has none.</summary>
    public int IsinOffset;

    public int IsinLength;

    /// <summary>MsgType's offset in the message (length 0: none).</summary>
    public int TypeOffset;

    public int TypeLength;

    /// <summary>TradeDate (75) when present and a date, else 0 with <see cref="HasTradeDate"/> false.</summary>
    public int TradeDate;

    public int MsgSeqNum;

    public bool HasTradeDate;

    public bool HasMsgSeqNum;

    /// <summary>The echoed fields of a parsed message.</summary>
    public static EchoFields Of(FixMessage message)
    {
        var bytes = message.Bytes;
        var echo = default(EchoFields);
        echo.IsinOffset = -1;
        if (message.TryGetText(FieldScope.Message, 48, out var isin))
        {
            echo.IsinOffset = OffsetIn(bytes, isin);
            echo.IsinLength = isin.Length;
        }

        if (message.TryGetInt(75, out int tradeDate) && Codes.IsDate(tradeDate))
        {
            echo.HasTradeDate = true;
            echo.TradeDate = tradeDate;
        }

        echo.HasMsgSeqNum = message.TryGetInt(Tags.MsgSeqNum, out echo.MsgSeqNum);
        var type = message.MsgType;
        if (type.Length > 0)
        {
            echo.TypeOffset = OffsetIn(bytes, type);
            echo.TypeLength = type.Length;
        }

        return echo;
    }

    // A value's offset in its message (values are views into the message's bytes).
    private static int OffsetIn(ReadOnlySpan<byte> message, ReadOnlySpan<byte> value) =>
        (int)Unsafe.ByteOffset(ref MemoryMarshal.GetReference(message), ref MemoryMarshal.GetReference(value));
}
