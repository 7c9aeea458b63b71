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

    public int Tag { get; }

    public string Name { get; }

    public FixFieldType Type { get; }

    /// <summary>The text check applied by the validator.</summary>
    public ValueFormat Format { get; }

    /// <summary>The allowed values, or null when the field is not enumerated.</summary>
    public EnumSet? Enums { get; }

    /// <summary>True when the value is a space-separated list of tokens.</summary>
    public bool IsMultipleValue { get; }

    /// <summary>For a DATA / XMLDATA field, the Length field that precedes it (0 otherwise).</summary>
    public int LengthTag { get; internal set; }

    public override string ToString() => $"{Name}({Tag}) {Type}";
}
