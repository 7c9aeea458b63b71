namespace RapidFix.Engine.Dictionary;

/// <summary>The FIX data types named in QuickFIX-format dictionaries (the "type" attribute of a field).</summary>
public enum FixFieldType : byte
{
    /// <summary>Free text (STRING).</summary>
    String,
    /// <summary>An integer (INT).</summary>
    Int,
    /// <summary>The length of the data field that follows (LENGTH).</summary>
    Length,
    /// <summary>The number of entries of a repeating group (NUMINGROUP).</summary>
    NumInGroup,
    /// <summary>A message sequence number (SEQNUM).</summary>
    SeqNum,
    /// <summary>A tag number (TAGNUM).</summary>
    TagNum,
    /// <summary>A day of the month, 1 to 31 (DAYOFMONTH).</summary>
    DayOfMonth,
    /// <summary>A decimal number (FLOAT).</summary>
    Float,
    /// <summary>A quantity (QTY, a decimal).</summary>
    Qty,
    /// <summary>A price (PRICE, a decimal).</summary>
    Price,
    /// <summary>A price offset (PRICEOFFSET, a decimal).</summary>
    PriceOffset,
    /// <summary>An amount (AMT, a decimal).</summary>
    Amt,
    /// <summary>A percentage (PERCENTAGE, a decimal).</summary>
    Percentage,
    /// <summary>One character (CHAR).</summary>
    Char,
    /// <summary>Y or N (BOOLEAN).</summary>
    Boolean,
    /// <summary>Space-separated values (MULTIPLEVALUESTRING, before FIX 4.4).</summary>
    MultipleValueString,
    /// <summary>Space-separated single characters (MULTIPLECHARVALUE).</summary>
    MultipleCharValue,
    /// <summary>Space-separated strings (MULTIPLESTRINGVALUE).</summary>
    MultipleStringValue,
    /// <summary>An ISO 3166 country code (COUNTRY).</summary>
    Country,
    /// <summary>An ISO 4217 currency code (CURRENCY).</summary>
    Currency,
    /// <summary>An ISO 10383 market identifier (EXCHANGE).</summary>
    Exchange,
    /// <summary>A month and year, optionally with a day or week (MONTHYEAR).</summary>
    MonthYear,
    /// <summary>A UTC date and time (UTCTIMESTAMP).</summary>
    UtcTimestamp,
    /// <summary>A UTC time of day (UTCTIMEONLY).</summary>
    UtcTimeOnly,
    /// <summary>A UTC date (UTCDATEONLY).</summary>
    UtcDateOnly,
    /// <summary>A date in the market's local time (LOCALMKTDATE).</summary>
    LocalMktDate,
    /// <summary>A time in the market's local time (LOCALMKTTIME).</summary>
    LocalMktTime,
    /// <summary>A time of day with its UTC offset (TZTIMEONLY).</summary>
    TzTimeOnly,
    /// <summary>A date and time with its UTC offset (TZTIMESTAMP).</summary>
    TzTimestamp,
    /// <summary>Raw bytes whose length the preceding LENGTH field gives; may contain SOH (DATA).</summary>
    Data,
    /// <summary>An XML document whose length the preceding LENGTH field gives (XMLDATA).</summary>
    XmlData,
    /// <summary>An ISO 639-1 language code (LANGUAGE).</summary>
    Language,
    /// <summary>A value following a pattern the field's description gives (PATTERN).</summary>
    Pattern,
    /// <summary>A tenor such as D5, M3 or Y1 (TENOR).</summary>
    Tenor,
    /// <summary>The RESERVEDnnnPLUS types some dictionaries use for tag ranges.</summary>
    Reserved,
}

/// <summary>How the validator checks a value's text; several FIX types share one check.</summary>
public enum ValueFormat : byte
{
    /// <summary>Any text (strings, codes, dates QuickFIX treats as strings).</summary>
    Text,

    /// <summary>Optional '-' and digits.</summary>
    Integer,

    /// <summary>Optional '-', digits, optional '.' and digits.</summary>
    Decimal,

    /// <summary>Exactly one byte.</summary>
    Char,

    /// <summary>'Y' or 'N'.</summary>
    Boolean,

    /// <summary>yyyyMMdd-HH:mm:ss[.fff...].</summary>
    UtcTimestamp,

    /// <summary>HH:mm:ss[.fff...].</summary>
    UtcTimeOnly,

