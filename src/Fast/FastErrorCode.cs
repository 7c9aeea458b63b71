namespace RapidFix.Fast;

/// <summary>
/// Why a FAST decode or encode failed. S, D and R codes are the FAST 1.1 specification's static, dynamic and
/// reportable errors; the rest name limits of this implementation (pre-sized storage, hostile input bounds).
/// </summary>
public enum FastErrorCode : byte
{
    /// <summary>No error.</summary>
    None = 0,

    /// <summary>S1: the template XML is not well formed or does not follow the template schema.</summary>
    S1,

    /// <summary>S2: an operator is specified for a field of a type it does not apply to.</summary>
    S2,

    /// <summary>S3: an initial value cannot be converted to the field's type.</summary>
    S3,

    /// <summary>S4: a constant operator has no initial value.</summary>
    S4,

    /// <summary>S5: a default operator on a mandatory field has no initial value.</summary>
    S5,

    /// <summary>D1: an application value cannot be converted to the field's type.</summary>
    D1,

    /// <summary>D2: an integer does not fit the field's integer type.</summary>
    D2,

    /// <summary>D3: a value cannot be encoded with the field's operator (e.g. it differs from the constant).</summary>
    D3,

    /// <summary>D4: the previous value in the dictionary has another type than the field.</summary>
    D4,

    /// <summary>D5: a mandatory field is absent from the stream, its previous value is undefined and it has no initial value.</summary>
    D5,

    /// <summary>D6: a mandatory field is absent from the stream and its previous value is empty.</summary>
    D6,

    /// <summary>D7: a delta's subtraction length is longer than the base value or out of the int32 range.</summary>
    D7,

    /// <summary>D8: a static template reference names an unknown template.</summary>
    D8,

    /// <summary>D9: the template identifier in the stream is not known.</summary>
    D9,

    /// <summary>D10: a string does not follow the syntax of the type it is converted to.</summary>
    D10,

    /// <summary>D11: a string contains characters not allowed in its type (e.g. a byte above 0x7F in an ASCII string).</summary>
    D11,

    /// <summary>D12: a block length preamble is zero.</summary>
    D12,

    /// <summary>R1: a decimal exponent is outside [-63, 63] or the mantissa does not fit an int64.</summary>
    R1,

    /// <summary>R2: a decimal value cannot be represented in the application type.</summary>
    R2,

    /// <summary>R3: a unicode string cannot be represented as ASCII.</summary>
    R3,

    /// <summary>R4: an integer is too large for the type it is converted to.</summary>
    R4,

    /// <summary>R5: a decimal cannot be converted to an integer without losing its fraction.</summary>
    R5,

    /// <summary>R6: an integer is encoded with more bytes than needed (overlong).</summary>
    R6,

    /// <summary>R7: a presence map is overlong (ends with bytes of zero bits).</summary>
    R7,

    /// <summary>R8: a presence map has more bits than the template needs.</summary>
    R8,

    /// <summary>R9: a string is encoded with more bytes than needed (overlong).</summary>
    R9,

    /// <summary>The input ends inside a message, a field or a frame (a truncated packet).</summary>
    UnexpectedEnd,

    /// <summary>Pre-sized storage is exhausted: message value slots, scopes, byte arena or dictionary string capacity.</summary>
    CapacityExceeded,

    /// <summary>A sequence length, string length or nesting depth exceeds the configured bound for hostile input.</summary>
    LimitExceeded,

    /// <summary>The destination buffer of the encoder is too small.</summary>
    BufferTooSmall,

    /// <summary>The message given to the encoder does not match the template (missing mandatory value, wrong shape).</summary>
    InvalidMessage,

    /// <summary>A framing header is malformed (e.g. a length prefix larger than the remaining data).</summary>
    BadFrame,
}

/// <summary>Static descriptions of <see cref="FastErrorCode"/> values (no allocation: the strings are literals).</summary>
public static class FastErrorCodeExtensions
{
    /// <summary>The code as the specification writes it ("D9", "R7"), or the implementation limit's name.</summary>
    public static string ToCodeString(this FastErrorCode code) => code switch
    {
        FastErrorCode.None => "OK",
        FastErrorCode.S1 => "S1",
        FastErrorCode.S2 => "S2",
        FastErrorCode.S3 => "S3",
        FastErrorCode.S4 => "S4",
        FastErrorCode.S5 => "S5",
        FastErrorCode.D1 => "D1",
        FastErrorCode.D2 => "D2",
        FastErrorCode.D3 => "D3",
        FastErrorCode.D4 => "D4",
        FastErrorCode.D5 => "D5",
        FastErrorCode.D6 => "D6",
        FastErrorCode.D7 => "D7",
        FastErrorCode.D8 => "D8",
        FastErrorCode.D9 => "D9",
        FastErrorCode.D10 => "D10",
        FastErrorCode.D11 => "D11",
        FastErrorCode.D12 => "D12",
        FastErrorCode.R1 => "R1",
        FastErrorCode.R2 => "R2",
        FastErrorCode.R3 => "R3",
        FastErrorCode.R4 => "R4",
        FastErrorCode.R5 => "R5",
        FastErrorCode.R6 => "R6",
        FastErrorCode.R7 => "R7",
        FastErrorCode.R8 => "R8",
        FastErrorCode.R9 => "R9",
        FastErrorCode.UnexpectedEnd => "UnexpectedEnd",
        FastErrorCode.CapacityExceeded => "CapacityExceeded",
        FastErrorCode.LimitExceeded => "LimitExceeded",
        FastErrorCode.BufferTooSmall => "BufferTooSmall",
        FastErrorCode.InvalidMessage => "InvalidMessage",
        FastErrorCode.BadFrame => "BadFrame",
        _ => "Unknown",
    };

    /// <summary>True for the specification's reportable errors (R1-R9).</summary>
    public static bool IsReportable(this FastErrorCode code) => code >= FastErrorCode.R1 && code <= FastErrorCode.R9;
}

/// <summary>Outcome of decoding one message: the error (if any), where it happened and how many bytes were read.</summary>
/// <param name="Error">None on success.</param>
/// <param name="Offset">On success, the offset just past the message; on error, the offset of the field or byte at fault.</param>
/// <param name="TemplateId">The template of the message, when it was identified.</param>
public readonly record struct FastResult(FastErrorCode Error, int Offset, uint TemplateId)
{
    /// <summary>True when the operation succeeded.</summary>
    public bool Ok => Error == FastErrorCode.None;

    /// <summary>Bytes consumed (decode) or written (encode) on success.</summary>
    public int Length => Ok ? Offset : 0;
}
