using System.Runtime.CompilerServices;

namespace RapidFix.Matching;

/// <summary>
/// A stored message: its content resolved against static data (participants, security, currencies, account and
/// place as indices; amounts scaled by 10^6; dates yyyymmdd) and its links in the matcher's tables.
/// </summary>
public struct MessageRecord
{
    public Bytes32 Id;
    public Bytes16 Isin;
    public MessageKind Kind;
    public TransType Trans;
    internal RecordState State;
    public byte Side;
    public InputFields Present;
    public int Sender;
    public int Im;
    public int Eb;
    public int Security;
    public int Currency;
    public int SettlCurrency;
    public int Account;
    public int Place;
    public int TradeDate;
    public int SettlDate;
    public long Quantity;
    public long Price;
    public long Gross;

    /// <summary>Absolute commission (a percentage was converted against the gross amount).</summary>
    public long Commission;
    public long Fees;
    public long Tax;
    public long Accrued;
    public long Net;
    public long SettlAmount;
    public long FxRate;

    internal int Trade;
    internal uint IdHash;
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
