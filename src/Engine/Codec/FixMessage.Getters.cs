using System.Runtime.CompilerServices;
using RapidFix.Engine.Fields;

namespace RapidFix.Engine.Codec;

/// <summary>Typed, allocation-free getters. A getter returns false when the field is absent or its text has the wrong form.</summary>
public sealed partial class FixMessage
{
    /// <summary>True when the top-level field <paramref name="tag"/> is present.</summary>
    public bool Contains(int tag) => FindTopLevel(tag) >= 0;

    /// <summary>The raw value of a top-level field, or an empty span when absent.</summary>
    public ReadOnlySpan<byte> GetValue(int tag)
    {
        int i = FindTopLevel(tag);
        return i >= 0 ? ValueAt(i) : default;
    }

    /// <summary>The raw value of a top-level field.</summary>
    public bool TryGetValue(int tag, out ReadOnlySpan<byte> value)
    {
        int i = FindTopLevel(tag);
        if (i < 0)
        {
            value = default;
            return false;
        }

        value = ValueAt(i);
        return true;
    }

    /// <summary>Reads an int field of the message's top level (header, body or trailer); false when absent or not a strict integer.</summary>
    public bool TryGetInt(int tag, out int value) => TryGetInt(FieldScope.Message, tag, out value);

    /// <summary>Reads a long field of the message's top level; false when absent or not a strict integer.</summary>
    public bool TryGetLong(int tag, out long value) => TryGetLong(FieldScope.Message, tag, out value);

    /// <summary>Reads a decimal field of the message's top level (mantissa and exponent, the text's scale kept); false when absent or malformed.</summary>
    public bool TryGetDecimal(int tag, out FixDecimal value) => TryGetDecimal(FieldScope.Message, tag, out value);

    /// <summary>A CHAR field's single byte.</summary>
    public bool TryGetChar(int tag, out byte value) => TryGetChar(FieldScope.Message, tag, out value);

    /// <summary>A BOOLEAN field ('Y' or 'N').</summary>
    public bool TryGetBool(int tag, out bool value) => TryGetBool(FieldScope.Message, tag, out value);

    /// <summary>A UTCTimestamp field, with the precision its text had.</summary>
    public bool TryGetTimestamp(int tag, out FixTimestamp value) => TryGetTimestamp(FieldScope.Message, tag, out value);

    bool IFieldAccessor.Contains(FieldScope scope, int tag) => Find(scope, tag) >= 0;

    /// <inheritdoc/>
    public bool TryGetText(FieldScope scope, int tag, out ReadOnlySpan<byte> value)
    {
        int i = Find(scope, tag);
        if (i < 0)
        {
            value = default;
            return false;
        }

        value = ValueAt(i);
        return true;
    }

    /// <inheritdoc/>
    public bool TryGetInt(FieldScope scope, int tag, out int value)
    {
        int i = Find(scope, tag);
        if (i >= 0)
        {
            return FixValue.TryParseInt(ValueAt(i), out value);
        }

        value = 0;
        return false;
    }

    /// <inheritdoc/>
    public bool TryGetLong(FieldScope scope, int tag, out long value)
    {
        int i = Find(scope, tag);
        if (i >= 0)
        {
            return FixValue.TryParseLong(ValueAt(i), out value);
        }

        value = 0;
        return false;
    }

    /// <inheritdoc/>
    public bool TryGetDecimal(FieldScope scope, int tag, out FixDecimal value)
    {
        int i = Find(scope, tag);
        if (i >= 0)
        {
            return FixDecimal.TryParse(ValueAt(i), out value);
        }

        value = default;
        return false;
    }

    /// <inheritdoc/>
    public bool TryGetChar(FieldScope scope, int tag, out byte value)
    {
        int i = Find(scope, tag);
        if (i >= 0 && _fields[i].Length == 1)
        {
            value = _buffer[_fields[i].Offset];
            return true;
        }

        value = 0;
        return false;
    }

    /// <inheritdoc/>
    public bool TryGetBool(FieldScope scope, int tag, out bool value)
    {
        int i = Find(scope, tag);
        if (i >= 0)
        {
            return FixValue.TryParseBool(ValueAt(i), out value);
        }

        value = false;
        return false;
    }

    /// <inheritdoc/>
    public bool TryGetTimestamp(FieldScope scope, int tag, out FixTimestamp value)
    {
        int i = Find(scope, tag);
        if (i >= 0)
        {
            return FixTimeFormat.TryParseTimestamp(ValueAt(i), out value);
        }

        value = default;
        return false;
    }

    /// <summary>Entries actually present in the group counted by <paramref name="countTag"/> in <paramref name="scope"/>.</summary>
    public int GetGroupCount(FieldScope scope, int countTag)
    {
        int g = FindGroupInstance(scope, countTag);
        return g >= 0 ? _groups[g].Actual : 0;
    }

    /// <inheritdoc/>
    public bool TryGetGroupEntry(FieldScope scope, int countTag, int index, out FieldScope entry)
    {
        int g = FindGroupInstance(scope, countTag);
        if (g >= 0 && (uint)index < (uint)_groups[g].Actual)
        {
            entry = new FieldScope(EntryOfInstance(g, index) + 1);
            return true;
        }

        entry = default;
        return false;
    }

