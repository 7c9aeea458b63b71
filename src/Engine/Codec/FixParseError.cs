namespace RapidFix.Engine.Codec;

/// <summary>
/// Why the bytes of a framed message could not be split into fields. A format error makes the message garbled
/// (ignored, as QuickFIX does); a broken limit (<see cref="TooManyFields"/>, <see cref="TooManyGroupEntries"/>,
/// <see cref="TagOutOfRange"/>) leaves the header readable (<see cref="FixMessage.IsPartial"/>) so the session answers it.
/// </summary>
public enum FixParseError : byte
{
    /// <summary>The message parsed.</summary>
    None,

    /// <summary>A tag is not a number.</summary>
    InvalidTag,

    /// <summary>A tag is not followed by '='.</summary>
    MissingEquals,

    /// <summary>The last field is not terminated by SOH.</summary>
    MissingDelimiter,

    /// <summary>A data field's length (from its Length field) runs past the message or does not end at an SOH.</summary>
    DataLengthMismatch,

    /// <summary>The first three fields are not BeginString (8), BodyLength (9), MsgType (35).</summary>
    FirstThreeFieldsOutOfOrder,

    /// <summary>The last field is not CheckSum (10).</summary>
    MissingCheckSum,

    /// <summary>More fields than the view was sized for.</summary>
    TooManyFields,

    /// <summary>More repeating-group entries than the view was sized for.</summary>
    TooManyGroupEntries,

    /// <summary>The message is larger than the view's own buffer (copying parse only).</summary>
    MessageTooLarge,

    /// <summary>A tag is a number beyond <see cref="int.MaxValue"/>: no field can have it.</summary>
    TagOutOfRange,
}
