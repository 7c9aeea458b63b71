using System.Runtime.CompilerServices;
using RapidFix.Engine.Fields;

namespace RapidFix.Engine.Dictionary;

/// <summary>One field of a data dictionary: number, name, type and (optionally) enumerated values.</summary>
public sealed class FieldDefinition
{
    internal FieldDefinition(int tag, string name, FixFieldType type, EnumSet? enums)
    {
        Tag = tag;
        Name = name;
        Type = type;
        Format = FixFieldTypes.FormatOf(type);
        Enums = enums is { Count: > 0 } ? enums : null;
        IsMultipleValue = FixFieldTypes.IsMultipleValue(type);
        HasValueCheck = Enums is not null || (Format != ValueFormat.Text && Format != ValueFormat.Data);
    }

    /// <summary>True when the validator has to look at the value (a format to check, or an enumeration).</summary>
    public bool HasValueCheck { get; }

    /// <summary>The field's tag number.</summary>
    public int Tag { get; }

    /// <summary>The field's name in the dictionary.</summary>
    public string Name { get; }

    /// <summary>The field's FIX type, which decides how its values are screened.</summary>
    public FixFieldType Type { get; }

    /// <summary>The text check applied by the validator.</summary>
    public ValueFormat Format { get; }

    /// <summary>The allowed values, or null when the field is not enumerated.</summary>
    public EnumSet? Enums { get; }

    /// <summary>True when the value is a space-separated list of tokens.</summary>
    public bool IsMultipleValue { get; }

    /// <summary>For a DATA / XMLDATA field, the Length field that precedes it (0 otherwise).</summary>
    public int LengthTag { get; internal set; }

    /// <summary>True when the text has the form the field's type requires (QuickFIX's format check).</summary>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    public bool HasValidFormat(ReadOnlySpan<byte> value) => Format switch
    {
        ValueFormat.Text or ValueFormat.Data => true,
        ValueFormat.Integer => FixValue.TryParseLong(value, out _),
        ValueFormat.Decimal => FixDecimal.TryParse(value, out _) || FixDecimal.IsValidText(value),
        ValueFormat.Char => value.Length == 1,
        ValueFormat.Boolean => value.Length == 1 && (value[0] == (byte)'Y' || value[0] == (byte)'N'),
        ValueFormat.UtcTimestamp => FixTimeFormat.IsValidTimestamp(value),
        ValueFormat.UtcTimeOnly => FixTimeFormat.TryParseTimeOfDay(value, out _, out _),
        ValueFormat.UtcDateOnly => FixTimeFormat.TryParseDate(value, out _),
        _ => true,
    };

    /// <summary>True when the value is allowed by the enumeration (every token, for multiple-value types); true when not enumerated.</summary>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    public bool IsAllowedValue(ReadOnlySpan<byte> value) =>
        Enums is not { } enums || (IsMultipleValue ? enums.ContainsAll(value) : enums.Contains(value));

    /// <summary>Both checks at once: the parser's fast screen for a value that needs no further look.</summary>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    public bool IsCleanValue(ReadOnlySpan<byte> value) => !HasValueCheck || (HasValidFormat(value) && IsAllowedValue(value));

    /// <summary>Name(tag) and type.</summary>
    public override string ToString() => $"{Name}({Tag}) {Type}";
}
