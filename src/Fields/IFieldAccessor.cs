namespace RapidFix.Engine.Fields;

/// <summary>
/// Tag-based read access to a decoded message, whatever its wire encoding (FIX tag=value or FAST). Code that
/// consumes trade messages (the matcher, an application) is written against this interface and works with both.
/// </summary>
/// <remarks>
/// Implementations never allocate: values are read from the message's own buffers. A getter returns false when the
/// field is absent in the scope or its value does not have the requested type. Use it as a generic constraint
/// (<c>where T : IFieldAccessor</c>) on hot paths so calls are not virtual.
/// </remarks>
public interface IFieldAccessor
{
    /// <summary>MsgType (35) as bytes, e.g. "D" or "AE". For FAST, the template's message type.</summary>
    ReadOnlySpan<byte> MsgType { get; }

    /// <summary>True when <paramref name="tag"/> is present in <paramref name="scope"/>.</summary>
    bool Contains(FieldScope scope, int tag);

    /// <summary>The value in FIX text form (for a binary FAST value, its text rendering).</summary>
    bool TryGetText(FieldScope scope, int tag, out ReadOnlySpan<byte> value);

    /// <summary>Reads an int field of <paramref name="scope"/>; false when absent or not a strict integer (no sign '+', no spaces, no overflow).</summary>
    bool TryGetInt(FieldScope scope, int tag, out int value);

    /// <summary>Reads a long field of <paramref name="scope"/>; false when absent or not a strict integer.</summary>
    bool TryGetLong(FieldScope scope, int tag, out long value);

    /// <summary>Reads a decimal field of <paramref name="scope"/> (mantissa and exponent, the text's scale kept); false when absent or malformed.</summary>
    bool TryGetDecimal(FieldScope scope, int tag, out FixDecimal value);

    /// <summary>Number of entries of the repeating group counted by <paramref name="countTag"/> (0 when absent).</summary>
    int GetGroupCount(FieldScope scope, int countTag);

    /// <summary>The scope of entry <paramref name="index"/> (0-based) of a repeating group.</summary>
    bool TryGetGroupEntry(FieldScope scope, int countTag, int index, out FieldScope entry);
}
