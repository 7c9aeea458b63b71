namespace RapidFix.Fast.Templates;

/// <summary>The FAST 1.1 field types (and the structural instructions) a compiled template is made of.</summary>
public enum FastFieldType : byte
{
    /// <summary>uInt32.</summary>
    UInt32,
    /// <summary>int32.</summary>
    Int32,
    /// <summary>uInt64.</summary>
    UInt64,
    /// <summary>int64.</summary>
    Int64,
    /// <summary>decimal (exponent and mantissa, together or with separate operators).</summary>
    Decimal,
    /// <summary>string, ASCII charset.</summary>
    AsciiString,
    /// <summary>string, unicode charset (UTF-8 bytes).</summary>
    UnicodeString,
    /// <summary>byteVector.</summary>
    ByteVector,
    /// <summary>sequence: a length, then that many entries.</summary>
    Sequence,
    /// <summary>group: fields present together or not at all.</summary>
    Group,

    /// <summary>A dynamic template reference: the stream names the template (a static reference is inlined at load time).</summary>
    TemplateReference,
}

/// <summary>The FAST 1.1 field operators.</summary>
public enum FastOperator : byte
{
    /// <summary>No operator: the value is always on the wire.</summary>
    None,
    /// <summary>constant: the value is the template's, never on the wire.</summary>
    Constant,
    /// <summary>default: absent from the wire means the template's value.</summary>
    Default,
    /// <summary>copy: absent from the wire means the previous value.</summary>
    Copy,
    /// <summary>increment: absent from the wire means the previous value plus one.</summary>
    Increment,
    /// <summary>delta: the wire carries the difference from the previous value.</summary>
    Delta,
    /// <summary>tail: the wire carries the end of the string that changed.</summary>
    Tail,
}

/// <summary>State of a previous value in a dictionary (FAST 1.1 section 6.3.1).</summary>
internal enum PreviousState : byte
{
    Undefined = 0,
    Empty = 1,
    Assigned = 2,
}

/// <summary>Helpers over <see cref="FastFieldType"/>.</summary>
public static class FastFieldTypeExtensions
{
    /// <summary>True for the four integer types.</summary>
    public static bool IsInteger(this FastFieldType t) => t <= FastFieldType.Int64;

    /// <summary>True for int32 and int64.</summary>
    public static bool IsSigned(this FastFieldType t) => t is FastFieldType.Int32 or FastFieldType.Int64;

    /// <summary>Strings and byte vectors: values carried as bytes.</summary>
    public static bool IsBytes(this FastFieldType t) => t is FastFieldType.AsciiString or FastFieldType.UnicodeString or FastFieldType.ByteVector;

    /// <summary>Unicode strings and byte vectors are length-prefixed on the wire; ASCII strings are stop-bit terminated.</summary>
    public static bool IsLengthPrefixed(this FastFieldType t) => t is FastFieldType.UnicodeString or FastFieldType.ByteVector;
}
