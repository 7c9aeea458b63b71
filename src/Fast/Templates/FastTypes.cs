namespace RapidFix.Fast.Templates;

/// <summary>The FAST 1.1 field types (and the structural instructions) a compiled template is made of.</summary>
public enum FastFieldType : byte
{
    UInt32,
    Int32,
    UInt64,
    Int64,
    Decimal,
    AsciiString,
    UnicodeString,
    ByteVector,
    Sequence,
    Group,

    /// <summary>A dynamic template reference: the stream names the template (a static reference is inlined at load time).</summary>
    TemplateReference,
}

/// <summary>The FAST 1.1 field operators.</summary>
public enum FastOperator : byte
{
    None,
    Constant,
    Default,
    Copy,
    Increment,
    Delta,
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
    public static bool IsInteger(this FastFieldType t) => t <= FastFieldType.Int64;

    public static bool IsSigned(this FastFieldType t) => t is FastFieldType.Int32 or FastFieldType.Int64;

    /// <summary>Strings and byte vectors: values carried as bytes.</summary>
    public static bool IsBytes(this FastFieldType t) => t is FastFieldType.AsciiString or FastFieldType.UnicodeString or FastFieldType.ByteVector;

    /// <summary>Unicode strings and byte vectors are length-prefixed on the wire; ASCII strings are stop-bit terminated.</summary>
    public static bool IsLengthPrefixed(this FastFieldType t) => t is FastFieldType.UnicodeString or FastFieldType.ByteVector;
}
