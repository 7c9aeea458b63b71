using System.Buffers.Text;
using System.Runtime.CompilerServices;
using System.Runtime.InteropServices;
using RapidFix.Engine.Fields;
using RapidFix.Fast.Templates;
using RapidFix.Pools.Phases;

namespace RapidFix.Fast.Messages;

/// <summary>What a value slot holds.</summary>
public enum FastValueKind : byte
{
    /// <summary>The optional field was absent.</summary>
    Absent = 0,
    /// <summary>A signed integer.</summary>
    Integer,
    /// <summary>An unsigned integer.</summary>
    UnsignedInteger,
    /// <summary>A decimal: mantissa and exponent.</summary>
    Decimal,
    /// <summary>A string or byte vector, in the message's arena.</summary>
    Bytes,
    /// <summary>A sequence: its length and its entries' scopes.</summary>
    Sequence,
    /// <summary>A present group.</summary>
    Group,
    /// <summary>A dynamic template reference: the referenced template's scope.</summary>
    TemplateReference,
}

/// <summary>One value slot of a decoded (or built) message.</summary>
[StructLayout(LayoutKind.Auto)]
public struct FastValue
{
    /// <summary>Integer value, decimal mantissa, or sequence length.</summary>
    internal long Int;

    /// <summary>Decimal exponent, byte length, or first scope id of a sequence / template reference.</summary>
    internal int Aux;

    /// <summary>Offset of the bytes in the message arena.</summary>
    internal int Offset;

    internal FastValueKind KindValue;

    /// <summary>What the slot holds.</summary>
    public readonly FastValueKind Kind => KindValue;

    /// <summary>True unless the field was absent.</summary>
    public readonly bool IsPresent => KindValue != FastValueKind.Absent;
}

/// <summary>Sizes of a message slot's pre-allocated storage.</summary>
public sealed record FastMessageCapacity
{
    /// <summary>The sizes used when none are given.</summary>
    public static FastMessageCapacity Default { get; } = new();

    /// <summary>Value slots (all scopes of one message together).</summary>
    public int Values { get; init; } = 4096;

    /// <summary>Scopes: the message itself, each sequence entry, each dynamic template reference.</summary>
    public int Scopes { get; init; } = 1024;

    /// <summary>Bytes for string and byte-vector values.</summary>
    public int ArenaBytes { get; init; } = 64 * 1024;
}

/// <summary>
/// A pre-allocated message slot: the decoder writes a message into it (reusing it for the next one), the encoder
/// reads one from it, and the rest of the engine reads it through <see cref="IFieldAccessor"/>, the same tag-based
/// view a FIX tag=value message offers. Values sit in flat arrays, one block of slots per scope, in the template's
/// field order; strings are copied into the message's own arena, so the message outlives the input buffer.
/// </summary>
/// <remarks>
/// Running out of storage (<see cref="FastMessageCapacity"/>) is an error result of the decoder
/// (<see cref="FastErrorCode.CapacityExceeded"/>), never growth. Not thread-safe: one message, one thread.
/// </remarks>
public sealed class FastMessage : IFieldAccessor
{
    internal readonly FastValue[] Values;
    internal readonly ScopeInfo[] Scopes;
    internal readonly byte[] Arena;
    internal int ValueCount;
    internal int ScopeCount;
    internal int ArenaLength;
    private readonly byte[] _text = new byte[48];

    /// <summary>The templates' initial values: strings equal to one are referenced there, not copied.</summary>
    private byte[] _constants = [];

    /// <summary>A message with <see cref="FastMessageCapacity.Default"/> storage, created at startup and reused for every decode.</summary>
    public FastMessage()
        : this(FastMessageCapacity.Default)
    {
    }

