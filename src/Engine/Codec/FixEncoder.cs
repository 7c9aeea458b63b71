using System.Runtime.CompilerServices;
using System.Runtime.InteropServices;
using RapidFix.Engine.Fields;

namespace RapidFix.Engine.Codec;

/// <summary>
/// Writes one FIX message at a time into a caller-provided buffer (normally a pooled one): BeginString, BodyLength
/// and MsgType first, the fields in the order they are added, CheckSum last. Nothing is allocated.
/// </summary>
/// <remarks>
/// BodyLength is only known at the end, so the body is written after a gap large enough for the longest
/// "8=...|9=nnnnnnn|" prefix; <see cref="Finish"/> writes the prefix right-aligned against the body, so the message
/// starts somewhere inside the gap (<see cref="EncodedMessage.Offset"/>). A buffer too small for the message sets
/// <see cref="Overflowed"/> and <see cref="Finish"/> fails: the caller counts it, nothing is written past the end.
/// </remarks>
public sealed class FixEncoder
{
    /// <summary>"8=" + BeginString (at most 16) + SOH + "9=" + 7 digits + SOH.</summary>
    private const int MaxPrefix = 2 + 16 + 1 + 2 + 7 + 1;

    private readonly FixTimestampWriter _timestamps = new();
    private readonly byte[] _beginString = new byte[16];
    private byte[] _buffer = [];
    private int _bufferStart;
    private int _bodyStart;
    private int _pos;
    private int _end;
    private int _beginStringLength;
    private bool _overflow;
    private bool _open;
    private int _generation;

    /// <summary>True when the last message did not fit in its buffer.</summary>
    public bool Overflowed => _overflow;

    /// <summary>Bytes of body written so far (what BodyLength will say, before the trailer).</summary>
    public int BodyLength => _pos - _bodyStart;

    /// <summary>Messages begun so far: an in-place writer sees whether another message took the buffer over.</summary>
    internal int Generation => _generation;

    /// <summary>What was written after the first <paramref name="bodyLength"/> bytes of the body (an in-place writer's fields).</summary>
    internal ReadOnlySpan<byte> WrittenAfter(int bodyLength) => new(_buffer, _bodyStart + bodyLength, _pos - _bodyStart - bodyLength);

    /// <summary>The MsgType of the message begun (Begin writes it first: "35=value&lt;SOH&gt;").</summary>
    internal ReadOnlySpan<byte> MsgType
    {
        get
        {
            var rest = new ReadOnlySpan<byte>(_buffer, _bodyStart + 3, _pos - _bodyStart - 3);
            return rest.Slice(0, rest.IndexOf((byte)1));
        }
    }

    /// <summary>Ends the current generation: an in-place writer still holding it writes nothing more.</summary>
    internal void Retire() => _generation++;

    /// <summary>
    /// Starts a message in <paramref name="buffer"/>[<paramref name="offset"/>..+<paramref name="capacity"/>]:
    /// reserves the BeginString/BodyLength prefix and writes MsgType (35).
    /// </summary>
    public void Begin(byte[] buffer, int offset, int capacity, ReadOnlySpan<byte> beginString, ReadOnlySpan<byte> msgType)
    {
        ArgumentNullException.ThrowIfNull(buffer);
        if ((uint)offset > (uint)buffer.Length || (uint)capacity > (uint)(buffer.Length - offset))
        {
            ThrowRange();
        }

        if (beginString.Length is 0 or > 16)
        {
            ThrowBeginString();
        }

        _generation++;
        _buffer = buffer;
        _bufferStart = offset;
        _end = offset + capacity;
        _bodyStart = offset + MaxPrefix;
        _pos = _bodyStart;
        _overflow = capacity < MaxPrefix;
        _open = true;

        // BeginString is written by Finish, in front of BodyLength, once the prefix position is known.
        beginString.CopyTo(_beginString);
        _beginStringLength = beginString.Length;

        Add(Tags.MsgType, msgType);
    }

    /// <summary>Adds a field with a raw value (must not contain SOH unless it is a data field).</summary>
    public void Add(int tag, ReadOnlySpan<byte> value)
    {
        if (!TryReserve(FixValue.CountDigits((uint)tag) + 2 + value.Length, out int at))
        {
            return;
        }

        at = WriteTag(tag, at);
        ref byte b = ref MemoryMarshal.GetArrayDataReference(_buffer);
        FixValue.CopyShort(ref Unsafe.Add(ref b, at), ref MemoryMarshal.GetReference(value), value.Length);
        Unsafe.Add(ref b, at + value.Length) = 1;
    }