    /// <summary>The top-level repeating group counted by <paramref name="countTag"/> (empty when absent). Needs a dictionary parse.</summary>
    public FixGroup GetGroup(int countTag) => new(this, FindGroupInstance(FieldScope.Message, countTag));

    /// <summary>The repeating group counted by <paramref name="countTag"/> inside <paramref name="scope"/>.</summary>
    public FixGroup GetGroup(FieldScope scope, int countTag) => new(this, FindGroupInstance(scope, countTag));

    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    private int FindGroupInstance(FieldScope scope, int countTag)
    {
        var groups = _groups;
        for (int g = 0; g < _groupCount; g++)
        {
            if (groups[g].CountTag == countTag && groups[g].ParentScope == scope.Id)
            {
                return g;
            }
        }

        return -1;
    }

    /// <summary>The message as text with '|' for SOH, for logs and tests (allocates).</summary>
    public override string ToString()
    {
        if (_length == 0)
        {
            return string.Empty;
        }

        var chars = new char[_length];
        var bytes = Bytes;
        for (int i = 0; i < bytes.Length; i++)
        {
            chars[i] = bytes[i] == 1 ? '|' : (char)bytes[i];
        }

        return new string(chars);
    }
}

/// <summary>One repeating group of a <see cref="FixMessage"/>: its entries, in order.</summary>
public readonly struct FixGroup
{
    private readonly FixMessage _message;
    private readonly int _instance;

    internal FixGroup(FixMessage message, int instance)
    {
        _message = message;
        _instance = instance;
    }

    /// <summary>True when the group is present.</summary>
    public bool Exists => _instance >= 0;

    /// <summary>Entries present.</summary>
    public int Count => _instance >= 0 ? _message.GroupAt(_instance).Actual : 0;

    /// <summary>The NumInGroup value the message declared (-1 when it is not a number).</summary>
    public int DeclaredCount => _instance >= 0 ? _message.GroupAt(_instance).Declared : 0;

    /// <summary>Entry <paramref name="index"/> (0-based).</summary>
    public FixGroupEntry this[int index]
    {
        get
        {
            if ((uint)index >= (uint)Count)
            {
                ThrowIndex();
            }

            return new FixGroupEntry(_message, new FieldScope(_message.EntryOfInstance(_instance, index) + 1));
        }
    }

    [MethodImpl(MethodImplOptions.NoInlining)]
    private static void ThrowIndex() => throw new ArgumentOutOfRangeException("index");
}

/// <summary>One entry of a repeating group: the same getters as the message, scoped to the entry.</summary>
public readonly struct FixGroupEntry
{
    private readonly FixMessage _message;

    internal FixGroupEntry(FixMessage message, FieldScope scope)
    {
        _message = message;
        Scope = scope;
    }

    /// <summary>The entry's scope, usable with the <see cref="IFieldAccessor"/> methods of the message.</summary>
    public FieldScope Scope { get; }

    /// <summary>True when the entry holds <paramref name="tag"/>.</summary>
    public bool Contains(int tag) => _message.Find(Scope, tag) >= 0;

    /// <summary>The raw value of <paramref name="tag"/> in this entry; false when absent. The span points into the message's bytes.</summary>
    public bool TryGetValue(int tag, out ReadOnlySpan<byte> value) => _message.TryGetText(Scope, tag, out value);

    /// <summary>The raw value of <paramref name="tag"/> in this entry, empty when absent. The span points into the message's bytes.</summary>
    public ReadOnlySpan<byte> GetValue(int tag) => _message.TryGetText(Scope, tag, out var v) ? v : default;

    /// <summary>Reads an int field of this entry; false when absent or not a strict integer.</summary>
    public bool TryGetInt(int tag, out int value) => _message.TryGetInt(Scope, tag, out value);

    /// <summary>Reads a long field of this entry; false when absent or not a strict integer.</summary>
    public bool TryGetLong(int tag, out long value) => _message.TryGetLong(Scope, tag, out value);

    /// <summary>Reads a decimal field of this entry; false when absent or malformed.</summary>
    public bool TryGetDecimal(int tag, out FixDecimal value) => _message.TryGetDecimal(Scope, tag, out value);

    /// <summary>Reads a one-character field of this entry; false when absent or longer than one byte.</summary>
    public bool TryGetChar(int tag, out byte value) => _message.TryGetChar(Scope, tag, out value);

    /// <summary>Reads a Y/N field of this entry; false when absent or neither Y nor N.</summary>
    public bool TryGetBool(int tag, out bool value) => _message.TryGetBool(Scope, tag, out value);

    /// <summary>Reads a UTCTimestamp field of this entry; false when absent or malformed.</summary>
    public bool TryGetTimestamp(int tag, out FixTimestamp value) => _message.TryGetTimestamp(Scope, tag, out value);

    /// <summary>A group nested in this entry.</summary>
    public FixGroup GetGroup(int countTag) => _message.GetGroup(Scope, countTag);
}