    /// <param name="capacity">Sizes of the pre-allocated storage.</param>
    /// <param name="phases">If given, creation is refused outside startup.</param>
    public FastMessage(FastMessageCapacity capacity, PhaseController? phases = null)
    {
        ArgumentNullException.ThrowIfNull(capacity);
        phases?.EnsureStartup("create a FAST message slot");
        Values = new FastValue[Math.Max(1, capacity.Values)];
        Scopes = new ScopeInfo[Math.Max(1, capacity.Scopes)];
        Arena = new byte[Math.Max(1, capacity.ArenaBytes)];
    }

    /// <summary>The template of the message held, or null when empty.</summary>
    public FastTemplate? Template { get; private set; }

    /// <summary>MsgType (35): the template's constant tag-35 value, else the message's top-level tag 35 value, else empty.</summary>
    public ReadOnlySpan<byte> MsgType
    {
        get
        {
            if (Template is null)
            {
                return default;
            }

            if (Template.MsgType.Length > 0)
            {
                return Template.MsgType;
            }

            return TryGetBytes(FieldScope.Message, 35, out var v) ? v : default;
        }
    }

    /// <summary>A struct view for generic code constrained on <see cref="IFieldAccessor"/> (direct calls, no sharing).</summary>
    public FastMessageView View => new(this);

    /// <summary>Bytes of the arena in use (strings and byte vectors of the message).</summary>
    public int ArenaBytesUsed => ArenaLength;

    /// <summary>Value slots in use.</summary>
    public int ValuesUsed => ValueCount;

    // ---- building (also used by the decoder) -------------------------------------------------------------------

    /// <summary>Empties the message and starts one of <paramref name="template"/> with every field absent.</summary>
    public void Begin(FastTemplate template)
    {
        ArgumentNullException.ThrowIfNull(template);
        if (!TryBegin(template))
        {
            ThrowCapacity();
        }
    }

    internal bool TryBegin(FastTemplate template, bool clear = true)
    {
        if (!ReferenceEquals(Template, template))
        {
            // Usually the previous message's template: no write barriers then.
            Template = template;
            _constants = template.ConstantPool;
        }

        ValueCount = 0;
        ScopeCount = 0;
        ArenaLength = 0;
        return TryAddScopes(template.Body, 1, out _, clear);
    }

    /// <summary>
    /// Reserves <paramref name="count"/> consecutive scopes of <paramref name="body"/>, with all values absent when
    /// <paramref name="clear"/> (the decoder writes every slot itself, so it skips the clearing).
    /// </summary>
    internal bool TryAddScopes(FastGroupBody body, int count, out int firstScope, bool clear = true)
    {
        firstScope = ScopeCount;
        int slots = body.SlotCount;
        long needValues = (long)slots * count;
        if (count > Scopes.Length - ScopeCount || needValues > Values.Length - ValueCount)
        {
            return false;
        }

        int baseIndex = ValueCount;
        if (clear)
        {
            Values.AsSpan(baseIndex, (int)needValues).Clear();
        }

        for (int i = 0; i < count; i++)
        {
            ref var s = ref Scopes[ScopeCount + i];
            if (!ReferenceEquals(s.Body, body))
            {
                s.Body = body; // usually already there from the previous message: no write barrier then
            }

            s.Base = baseIndex + (i * slots);
        }

        ScopeCount += count;
        ValueCount += (int)needValues;
        return true;
    }

    internal bool TryAppendBytes(ReadOnlySpan<byte> bytes, out int offset)
    {
        offset = ArenaLength;
        if (bytes.Length > Arena.Length - ArenaLength)
        {
            return false;
        }

        Codec.SmallCopy.Copy(bytes, Arena.AsSpan(ArenaLength));
        ArenaLength += bytes.Length;
        return true;
    }

    /// <summary>Sets an integer field of the scope (encoder input).</summary>
    public void SetInteger(FieldScope scope, int tag, long value)
    {
        ref var v = ref SlotOrThrow(scope, tag, out var field);
        v.KindValue = field.Type == FastFieldType.UInt32 || field.Type == FastFieldType.UInt64 ? FastValueKind.UnsignedInteger : FastValueKind.Integer;
        v.Int = value;
    }

