namespace RapidFix.Fast.Templates;

/// <summary>
/// One compiled instruction of a template: a field with its operator, pre-resolved dictionary slot, pre-parsed
/// initial value and its slot in the decoded message's scope. Built once at startup; read-only afterwards.
/// </summary>
public sealed class FastField
{
    internal FastField(string name, FastFieldType type, FastOperator op, bool optional, int tag, int line)
    {
        Name = name;
        Type = type;
        Operator = op;
        IsOptional = optional;
        Tag = tag;
        Line = line;
    }

    /// <summary>The field's name in the template.</summary>
    public string Name { get; }

    /// <summary>The FIX tag (the id attribute, or a numeric name); 0 when the field has none.</summary>
    public int Tag { get; }

    /// <summary>The field's FAST type.</summary>
    public FastFieldType Type { get; }

    /// <summary>The operator (for a decimal with separate operators, <see cref="FastOperator.None"/>: see <see cref="Exponent"/>).</summary>
    public FastOperator Operator { get; }

    /// <summary>True for presence="optional".</summary>
    public bool IsOptional { get; }

    /// <summary>Line of the field in the template XML (0 when unknown).</summary>
    public int Line { get; }

    /// <summary>Position of the field's value in its scope (template body or sequence entry) of a decoded message.</summary>
    public int Slot { get; internal set; } = -1;

    /// <summary>For a decimal with separate operators: the exponent part (an int32 instruction).</summary>
    public FastField? Exponent { get; internal set; }

    /// <summary>For a decimal with separate operators: the mantissa part (an int64 instruction).</summary>
    public FastField? Mantissa { get; internal set; }

    /// <summary>For a sequence: its length instruction (a uInt32).</summary>
    public FastField? Length { get; internal set; }

    /// <summary>For a sequence or group: the instructions inside.</summary>
    public FastGroupBody? Body { get; internal set; }

    /// <summary>True when the field is a decimal whose exponent and mantissa have their own operators.</summary>
    public bool IsSplitDecimal => Exponent is not null;

    /// <summary>The initial value, when the operator has one (for decimals, the mantissa).</summary>
    public long InitialInt { get; internal set; }

    /// <summary>For a decimal initial value: its exponent.</summary>
    public int InitialExponent { get; internal set; }

    /// <summary>Bytes of a string or byte vector initial value.</summary>
    public byte[] InitialBytes { get; internal set; } = [];

    /// <summary>True when the template gives the operator an initial value.</summary>
    public bool HasInitial { get; internal set; }

    /// <summary>The field reads a presence map bit.</summary>
    internal bool UsesPmapBit;

    /// <summary>The field's value on the wire can be NULL (optional, and not a constant).</summary>
    internal bool Nullable;

    /// <summary>Index of the previous value in the codec's flat dictionary arrays, or -1 when the operator keeps none.</summary>
    internal int DictSlot = -1;

    /// <summary>Dispatch code: the type and operator folded into one switch value.</summary>
    internal Opcode Code;

    /// <summary>Position of the instruction in <see cref="FastTemplateRegistry.Fields"/> (compiled code refers to it).</summary>
    internal int Index = -1;

    /// <summary>Offset of <see cref="InitialBytes"/> in the registry's constant pool (-1 when the field has none).</summary>
    internal int InitialPoolOffset = -1;

    /// <summary>Integer bounds of the field type (for range checks, D2).</summary>
    internal long MinValue;
    internal ulong MaxUnsigned;
    internal long MaxSigned;

    /// <summary>Type, name, tag and operator, for messages and logs.</summary>
    public override string ToString() => $"{Type} {Name} (tag {Tag}, {Operator}{(IsOptional ? ", optional" : "")})";
}

/// <summary>Dispatch codes of the decoder's and encoder's instruction switch.</summary>
internal enum Opcode : byte
{
    Int,
    Decimal,
    SplitDecimal,
    Ascii,
    Bytes,
    Sequence,
    Group,
    TemplateRef,
}

