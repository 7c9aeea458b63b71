using System.Runtime.CompilerServices;

namespace RapidFix.Matching;

/// <summary>
/// A stored message: its content resolved against static data (participants, security, currencies, account and
/// place as indices; amounts scaled by 10^6; dates yyyymmdd) and its links in the matcher's tables.
/// </summary>
public struct MessageRecord
{
    /// <summary>The message's ID, as sent.</summary>
    public Bytes32 Id;
    /// <summary>The security's ISIN.</summary>
    public Bytes16 Isin;
    /// <summary>Which of the four messages it is.</summary>
    public MessageKind Kind;
    /// <summary>New, cancel or replace.</summary>
    public TransType Trans;
    internal RecordState State;
    /// <summary>Side (54), as its FIX character.</summary>
    public byte Side;
    /// <summary>Which optional values the message carried.</summary>
    public InputFields Present;
    /// <summary>The sending participant (index into static data).</summary>
    public int Sender;
    /// <summary>The investment manager (index into static data).</summary>
    public int Im;
    /// <summary>The executing broker (index into static data).</summary>
    public int Eb;
    /// <summary>The security (index into static data).</summary>
    public int Security;
    /// <summary>The trade currency (index into static data).</summary>
    public int Currency;
    /// <summary>The settlement currency (index into static data).</summary>
    public int SettlCurrency;
    /// <summary>The account (index into static data).</summary>
    public int Account;
    /// <summary>The place of settlement (index into static data).</summary>
    public int Place;
    /// <summary>Trade date, yyyymmdd.</summary>
    public int TradeDate;
    /// <summary>Settlement date, yyyymmdd.</summary>
    public int SettlDate;
    /// <summary>Quantity × 10^6.</summary>
    public long Quantity;
    /// <summary>Price × 10^6.</summary>
    public long Price;
    /// <summary>Gross amount × 10^6.</summary>
    public long Gross;

    /// <summary>Absolute commission (a percentage was converted against the gross amount).</summary>
    public long Commission;
    /// <summary>Fees × 10^6.</summary>
    public long Fees;
    /// <summary>Tax × 10^6.</summary>
    public long Tax;
    /// <summary>Accrued interest × 10^6.</summary>
    public long Accrued;
    /// <summary>Net amount × 10^6.</summary>
    public long Net;
    /// <summary>Settlement amount × 10^6.</summary>
    public long SettlAmount;
    /// <summary>FX rate × 10^6.</summary>
    public long FxRate;

    internal int Trade;
    internal uint IdHash;

    /// <summary>Hash of the trade key (manager, broker, side, security, trade date), computed once when resolved.</summary>
    internal uint KeyHash;

    /// <summary>Hash of the account key (manager, broker, side, account): the waiting-SET chains' key.</summary>
    internal uint AccountHash;

    /// <summary>Where the tolerances of the manager's profile in the trade currency start (<see cref="StaticData.ReferenceData.ToleranceAt"/>).</summary>
    internal int ToleranceRow;

    /// <summary>The price rounded to the security's price precision.</summary>
    internal long RoundedPrice;
    internal int NextChain;
    internal int OpenedDay;
    internal int PrevAge;
    internal int NextAge;

    /// <summary>True when every flag of <paramref name="fields"/> is present.</summary>
    public readonly bool Has(InputFields fields) => (Present & fields) == fields;
}

internal enum RecordState : byte
{
    Free = 0,

    /// <summary>Part of an open or cleared trade.</summary>
    Live,

    /// <summary>A SET waiting for an account slot of an open trade.</summary>
    Pending,

    /// <summary>Replaced or cancelled (or a cancel message itself): kept for duplicate detection.</summary>
    History,
}

internal enum TradeState : byte
{
    Free = 0,
    Open,
    Cleared,
}

/// <summary>One account of a trade: its allocation, net proceeds and settlement instruction (message indices, -1 absent).</summary>
internal struct AccountSlot
{
    public int Account;
    public int Alc;
    public int Npr;
    public int Set;

    /// <summary>Next entry (trade × 4 + slot) in the awaiting-SET chain of its bucket.</summary>
    public int NextAwaiting;
}

[InlineArray(Matcher.MaxAccounts)]
internal struct AccountSlots
{
    private AccountSlot _element;
}

internal struct TradeRecord
{
    public TradeState State;
    public byte Side;
    public int SlotCount;
    public int Im;
    public int Eb;
    public int Security;
    public int TradeDate;
    public uint KeyHash;
    public int Noe;

    // The NOE's block quantity and trade-level values, copied in when it joins (SetNoe): every later message of the
    // trade is compared with them and with the allocated sum without fetching the NOE's record (a cache miss with
    // a million trades resident). Valid while Noe >= 0.
    public long NoeQuantity;
    public long NoeRoundedPrice;
    public int NoeSettlDate;
    public int NoeCurrency;
    public bool NoeHasSettlDate;
    public long Allocated;
    public long Number;
    public int OpenedDay;
    public int ClearedDay;
    /// <summary>Next free trade record (the free list).</summary>
    public int NextFree;
    public int PrevAge;
    public int NextAge;

    /// <summary>Replaced and cancelled messages of the trade (chained by NextChain), freed with it.</summary>
    public int History;
    public AccountSlots Slots;
}

/// <summary>
/// What a retained cleared trade keeps of one of its messages (its live ones and its history): enough to answer a
/// resend (<c>Duplicate</c>), another transaction type under the ID (<c>ID-REUSED</c>), a cancel or replace of a
/// live one (<c>LATE</c> with the trade's number) or of a withdrawn one (<c>UNKNOWN-REFERENCE</c>). The message's
/// record is freed when the trade clears, while it is still cached; this 56-byte entry, written in a ring in order
/// of clearing, is what stays.
/// </summary>
internal struct ClearedId
{
    public Bytes32 Id;
    public MessageKind Kind;
    public TransType Trans;

    /// <summary>Replaced or cancelled (or a cancel itself) before the trade cleared: a reference to it is unknown.</summary>
    public bool Withdrawn;
    public int Sender;
    public uint IdHash;
    public long TradeNumber;
}

/// <summary>A retained cleared trade: where its IDs lie in the cleared-ID ring and the business day it cleared.</summary>
internal struct ClearedSpan
{
    public int First;
    public int Count;
    public int ClearedDay;
}