    /// <summary>Sets a decimal field of the scope (encoder input).</summary>
    public void SetDecimal(FieldScope scope, int tag, FixDecimal value)
    {
        ref var v = ref SlotOrThrow(scope, tag, out _);
        v.KindValue = FastValueKind.Decimal;
        v.Int = value.Mantissa;
        v.Aux = value.Exponent;
    }

    /// <summary>Sets a string or byte-vector field of the scope (encoder input); the bytes are copied.</summary>
    public void SetBytes(FieldScope scope, int tag, ReadOnlySpan<byte> value)
    {
        ref var v = ref SlotOrThrow(scope, tag, out _);
        if (!TryAppendBytes(value, out int offset))
        {
            ThrowCapacity();
        }

        v.KindValue = FastValueKind.Bytes;
        v.Offset = offset;
        v.Aux = value.Length;
    }

    /// <summary>Marks a field of the scope absent.</summary>
    public void SetAbsent(FieldScope scope, int tag) => SlotOrThrow(scope, tag, out _) = default;

    /// <summary>Creates the entries of the sequence counted by <paramref name="countTag"/>; entry i is <c>new FieldScope(first.Id + i)</c>.</summary>
    public FieldScope SetSequence(FieldScope scope, int countTag, int count)
    {
        ref var v = ref SlotOrThrow(scope, countTag, out var field);
        if (field.Type != FastFieldType.Sequence)
        {
            throw new ArgumentException($"Tag {countTag} is not a sequence.", nameof(countTag));
        }

        if (!TryAddScopes(field.Body!, count, out int first))
        {
            ThrowCapacity();
        }

        v = ref SlotOrThrow(scope, countTag, out _);
        v.KindValue = FastValueKind.Sequence;
        v.Int = count;
        v.Aux = first;
        return new FieldScope(first);
    }

    /// <summary>Marks the optional group named <paramref name="groupName"/> present (its fields are set like the scope's own).</summary>
    public void SetGroupPresent(FieldScope scope, string groupName, bool present = true)
    {
        var body = ScopeBody(scope);
        int slot = body.IndexOfName(groupName);
        if (slot < 0 || body.ScopeFields[slot].Type != FastFieldType.Group)
        {
            throw new ArgumentException($"No group '{groupName}' in scope '{body.Name}'.", nameof(groupName));
        }

        Values[Scopes[scope.Id].Base + slot].KindValue = present ? FastValueKind.Group : FastValueKind.Absent;
    }

    private ref FastValue SlotOrThrow(FieldScope scope, int tag, out FastField field)
    {
        var body = ScopeBody(scope);
        int slot = body.IndexOfTag(tag);
        if (slot < 0)
        {
            throw new ArgumentException($"No field with tag {tag} in scope '{body.Name}'.", nameof(tag));
        }

        field = body.ScopeFields[slot];
        return ref Values[Scopes[scope.Id].Base + slot];
    }

    private FastGroupBody ScopeBody(FieldScope scope)
    {
        if ((uint)scope.Id >= (uint)ScopeCount)
        {
            throw new ArgumentOutOfRangeException(nameof(scope), "The scope does not belong to this message.");
        }

        return Scopes[scope.Id].Body;
    }

    [MethodImpl(MethodImplOptions.NoInlining)]
    private static void ThrowCapacity() => throw new InvalidOperationException("The message's pre-sized storage is exhausted.");

    // ---- reading ----------------------------------------------------------------------------------------------

    /// <summary>The value in slot <paramref name="slot"/> of <paramref name="scope"/> (slots are the scope's fields in template order).</summary>
    public FastValue GetValue(FieldScope scope, int slot)
    {
        if ((uint)scope.Id >= (uint)ScopeCount || (uint)slot >= (uint)Scopes[scope.Id].Body.SlotCount)
        {
            return default;
        }

        return Values[Scopes[scope.Id].Base + slot];
    }

