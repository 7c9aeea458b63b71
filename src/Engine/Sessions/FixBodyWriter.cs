using RapidFix.Engine.Codec;
using RapidFix.Engine.Fields;

namespace RapidFix.Engine.Sessions;

/// <summary>
/// Writes the body of an outgoing message ("tag=value&lt;SOH&gt;" fields) into a caller-owned buffer, for
/// <see cref="FixSession.Send"/>. A ref struct over a span: nothing is allocated; overflowing the buffer sets
/// <see cref="Overflowed"/> and further fields are dropped.
/// </summary>
public ref struct FixBodyWriter
{
    private readonly Span<byte> _buffer;
    private int _length;

    /// <summary>A writer over <paramref name="buffer"/>, which the application owns and may reuse once the message is sent.</summary>
    public FixBodyWriter(Span<byte> buffer)
    {
        _buffer = buffer;
        _length = 0;
        Overflowed = false;
    }

    /// <summary>The fields written so far.</summary>
    public readonly ReadOnlySpan<byte> Written => _buffer.Slice(0, _length);

    /// <summary>True when a field did not fit: nothing was written past the buffer, and the body is incomplete.</summary>
    public bool Overflowed { get; private set; }

    /// <summary>Appends tag=value with the value's bytes as they are.</summary>
    public void Add(int tag, scoped ReadOnlySpan<byte> value)
    {
        var rest = _buffer.Slice(_length);
        int digits = FixValue.FormatLong(tag, rest);
        if (digits == 0 || rest.Length < digits + value.Length + 2)
        {
            Overflowed = true;
            return;
        }

        rest[digits] = (byte)'=';
        value.CopyTo(rest.Slice(digits + 1));
        rest[digits + 1 + value.Length] = 1;
        _length += digits + value.Length + 2;
    }

    /// <summary>Appends tag=value with an integer (pass a long: an int literal that fits a byte picks <see cref="Add(int, byte)"/>).</summary>
    public void Add(int tag, long value)
    {
        Span<byte> digits = stackalloc byte[20];
        int n = FixValue.FormatLong(value, digits);
        Add(tag, digits.Slice(0, n));
    }

    /// <summary>
    /// Not a method to call: a byte (or a small constant) would otherwise bind to <c>Add(int, long)</c> and be written as
    /// a number. Use <see cref="AddChar"/> for a single character, or pass a <c>long</c> for a number.
    /// </summary>
    [Obsolete("Ambiguous: use AddChar(tag, (byte)'X') for a CHAR value, or Add(tag, 0L) for a number.", error: true)]
    public void Add(int tag, byte value) => AddChar(tag, value);

    /// <summary>Appends tag=value with one character.</summary>
    public void AddChar(int tag, byte value)
    {
        Span<byte> one = stackalloc byte[1];
        one[0] = value;
        Add(tag, one);
    }

    /// <summary>Appends tag=value with a decimal, at its own scale.</summary>
    public void Add(int tag, FixDecimal value)
    {
        Span<byte> text = stackalloc byte[48];
        value.TryFormat(text, out int n);
        Add(tag, text.Slice(0, n));
    }

    /// <summary>Appends tag=value with a UTCTimestamp at <paramref name="precision"/>.</summary>
    public void AddTimestamp(int tag, long unixNanoseconds, FixTimePrecision precision = FixTimePrecision.Milliseconds)
    {
        Span<byte> text = stackalloc byte[32];
        int n = FixTimeFormat.FormatTimestamp(unixNanoseconds, precision, text);
        Add(tag, text.Slice(0, n));
    }

    /// <summary>Appends fields that are already "tag=value&lt;SOH&gt;" text.</summary>
    public void AddRaw(scoped ReadOnlySpan<byte> fields)
    {
        if (_buffer.Length - _length < fields.Length)
        {
            Overflowed = true;
            return;
        }

        fields.CopyTo(_buffer.Slice(_length));
        _length += fields.Length;
    }

    /// <summary>
    /// Copies the body of a parsed message: top-level fields in ascending tag order, each repeating group right after
    /// its count field with its entries' fields in the dictionary's order (how QuickFIX renders a message).
    /// Needs a dictionary parse.
    /// </summary>
    public void AddBodyOf(FixMessage message)
    {
        Span<int> order = stackalloc int[Math.Min(message.FieldCount, 512)];
        int n = 0;
        for (int i = 3; i < message.FieldCount && n < order.Length; i++)
        {
            ref readonly var f = ref message.FieldAt(i);
            if (f.Scope == 0 && f.Section == FixMessage.SectionBody)
            {
                order[n++] = i;
            }
        }

        // Stable insertion sort by tag (bodies are small).
        for (int i = 1; i < n; i++)
        {
            int item = order[i];
            int tag = message.GetTag(item);
            int j = i - 1;
            while (j >= 0 && message.GetTag(order[j]) > tag)
            {
                order[j + 1] = order[j];
                j--;
            }

            order[j + 1] = item;
        }

        for (int k = 0; k < n; k++)
        {
            int i = order[k];
            int tag = message.GetTag(i);
            Add(tag, message.GetValueAt(i));
            var group = message.GetGroup(tag);
            for (int e = 0; e < group.Count; e++)
            {
                AddEntry(message, group[e].Scope);
            }
        }
    }

    private void AddEntry(FixMessage message, FieldScope entry)
    {
        // The entry's fields in the group definition's order; nested groups follow their count field.
        var definition = message.GroupDefinitionOf(entry);
        if (definition is null)
        {
            return;
        }

        foreach (int tag in definition.FieldOrder)
        {
            if (message.TryGetText(entry, tag, out var value))
            {
                Add(tag, value);
                var nested = message.GetGroup(entry, tag);
                for (int e = 0; e < nested.Count; e++)
                {
                    AddEntry(message, nested[e].Scope);
                }
            }
        }
    }
}