    /// <summary>Adds an integer field.</summary>
    public void Add(int tag, long value)
    {
        if (!TryReserve(FixValue.CountDigits((uint)tag) + 2 + 20, out int at))
        {
            return;
        }

        at = WriteTag(tag, at);
        int n = FixValue.FormatLongUnchecked(value, _buffer, at);
        _buffer[at + n] = 1;
        _pos = at + n + 1;
    }

    /// <summary>
    /// Not a method to call: a byte (or a small constant) would otherwise bind to <c>Add(int, long)</c> and be written as
    /// a number. Use <see cref="AddChar"/> for a single character, or pass a <c>long</c> for a number.
    /// </summary>
    [Obsolete("Ambiguous: use AddChar(tag, (byte)'X') for a CHAR value, or Add(tag, 0L) for a number.", error: true)]
    public void Add(int tag, byte value) => AddChar(tag, value);

    /// <summary>Adds a CHAR field.</summary>
    public void AddChar(int tag, byte value)
    {
        if (!TryReserve(FixValue.CountDigits((uint)tag) + 3, out int at))
        {
            return;
        }

        at = WriteTag(tag, at);
        _buffer[at] = value;
        _buffer[at + 1] = 1;
    }

    /// <summary>Adds a BOOLEAN field ('Y' / 'N').</summary>
    public void Add(int tag, bool value) => AddChar(tag, value ? (byte)'Y' : (byte)'N');

    /// <summary>Adds a decimal field (price, quantity, amount) keeping its scale.</summary>
    public void Add(int tag, FixDecimal value)
    {
        if (!TryReserve(FixValue.CountDigits((uint)tag) + 2 + 48, out int at))
        {
            return;
        }

        at = WriteTag(tag, at);
        int n = value.FormatUnchecked(_buffer, at);
        _buffer[at + n] = 1;
        _pos = at + n + 1;
    }

    /// <summary>Adds a UTCTimestamp field.</summary>
    public void AddTimestamp(int tag, long unixNanoseconds, FixTimePrecision precision = FixTimePrecision.Milliseconds)
    {
        int length = FixTimeFormat.TimestampLength(precision);
        if (!TryReserve(FixValue.CountDigits((uint)tag) + 2 + length, out int at))
        {
            return;
        }

        at = WriteTag(tag, at);
        ref byte b = ref MemoryMarshal.GetArrayDataReference(_buffer);
        _timestamps.Write(unixNanoseconds, precision, ref Unsafe.Add(ref b, at));
        Unsafe.Add(ref b, at + length) = 1;
    }

    /// <summary>
    /// Appends ready-made fields ("tag=value&lt;SOH&gt;" each, e.g. a body written by <see cref="Sessions.FixBodyWriter"/>
    /// or copied from another message) as they are.
    /// </summary>
    public void AddRaw(ReadOnlySpan<byte> fields)
    {
        if (fields.IsEmpty || !TryReserve(fields.Length, out int at))
        {
            return;
        }

        fields.CopyTo(new Span<byte>(_buffer, at, fields.Length));
    }

    /// <summary>Adds a field whose value is an ASCII string (startup-known values such as DefaultApplVerID).</summary>
    public void AddAscii(int tag, string value)
    {
        if (!TryReserve(FixValue.CountDigits((uint)tag) + 2 + value.Length, out int at))
        {
            return;
        }

        at = WriteTag(tag, at);
        System.Text.Encoding.ASCII.GetBytes(value, new Span<byte>(_buffer, at, value.Length));
        _buffer[at + value.Length] = 1;
    }

    /// <summary>Adds a data field preceded by its Length field (e.g. RawDataLength 95 + RawData 96).</summary>
    public void AddData(int lengthTag, int dataTag, ReadOnlySpan<byte> data)
    {
        Add(lengthTag, data.Length);
        Add(dataTag, data);
    }