    /// <summary>The fields of <paramref name="scope"/>, by slot.</summary>
    public ReadOnlySpan<FastField> GetFields(FieldScope scope) =>
        (uint)scope.Id < (uint)ScopeCount ? Scopes[scope.Id].Body.ScopeFields : default;

    /// <summary>The bytes of a string or byte-vector value.</summary>
    public ReadOnlySpan<byte> GetBytes(in FastValue value) =>
        value.KindValue == FastValueKind.Bytes ? BytesOf(value.Offset, value.Aux) : default;

    /// <summary>The scope of a dynamic template reference value, or of sequence entry 0.</summary>
    public FieldScope GetNestedScope(in FastValue value, int index = 0) => new(value.Aux + index);

    /// <summary>The bytes of a value: in the arena, or (negative offset) in the templates' constant pool.</summary>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    internal ReadOnlySpan<byte> BytesOf(int offset, int length) =>
        offset >= 0 ? Arena.AsSpan(offset, length) : _constants.AsSpan(~offset, length);

    /// <summary>Finds the value of <paramref name="tag"/> in <paramref name="scope"/> (also inside dynamic template references).</summary>
    internal bool TryFind(FieldScope scope, int tag, out FastValue value, out FastField? field)
    {
        value = default;
        field = null;
        if ((uint)scope.Id >= (uint)ScopeCount)
        {
            return false;
        }

        ref readonly var s = ref Scopes[scope.Id];
        var body = s.Body;
        int slot = Array.IndexOf(body.ScopeTags, tag);
        if (slot >= 0)
        {
            value = Values[s.Base + slot];
            field = body.ScopeFields[slot];
            return value.KindValue != FastValueKind.Absent;
        }

        if (body.HasDynamicReference)
        {
            var fields = body.ScopeFields;
            for (int i = 0; i < fields.Length; i++)
            {
                var v = Values[s.Base + i];
                if (v.KindValue == FastValueKind.TemplateReference && TryFind(new FieldScope(v.Aux), tag, out value, out field))
                {
                    return true;
                }
            }
        }

        return false;
    }

    /// <summary>True when <paramref name="tag"/> is present in <paramref name="scope"/>.</summary>
    public bool Contains(FieldScope scope, int tag) => TryFind(scope, tag, out _, out _);

    /// <summary>The bytes of a string or byte-vector field; false when absent or of another kind. The span points into the message.</summary>
    public bool TryGetBytes(FieldScope scope, int tag, out ReadOnlySpan<byte> value)
    {
        if (TryFind(scope, tag, out var v, out _) && v.KindValue == FastValueKind.Bytes)
        {
            value = BytesOf(v.Offset, v.Aux);
            return true;
        }

        value = default;
        return false;
    }

    /// <summary>The value as FIX text. Numbers are rendered into a buffer of the message: the span is valid until the next call.</summary>
    public bool TryGetText(FieldScope scope, int tag, out ReadOnlySpan<byte> value)
    {
        value = default;
        if (!TryFind(scope, tag, out var v, out _))
        {
            return false;
        }

        int n;
        switch (v.KindValue)
        {
            case FastValueKind.Bytes:
                value = BytesOf(v.Offset, v.Aux);
                return true;
            case FastValueKind.Integer:
            case FastValueKind.Sequence:
                Utf8Formatter.TryFormat(v.Int, _text, out n);
                break;
            case FastValueKind.UnsignedInteger:
                Utf8Formatter.TryFormat((ulong)v.Int, _text, out n);
                break;
            case FastValueKind.Decimal:
                if (!new FixDecimal(v.Int, v.Aux).TryFormat(_text, out n))
                {
                    return false;
                }

                break;
            default:
                return false;
        }

        value = _text.AsSpan(0, n);
        return true;
    }