    /// <summary>yyyyMMdd.</summary>
    UtcDateOnly,

    /// <summary>Raw bytes whose length is given by the preceding Length field.</summary>
    Data,
}

/// <summary>Maps dictionary type names to <see cref="FixFieldType"/> and to the check the validator applies.</summary>
public static class FixFieldTypes
{
    /// <summary>Parses a dictionary "type" attribute (case-insensitive). Unknown names are treated as strings.</summary>
    public static FixFieldType Parse(string name) => name.ToUpperInvariant() switch
    {
        "INT" => FixFieldType.Int,
        "LENGTH" => FixFieldType.Length,
        "NUMINGROUP" => FixFieldType.NumInGroup,
        "SEQNUM" => FixFieldType.SeqNum,
        "TAGNUM" => FixFieldType.TagNum,
        "DAYOFMONTH" => FixFieldType.DayOfMonth,
        "FLOAT" => FixFieldType.Float,
        "QTY" or "QUANTITY" => FixFieldType.Qty,
        "PRICE" => FixFieldType.Price,
        "PRICEOFFSET" => FixFieldType.PriceOffset,
        "AMT" => FixFieldType.Amt,
        "PERCENTAGE" => FixFieldType.Percentage,
        "CHAR" => FixFieldType.Char,
        "BOOLEAN" => FixFieldType.Boolean,
        "MULTIPLEVALUESTRING" => FixFieldType.MultipleValueString,
        "MULTIPLECHARVALUE" => FixFieldType.MultipleCharValue,
        "MULTIPLESTRINGVALUE" => FixFieldType.MultipleStringValue,
        "COUNTRY" => FixFieldType.Country,
        "CURRENCY" => FixFieldType.Currency,
        "EXCHANGE" => FixFieldType.Exchange,
        "MONTHYEAR" => FixFieldType.MonthYear,
        "UTCTIMESTAMP" or "TIME" => FixFieldType.UtcTimestamp,
        "UTCTIMEONLY" => FixFieldType.UtcTimeOnly,
        "UTCDATEONLY" or "UTCDATE" or "DATE" => FixFieldType.UtcDateOnly,
        "LOCALMKTDATE" => FixFieldType.LocalMktDate,
        "LOCALMKTTIME" => FixFieldType.LocalMktTime,
        "TZTIMEONLY" => FixFieldType.TzTimeOnly,
        "TZTIMESTAMP" => FixFieldType.TzTimestamp,
        "DATA" => FixFieldType.Data,
        "XMLDATA" => FixFieldType.XmlData,
        "LANGUAGE" => FixFieldType.Language,
        "PATTERN" => FixFieldType.Pattern,
        "TENOR" => FixFieldType.Tenor,
        _ when name.StartsWith("RESERVED", StringComparison.OrdinalIgnoreCase) => FixFieldType.Reserved,
        _ => FixFieldType.String,
    };

    /// <summary>
    /// The text check for a type. It follows QuickFIX: integer, decimal, char, boolean and the UTC date/time types
    /// are checked; the other types (LocalMktDate, MonthYear, codes...) are free text.
    /// </summary>
    public static ValueFormat FormatOf(FixFieldType type) => type switch
    {
        FixFieldType.Int or FixFieldType.Length or FixFieldType.NumInGroup or FixFieldType.SeqNum
            or FixFieldType.TagNum or FixFieldType.DayOfMonth => ValueFormat.Integer,
        FixFieldType.Float or FixFieldType.Qty or FixFieldType.Price or FixFieldType.PriceOffset
            or FixFieldType.Amt or FixFieldType.Percentage => ValueFormat.Decimal,
        FixFieldType.Char => ValueFormat.Char,
        FixFieldType.Boolean => ValueFormat.Boolean,
        FixFieldType.UtcTimestamp => ValueFormat.UtcTimestamp,
        FixFieldType.UtcTimeOnly => ValueFormat.UtcTimeOnly,
        FixFieldType.UtcDateOnly => ValueFormat.UtcDateOnly,
        FixFieldType.Data or FixFieldType.XmlData => ValueFormat.Data,
        _ => ValueFormat.Text,
    };

    /// <summary>True for types whose value is a space-separated list of enumerated tokens.</summary>
    public static bool IsMultipleValue(FixFieldType type) =>
        type is FixFieldType.MultipleValueString or FixFieldType.MultipleCharValue or FixFieldType.MultipleStringValue;
}
