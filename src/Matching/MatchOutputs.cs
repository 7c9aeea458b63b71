using RapidFix.Matching.StaticData;

namespace RapidFix.Matching;

/// <summary>
/// Where the matcher's answers go. The service implements it (as a struct for direct calls, or a class) and turns
/// each call into FIX messages: acks (AR, P, AU, BusinessMessageReject), CLS confirmations, exception notices. Every
/// argument is a view valid during the call only; nothing here allocates.
/// </summary>
public interface IMatchSink
{
    /// <summary>The answer to one received message (accepted, duplicate or rejected).</summary>
    void OnAck(in MatchAck ack);

    /// <summary>A trade matched: send the CLS to each of its participants (one AK per account, docs/matching.md).</summary>
    void OnCleared(in ClearedTrade trade);

    /// <summary>A new exception record (also kept in <see cref="Matcher.Exceptions"/>).</summary>
    void OnException(in MatchException exception);
}

/// <summary>The answer to one received message.</summary>
public struct MatchAck
{
    /// <summary>Which message kind it answers (its ack type follows: AR, P, AU, or BusinessMessageReject for SET).</summary>
    public MessageKind Kind;

    /// <summary>The received message's transaction type.</summary>
    public TransType Trans;

    /// <summary>Accepted, duplicate or rejected.</summary>
    public AckStatus Status;

    /// <summary>For a rejection: why (also in the exception record).</summary>
    public ExceptionReason Reason;

    /// <summary>For a mismatch: the criterion.</summary>
    public Criterion Criterion;

    /// <summary>For a rejection: the field concerned (0 when none).</summary>
    public int Tag;

    /// <summary>For a rejection: the exception record's ID (0 otherwise).</summary>
    public long ExceptionId;

    /// <summary>The ID to echo: 571, 70, 664, or 777 for SET.</summary>
    public Bytes32 MessageId;

    /// <summary>The participant that sent the message (the session to answer on).</summary>
    public Bytes16 Sender;

    /// <summary>The message's ISIN (48) as received, empty when it carried none (SET): the AR echoes it in 48 with 22=4.</summary>
    public Bytes16 Isin;

    /// <summary>The standard reject reason for this kind's ack (751, 88, 774 or 380): <see cref="RejectCodes"/>.</summary>
    public readonly int RejectCode => RejectCodes.For(Kind, Reason, Criterion);
}

/// <summary>
/// A matched trade, as a view over the matcher's tables during <see cref="IMatchSink.OnCleared"/>: the trade-level
/// values of its NOE and, per account, those of its allocation, net proceeds and settlement instruction.
/// </summary>
public readonly struct ClearedTrade
{
    private readonly Matcher _matcher;
    private readonly int _trade;

    internal ClearedTrade(Matcher matcher, int trade)
    {
        _matcher = matcher;
        _trade = trade;
    }

    /// <summary>The utility's number for the trade (deterministic: order of creation); CLS ConfirmIDs derive from it.</summary>
    public long TradeNumber => _matcher.TradeAt(_trade).Number;

    /// <summary>Investment manager's participant ID.</summary>
    public ReadOnlySpan<byte> InvestmentManager => _matcher.Reference.GetParticipant(_matcher.TradeAt(_trade).Im).Id;

    /// <summary>Executing broker's participant ID.</summary>
    public ReadOnlySpan<byte> ExecutingBroker => _matcher.Reference.GetParticipant(_matcher.TradeAt(_trade).Eb).Id;

    /// <summary>The NOE's values (security, side, dates, currency, block quantity, price).</summary>
    public ref readonly MessageRecord Noe => ref _matcher.MessageAt(_matcher.TradeAt(_trade).Noe);

    /// <summary>Number of accounts (allocations).</summary>
    public int AccountCount => _matcher.TradeAt(_trade).SlotCount;

    /// <summary>The allocation of account <paramref name="i"/>.</summary>
    public ref readonly MessageRecord Allocation(int i) => ref _matcher.MessageAt(_matcher.TradeAt(_trade).Slots[i].Alc);

    /// <summary>The net proceeds of account <paramref name="i"/> (amounts of the CLS).</summary>
    public ref readonly MessageRecord NetProceeds(int i) => ref _matcher.MessageAt(_matcher.TradeAt(_trade).Slots[i].Npr);

    /// <summary>The settlement instruction of account <paramref name="i"/>.</summary>
    public ref readonly MessageRecord Settlement(int i) => ref _matcher.MessageAt(_matcher.TradeAt(_trade).Slots[i].Set);

    /// <summary>Account <paramref name="i"/>'s ID.</summary>
    public ReadOnlySpan<byte> AccountId(int i) => _matcher.Reference.AccountId(_matcher.TradeAt(_trade).Slots[i].Account);

    /// <summary>The ISIN.</summary>
    public ReadOnlySpan<byte> Isin => _matcher.MessageAt(_matcher.TradeAt(_trade).Noe).Isin.Span;
}

/// <summary>
/// One exception record: which message (or open trade), why, and for a mismatch the criterion, the field, both
/// values as text and the tolerance applied. Kept in a pre-sized ring (<see cref="ExceptionQueue"/>) with the
/// message's content, so an operator can correct and re-submit it.
/// </summary>
public struct MatchException
{
    /// <summary>Increasing from 1 for a matcher.</summary>
    public long Id;

    /// <summary>Why the message or trade went to the queue.</summary>
    public ExceptionReason Reason;

    /// <summary>For <see cref="ExceptionReason.Mismatch"/> and <see cref="ExceptionReason.Expired"/>: the criterion.</summary>
    public Criterion Criterion;

    /// <summary>The field concerned (0 when none).</summary>
    public int Tag;

    /// <summary>The message's value (text).</summary>
    public Bytes32 Value;

    /// <summary>The value it was compared with (the other message's, or the recomputed one); empty when none.</summary>
    public Bytes32 Expected;

    /// <summary>The tolerance applied (exact for static-data and lifecycle reasons).</summary>
    public Tolerance Tolerance;

    /// <summary>The message's kind, transaction type and ID to echo.</summary>
    public MessageKind Kind;

    /// <summary>The message's transaction type, to echo.</summary>
    public TransType Trans;

    /// <summary>The message's ID, to echo.</summary>
    public Bytes32 MessageId;

    /// <summary>Its sender (told through the ack or an exception notice).</summary>
    public Bytes16 Sender;

    /// <summary>The other participant told (the sender of the message compared with), empty when none.</summary>
    public Bytes16 Counterparty;

    /// <summary>The kind of the message compared with (its notice is a BusinessMessageReject with that MsgType).</summary>
    public MessageKind CounterpartyKind;

    /// <summary>The ID of the message compared with (379 of the counterparty's notice).</summary>
    public Bytes32 CounterpartyMessageId;

    /// <summary>The trade's number when the exception concerns an open or cleared trade, else 0.</summary>
    public long TradeNumber;

    /// <summary>Business date (yyyymmdd) when recorded.</summary>
    public int BusinessDate;

    /// <summary>True once re-submitted.</summary>
    public bool Resubmitted;

    /// <summary>The message's content as read, for inspection and re-submission.</summary>
    public MatchInput Input;
}