    /// <inheritdoc/>
    public bool TryGetLong(FieldScope scope, int tag, out long value) => TryGetLong(scope, tag, out value, out _);

    /// <summary>
    /// The value as an int64, converted as FAST's conversion rules say, with the reason when it does not convert:
    /// <see cref="FastErrorCode.D10"/> a string that is not an integer, <see cref="FastErrorCode.R4"/> a value beyond
    /// the int64 range, <see cref="FastErrorCode.R5"/> a decimal with a fraction. An absent field (or one of a kind
    /// that holds no number, a sequence length aside) is false with <see cref="FastErrorCode.None"/>.
    /// </summary>
    public bool TryGetLong(FieldScope scope, int tag, out long value, out FastErrorCode error)
    {
        value = 0;
        error = FastErrorCode.None;
        if (!TryFind(scope, tag, out var v, out _))
        {
            return false;
        }

        switch (v.KindValue)
        {
            case FastValueKind.Integer:
            case FastValueKind.Sequence:
                value = v.Int;
                return true;
            case FastValueKind.UnsignedInteger:
                value = v.Int;
                return v.Int >= 0 || Fail(FastErrorCode.R4, out error); // a uInt64 above Int64.MaxValue
            case FastValueKind.Decimal:
                error = DecimalToLong(v.Int, v.Aux, out value);
                return error == FastErrorCode.None;
            case FastValueKind.Bytes:
                var text = BytesOf(v.Offset, v.Aux);
                if (Utf8Parser.TryParse(text, out value, out int used) && used == text.Length)
                {
                    return true;
                }

                return Fail(IsIntegerSyntax(text) ? FastErrorCode.R4 : FastErrorCode.D10, out error);
            default:
                return false;
        }
    }

    /// <summary>A uInt64 value (the full unsigned range).</summary>
    public bool TryGetUInt64(FieldScope scope, int tag, out ulong value)
    {
        value = 0;
        if (TryFind(scope, tag, out var v, out _) && (v.KindValue == FastValueKind.UnsignedInteger || (v.KindValue == FastValueKind.Integer && v.Int >= 0)))
        {
            value = (ulong)v.Int;
            return true;
        }

        return false;
    }

    /// <inheritdoc/>
    public bool TryGetInt(FieldScope scope, int tag, out int value) => TryGetInt(scope, tag, out value, out _);

    /// <summary>The value as an int32: the int64 conversion's errors, and <see cref="FastErrorCode.R4"/> beyond the int32 range.</summary>
    public bool TryGetInt(FieldScope scope, int tag, out int value, out FastErrorCode error)
    {
        value = 0;
        if (!TryGetLong(scope, tag, out long l, out error))
        {
            return false;
        }

        if (l < int.MinValue || l > int.MaxValue)
        {
            return Fail(FastErrorCode.R4, out error);
        }

        value = (int)l;
        return true;
    }

    /// <inheritdoc/>
    public bool TryGetDecimal(FieldScope scope, int tag, out FixDecimal value) => TryGetDecimal(scope, tag, out value, out _);

    /// <summary>
    /// The value as a decimal: <see cref="FastErrorCode.D10"/> for a string that is not a decimal number,
    /// <see cref="FastErrorCode.R2"/> for a value a decimal cannot represent (a uInt64 above Int64.MaxValue, a string
    /// whose mantissa passes int64 or whose exponent leaves [-63, 63]).
    /// </summary>
    public bool TryGetDecimal(FieldScope scope, int tag, out FixDecimal value, out FastErrorCode error)
    {
        value = default;
        error = FastErrorCode.None;
        if (!TryFind(scope, tag, out var v, out _))
        {
            return false;
        }

        switch (v.KindValue)
        {
            case FastValueKind.Decimal:
                value = new FixDecimal(v.Int, v.Aux);
                return true;
            case FastValueKind.Integer:
                value = new FixDecimal(v.Int, 0);
                return true;
            case FastValueKind.UnsignedInteger:
                value = new FixDecimal(v.Int, 0);
                return v.Int >= 0 || Fail(FastErrorCode.R2, out error);
            case FastValueKind.Bytes:
                var text = BytesOf(v.Offset, v.Aux);
                if (FixDecimal.TryParse(text, out value))
                {
                    return value.Exponent is >= -63 and <= 63 || Fail(FastErrorCode.R2, out error);
                }

                return Fail(IsDecimalSyntax(text) ? FastErrorCode.R2 : FastErrorCode.D10, out error);
            default:
                return false;
        }
    }