/// <summary>
/// A list of instructions decoded with one presence map: a template body, a sequence entry or a group.
/// </summary>
public sealed class FastGroupBody
{
    internal FastGroupBody(string name)
    {
        Name = name;
    }

    /// <summary>The name of the template, sequence or group the instructions belong to.</summary>
    public string Name { get; }

    /// <summary>The instructions in wire order.</summary>
    public FastField[] Instructions { get; internal set; } = [];

    /// <summary>The fields of the scope this body opens, by slot (group fields live in their parent's scope).</summary>
    public FastField[] ScopeFields { get; internal set; } = [];

    /// <summary>Number of value slots of the scope this body opens (0 for a group, which shares its parent's).</summary>
    public int SlotCount => ScopeFields.Length;

    /// <summary>Presence map bits the body needs (0: no presence map on the wire, except for a template).</summary>
    public int PmapBits { get; internal set; }

    /// <summary>The body has a presence map on the wire.</summary>
    public bool HasPmap { get; internal set; }

    /// <summary>Compiled decoding code (a <c>CompiledBody&lt;FastMessageWriter&gt;</c>), or null to interpret.</summary>
    internal Delegate? Compiled;

    /// <summary>
    /// For a sequence's body: compiled code decoding all its entries in one call (a
    /// <c>CompiledEntries&lt;FastMessageWriter&gt;</c>), or null.
    /// </summary>
    internal Delegate? CompiledEntries;

    /// <summary>Compiled encoding code (a <c>CompiledEncodeBody</c>), or null to interpret.</summary>
    internal Delegate? CompiledEncoder;

    /// <summary>The template whose body this is (null for sequence and group bodies).</summary>
    public FastTemplate? Template { get; internal set; }

    /// <summary>Bytes the body consumes at least on the wire (bounds hostile sequence lengths).</summary>
    internal int MinBytes;

    /// <summary>Tags of <see cref="ScopeFields"/> (0 for fields without a tag), scanned by the tag accessors.</summary>
    internal int[] ScopeTags = [];

    /// <summary>True when the scope holds a dynamic template reference (tag lookups also search its scopes).</summary>
    internal bool HasDynamicReference;

    /// <summary>The slot of the field with <paramref name="tag"/> in this body's scope, or -1.</summary>
    public int IndexOfTag(int tag) => Array.IndexOf(ScopeTags, tag);

    /// <summary>The slot of the field named <paramref name="name"/> in this body's scope, or -1 (startup use).</summary>
    public int IndexOfName(string name)
    {
        for (int i = 0; i < ScopeFields.Length; i++)
        {
            if (ScopeFields[i].Name == name)
            {
                return i;
            }
        }

        return -1;
    }
}

/// <summary>A compiled template.</summary>
public sealed class FastTemplate
{
    internal FastTemplate(string name, uint? id, FastGroupBody body)
    {
        Name = name;
        Id = id;
        Body = body;
        body.Template = this;
    }

    /// <summary>The template's name (the name attribute).</summary>
    public string Name { get; }

    /// <summary>The template identifier; null for a template that can only be referenced by name.</summary>
    public uint? Id { get; }

    /// <summary>The application type (typeRef) of the template, if any.</summary>
    public string? TypeRef { get; internal set; }

    /// <summary>SCP 1.1 reset: dictionaries are reset when a message of this template is encoded or decoded.</summary>
    public bool Reset { get; internal set; }

    /// <summary>The template's instructions.</summary>
    public FastGroupBody Body { get; }

    /// <summary>Every string and byte-vector initial value of the registry, back to back (shared by all templates).</summary>
    internal byte[] ConstantPool { get; set; } = [];

    /// <summary>MsgType (35) of messages of this template when the template fixes it (constant tag 35), else empty.</summary>
    public byte[] MsgType { get; internal set; } = [];

    /// <summary>The name and id, for messages and logs.</summary>
    public override string ToString() => $"template {Name} ({Id})";
}
