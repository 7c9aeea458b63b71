namespace RapidFix.Matching;

/// <summary>The four atomic messages of a trade (GSTPA names) and the FIX message each one is.</summary>
public enum MessageKind : byte
{
    /// <summary>Not set.</summary>
    None = 0,

    /// <summary>Notice of Execution: TradeCaptureReport (AE), from the executing broker, the block.</summary>
    Noe = 1,

    /// <summary>Trade Allocation: AllocationInstruction (J), from the investment manager, one account.</summary>
    Alc = 2,

    /// <summary>Net Proceeds: Confirmation (AK, ConfirmType 2), from the executing broker, one account.</summary>
    Npr = 3,

    /// <summary>Settlement Instructions: SettlementInstructions (T), from the investment manager, one account.</summary>
    Set = 4,
}

/// <summary>What a message does to an earlier one (487, 71, 666, 163 mapped to one set).</summary>
public enum TransType : byte
{
    /// <summary>A new message.</summary>
    New = 0,
    /// <summary>Cancels an earlier message.</summary>
    Cancel = 1,
    /// <summary>Replaces an earlier message.</summary>
    Replace = 2,
}

/// <summary>The 17 GSTPA matching criteria (numbers as in docs/matching.md).</summary>
public enum Criterion : byte
{
    /// <summary>Not a criterion.</summary>
    None = 0,
    /// <summary>1: trade date.</summary>
    TradeDate = 1,
    /// <summary>2: settlement date.</summary>
    SettlementDate = 2,
    /// <summary>3: security (ISIN).</summary>
    Security = 3,
    /// <summary>4: side.</summary>
    Side = 4,
    /// <summary>5: trade currency.</summary>
    TradeCurrency = 5,
    /// <summary>6: quantity.</summary>
    Quantity = 6,
    /// <summary>7: price.</summary>
    Price = 7,
    /// <summary>8: gross amount.</summary>
    GrossAmount = 8,
    /// <summary>9: commission.</summary>
    Commission = 9,
    /// <summary>10: fees.</summary>
    Fees = 10,
    /// <summary>11: tax.</summary>
    Tax = 11,
    /// <summary>12: accrued interest (fixed income only).</summary>
    AccruedInterest = 12,
    /// <summary>13: net amount.</summary>
    NetAmount = 13,
    /// <summary>14: settlement currency.</summary>
    SettlementCurrency = 14,
    /// <summary>15: account.</summary>
    Account = 15,
    /// <summary>16: executing broker.</summary>
    ExecutingBroker = 16,
    /// <summary>17: place of settlement.</summary>
    PlaceOfSettlement = 17,

    /// <summary>Not a matching criterion: the investment manager (a trade key field, checked like 16).</summary>
    InvestmentManager = 18,

    /// <summary>Not a matching criterion: the settlement amount (119) against the net amount at the rate (155).</summary>
    SettlementAmount = 19,
}

/// <summary>How two values of a criterion are compared.</summary>
public enum ToleranceRule : byte
{
    /// <summary>Equal.</summary>
    Exct = 0,

    /// <summary>Absolute: |a - b| &lt;= Value.</summary>
    Mnmx = 1,

    /// <summary>Percentage: |a - b| &lt;= Value % of |expected|.</summary>
    Ptol = 2,

    /// <summary>Percentage with an absolute cap: |a - b| &lt;= min(Value % of |expected|, Cap).</summary>
    Ptmx = 3,
}

/// <summary>Why a message (or an open trade) went to the exception queue.</summary>
public enum ExceptionReason : byte
{
    /// <summary>No exception.</summary>
    None = 0,

    /// <summary>A required field is missing for this message kind (Tag says which).</summary>
    MissingField = 1,

    /// <summary>A field is malformed, too long, too precise or has a value the contract does not allow.</summary>
    InvalidField = 2,

    /// <summary>A value is not in static data or fails its check (unknown ISIN, bad check digit, holiday...).</summary>
    StaticData = 3,

    /// <summary>The sender is not the participant the message kind must come from.</summary>
    NotAuthorized = 4,

    /// <summary>The message belongs to an open trade but a criterion fails (Criterion, both values, tolerance).</summary>
    Mismatch = 5,

    /// <summary>Cancel or replace of an ID the matcher does not hold.</summary>
    UnknownReference = 6,

    /// <summary>The message refers to a trade already cleared: no second CLS.</summary>
    LateForClearedTrade = 7,

    /// <summary>A replace changes a trade key field: send a cancel and a new message instead.</summary>
    KeyFieldAmended = 8,

    /// <summary>The same ID arrived again with another transaction type or another kind.</summary>
    IdReused = 9,

    /// <summary>A pre-sized table is full (trades, messages, index): counted, never grown.</summary>
    TableFull = 10,

    /// <summary>The trade stayed open longer than the configured number of business days.</summary>
    Expired = 11,

    /// <summary>The message kind or a transaction type the matcher does not take (e.g. AK with ConfirmType 1).</summary>
    Unsupported = 12,
}

/// <summary>The answer a message gets.</summary>
public enum AckStatus : byte
{
    /// <summary>Taken (new, replace or cancel applied).</summary>
    Accepted = 0,

    /// <summary>Already seen (same ID and transaction type, or a PossDup resend of a known ID): nothing changed.</summary>
    Duplicate = 1,

    /// <summary>Refused: an exception record says why (<see cref="MatchAck.ExceptionId"/>).</summary>
    Rejected = 2,
}