    /// <summary>
    /// The value as ASCII text: <see cref="FastErrorCode.R3"/> when a unicode string (or byte vector) holds bytes
    /// beyond ASCII. Numbers are rendered as by <see cref="TryGetText"/>.
    /// </summary>
    public bool TryGetAscii(FieldScope scope, int tag, out ReadOnlySpan<byte> value, out FastErrorCode error)
    {
        error = FastErrorCode.None;
        if (!TryGetText(scope, tag, out value))
        {
            return false;
        }

        if (System.Text.Ascii.IsValid(value))
        {
            return true;
        }

        value = default;
        return Fail(FastErrorCode.R3, out error);
    }

    /// <inheritdoc/>
    public int GetGroupCount(FieldScope scope, int countTag) =>
        TryFind(scope, countTag, out var v, out _) && v.KindValue == FastValueKind.Sequence ? (int)v.Int : 0;

    /// <inheritdoc/>
    public bool TryGetGroupEntry(FieldScope scope, int countTag, int index, out FieldScope entry)
    {
        if (TryFind(scope, countTag, out var v, out _) && v.KindValue == FastValueKind.Sequence && (uint)index < (ulong)v.Int)
        {
            entry = new FieldScope(v.Aux + index);
            return true;
        }

        entry = default;
        return false;
    }

    private static FastErrorCode DecimalToLong(long mantissa, int exponent, out long value)
    {
        value = mantissa;
        for (int e = exponent; e > 0; e--)
        {
            if (value > long.MaxValue / 10 || value < long.MinValue / 10)
            {
                return FastErrorCode.R4;
            }

            value *= 10;
        }

        for (int e = exponent; e < 0; e++)
        {
            if (value % 10 != 0)
            {
                return FastErrorCode.R5;
            }

            value /= 10;
        }

        return FastErrorCode.None;
    }

    private static bool Fail(FastErrorCode code, out FastErrorCode error)
    {
        error = code;
        return false;
    }

    /// <summary>An optional sign then digits only: an integer too large for the type, not a syntax error.</summary>
    private static bool IsIntegerSyntax(ReadOnlySpan<byte> text)
    {
        if (!text.IsEmpty && (text[0] == (byte)'-' || text[0] == (byte)'+'))
        {
            text = text[1..];
        }

        return !text.IsEmpty && !text.ContainsAnyExceptInRange((byte)'0', (byte)'9');
    }

    /// <summary>An optional sign, digits and at most one point: a number a decimal cannot hold, not a syntax error.</summary>
    private static bool IsDecimalSyntax(ReadOnlySpan<byte> text)
    {
        int point = text.IndexOf((byte)'.');
        if (point < 0)
        {
            return IsIntegerSyntax(text);
        }

        var fraction = text[(point + 1)..];
        return (point == 0 || IsIntegerSyntax(text[..point]) || text[..point] is [(byte)'-'] or [(byte)'+'])
            && !fraction.ContainsAnyExceptInRange((byte)'0', (byte)'9') && (point > 0 || !fraction.IsEmpty);
    }
}

/// <summary>Where a scope's values start, and which body lays them out.</summary>
internal struct ScopeInfo
{
    public FastGroupBody Body;
    public int Base;
}