    /// <summary>Writes BodyLength, BeginString and CheckSum. Returns false (and writes nothing more) after an overflow.</summary>
    public bool Finish(out EncodedMessage message)
    {
        message = default;
        if (!_open)
        {
            ThrowNotOpen();
        }

        _open = false;
        if (_overflow || _pos + 7 > _end)
        {
            _overflow = true;
            return false;
        }

        var buffer = _buffer;
        int bodyLength = _pos - _bodyStart;
        int lengthDigits = FixValue.CountDigits((uint)bodyLength);

        // Prefix "8=<bs>|9=<len>|" right-aligned against the body.
        int prefix = 2 + _beginStringLength + 1 + 2 + lengthDigits + 1;
        int start = _bodyStart - prefix;
        ref byte b = ref MemoryMarshal.GetArrayDataReference(buffer);
        new ReadOnlySpan<byte>(_beginString, 0, _beginStringLength).CopyTo(new Span<byte>(buffer, start + 2, _beginStringLength));

        Unsafe.Add(ref b, start) = (byte)'8';
        Unsafe.Add(ref b, start + 1) = (byte)'=';
        int p = start + 2 + _beginStringLength;
        Unsafe.Add(ref b, p++) = 1;
        Unsafe.Add(ref b, p++) = (byte)'9';
        Unsafe.Add(ref b, p++) = (byte)'=';
        FixValue.WriteDigits((ulong)bodyLength, new Span<byte>(buffer, p, lengthDigits));
        p += lengthDigits;
        Unsafe.Add(ref b, p) = 1;

        int checksum = FixChecksum.Compute(new ReadOnlySpan<byte>(buffer, start, _pos - start));
        p = _pos;
        Unsafe.Add(ref b, p) = (byte)'1';
        Unsafe.Add(ref b, p + 1) = (byte)'0';
        Unsafe.Add(ref b, p + 2) = (byte)'=';
        FixChecksum.Write(checksum, new Span<byte>(buffer, p + 3, 3));
        Unsafe.Add(ref b, p + 6) = 1;
        _pos = p + 7;

        message = new EncodedMessage(buffer, start, _pos - start, bodyLength);
        return true;
    }

    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    private bool TryReserve(int maxBytes, out int at)
    {
        at = _pos;
        if (_overflow || at + maxBytes > _end - 7)
        {
            _overflow = true;
            return false;
        }

        _pos = at + maxBytes; // exact for fixed-size writes; variable-size writers reset _pos themselves
        return true;
    }

    /// <summary>Writes "tag=" and returns the position after it. Every caller reserved at least one byte after the
    /// prefix and the trailer's 7 bytes stay free, so the 8-byte store of a cached prefix never passes the end.</summary>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    private int WriteTag(int tag, int at)
    {
        var prefixes = TagPrefixes;
        if ((uint)tag < (uint)prefixes.Length)
        {
            ulong prefix = prefixes[tag];
            Unsafe.WriteUnaligned(ref Unsafe.Add(ref MemoryMarshal.GetArrayDataReference(_buffer), at), prefix);
            return at + (int)(prefix >> 56);
        }

        int digits = FixValue.CountDigits((uint)tag);
        FixValue.WriteDigits((uint)tag, new Span<byte>(_buffer, at, digits));
        _buffer[at + digits] = (byte)'=';
        return at + digits + 1;
    }

    /// <summary>"tag=" for tags below 10000, packed little-endian in the low bytes, the length in the top byte.</summary>
    private static readonly ulong[] TagPrefixes = BuildTagPrefixes();

    private static ulong[] BuildTagPrefixes()
    {
        var table = new ulong[10_000];
        Span<byte> text = stackalloc byte[8];
        for (int tag = 0; tag < table.Length; tag++)
        {
            int digits = FixValue.CountDigits((uint)tag);
            FixValue.WriteDigits((uint)tag, text.Slice(0, digits));
            text[digits] = (byte)'=';
            ulong packed = 0;
            for (int i = 0; i <= digits; i++)
            {
                packed |= (ulong)text[i] << (8 * i);
            }

            table[tag] = packed | ((ulong)(digits + 1) << 56);
        }

        return table;
    }

    [MethodImpl(MethodImplOptions.NoInlining)]
    private static void ThrowRange() => throw new ArgumentOutOfRangeException("offset", "offset and capacity must lie within the buffer");

    [MethodImpl(MethodImplOptions.NoInlining)]
    private static void ThrowBeginString() => throw new ArgumentException("BeginString must be 1 to 16 bytes", "beginString");

    [MethodImpl(MethodImplOptions.NoInlining)]
    private static void ThrowNotOpen() => throw new InvalidOperationException("Finish called without Begin.");
}

/// <summary>A finished message inside the encoder's buffer.</summary>
public readonly record struct EncodedMessage(byte[] Buffer, int Offset, int Length, int BodyLength)
{
    /// <summary>The encoded message's bytes.</summary>
    public ReadOnlySpan<byte> Span => new(Buffer, Offset, Length);

    /// <summary>The encoded message's bytes as memory (for APIs that take <see cref="ReadOnlyMemory{T}"/>).</summary>
    public ReadOnlyMemory<byte> Memory => new(Buffer, Offset, Length);
}
