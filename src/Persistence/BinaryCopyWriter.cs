using System.Buffers.Binary;
using System.Globalization;
using System.Text;

namespace RapidFix.Persistence;

/// <summary>
/// Encodes rows in PostgreSQL's binary COPY format (the <c>PGCOPY</c> header, per row a 16-bit field count and per
/// field a 32-bit length, -1 for NULL, then the value in the type's binary send format, a -1 trailer) into one buffer
/// sized at startup, handed to a raw COPY stream (<c>NpgsqlConnection.BeginRawBinaryCopy</c>) in large writes. It
/// replaces Npgsql's binary importer, whose per-value binding (a parameter resolved, bound, sized and written for
/// every field) was most of the persister's own CPU; here a field is a few stores. The encodings are those of
/// PostgreSQL's <c>*_send</c> functions (big-endian): <c>integer</c>, <c>bigint</c>, <c>"char"</c> (one byte),
/// <c>date</c> (days since 2000-01-01), <c>timestamp</c> (microseconds since 2000-01-01 00:00), <c>text</c> (UTF-8
/// bytes: the connection's client encoding), <c>bytea</c> (the bytes), <c>numeric</c> (base-10000 digits, weight,
/// sign, display scale). No allocation after construction, except to grow the buffer for a value larger than it.
/// </summary>
internal sealed class BinaryCopyWriter
{
    private static readonly byte[] Header = [(byte)'P', (byte)'G', (byte)'C', (byte)'O', (byte)'P', (byte)'Y', (byte)'\n', 0xFF, (byte)'\r', (byte)'\n', 0];

    private static readonly int EpochDay = new DateOnly(2000, 1, 1).DayNumber;
    private static readonly long EpochTicks = new DateTime(2000, 1, 1, 0, 0, 0, DateTimeKind.Unspecified).Ticks;

    private byte[] _buffer;
    private int _length;
    private Stream? _stream;
    private long _rows;
    private readonly bool _arena;

    /// <summary>
    /// A writer whose buffer holds <paramref name="bufferBytes"/> before it is handed to the stream; with
    /// <paramref name="arena"/>, a writer with no stream whose buffer keeps every row written since <see cref="Reset"/>
    /// (grown, by doubling, when full): a batch's rows of one table, encoded once and copied by range
    /// (<see cref="EncodedBatch"/>).
    /// </summary>
    public BinaryCopyWriter(int bufferBytes = 128 * 1024, bool arena = false)
    {
        _buffer = new byte[Math.Max(bufferBytes, 1024)];
        _arena = arena;
    }

    /// <summary>The bytes written since <see cref="Reset"/> (an arena's rows).</summary>
    public ReadOnlySpan<byte> Written => _buffer.AsSpan(0, _length);

    /// <summary>Bytes written since <see cref="Reset"/>.</summary>
    public int Length => _length;

    /// <summary>An arena emptied for the next batch (its buffer kept).</summary>
    public void Reset()
    {
        _length = 0;
        _rows = 0;
    }

    /// <summary>The COPY header (signature, flags, extension length): what a COPY's data starts with.</summary>
    public static ReadOnlySpan<byte> CopyHeader => [(byte)'P', (byte)'G', (byte)'C', (byte)'O', (byte)'P', (byte)'Y', (byte)'\n', 0xFF, (byte)'\r', (byte)'\n', 0, 0, 0, 0, 0, 0, 0, 0, 0];

    /// <summary>The COPY trailer (a field count of -1): what a COPY's data ends with.</summary>
    public static ReadOnlySpan<byte> CopyTrailer => [0xFF, 0xFF];

    /// <summary>Rows started since <see cref="Begin"/>.</summary>
    public long Rows => _rows;

    /// <summary>Starts a COPY's data on <paramref name="stream"/>: the header.</summary>
    public void Begin(Stream stream)
    {
        _stream = stream;
        _length = 0;
        _rows = 0;
        Ensure(Header.Length + 8);
        Header.CopyTo(_buffer, _length);
        _length += Header.Length;
        BinaryPrimitives.WriteInt32BigEndian(_buffer.AsSpan(_length), 0); // flags
        BinaryPrimitives.WriteInt32BigEndian(_buffer.AsSpan(_length + 4), 0); // header extension length
        _length += 8;
    }

    /// <summary>Ends the COPY's data: the trailer, and everything still buffered written to the stream.</summary>
    public void End()
    {
        Ensure(2);
        BinaryPrimitives.WriteInt16BigEndian(_buffer.AsSpan(_length), -1);
        _length += 2;
        Flush();
        _stream = null;
    }

    /// <summary>Starts a row of <paramref name="fields"/> fields.</summary>
    public void StartRow(short fields)
    {
        Ensure(2);
        BinaryPrimitives.WriteInt16BigEndian(_buffer.AsSpan(_length), fields);
        _length += 2;
        _rows++;
    }

    public void Null()
    {
        Ensure(4);
        BinaryPrimitives.WriteInt32BigEndian(_buffer.AsSpan(_length), -1);
        _length += 4;
    }

    public void Int32(int value)
    {
        Ensure(8);
        var span = _buffer.AsSpan(_length);
        BinaryPrimitives.WriteInt32BigEndian(span, 4);
        BinaryPrimitives.WriteInt32BigEndian(span[4..], value);
        _length += 8;
    }

    public void Int64(long value)
    {
        Ensure(12);
        var span = _buffer.AsSpan(_length);
        BinaryPrimitives.WriteInt32BigEndian(span, 8);
        BinaryPrimitives.WriteInt64BigEndian(span[4..], value);
        _length += 12;
    }

    /// <summary>A <c>"char"</c> (PostgreSQL's one-byte type).</summary>
    public void Char(char value)
    {
        Ensure(5);
        BinaryPrimitives.WriteInt32BigEndian(_buffer.AsSpan(_length), 1);
        _buffer[_length + 4] = (byte)value;
        _length += 5;
    }

    public void Char(char? value)
    {
        if (value is { } v)
        {
            Char(v);
        }
        else
        {
            Null();
        }
    }

    public void Date(DateOnly value)
    {
        Ensure(8);
        var span = _buffer.AsSpan(_length);
        BinaryPrimitives.WriteInt32BigEndian(span, 4);
        BinaryPrimitives.WriteInt32BigEndian(span[4..], value.DayNumber - EpochDay);
        _length += 8;
    }

    public void Date(DateOnly? value)
    {
        if (value is { } v)
        {
            Date(v);
        }
        else
        {
            Null();
        }
    }

    /// <summary>A <c>timestamp</c> (without time zone), to the microsecond (the parser keeps at most six digits).</summary>
    public void Timestamp(DateTime? value)
    {
        if (value is not { } v)
        {
            Null();
            return;
        }

        Ensure(12);
        var span = _buffer.AsSpan(_length);
        BinaryPrimitives.WriteInt32BigEndian(span, 8);
        BinaryPrimitives.WriteInt64BigEndian(span[4..], (v.Ticks - EpochTicks) / TimeSpan.TicksPerMicrosecond);
        _length += 12;
    }

    /// <summary>A <c>text</c> from a string, encoded to UTF-8 straight into the buffer; NULL for null.</summary>
    public void Text(string? value)
    {
        if (value is null)
        {
            Null();
            return;
        }

        Ensure(4 + Encoding.UTF8.GetMaxByteCount(value.Length));
        int written = Encoding.UTF8.GetBytes(value, _buffer.AsSpan(_length + 4));
        BinaryPrimitives.WriteInt32BigEndian(_buffer.AsSpan(_length), written);
        _length += 4 + written;
    }

    /// <summary>
    /// A <c>text</c> from a message's bytes: as they are when they are UTF-8 (PostgreSQL checks them, as it checks any
    /// text: a NUL is refused); bytes that are not UTF-8 are decoded with U+FFFD for what is not, as a string of them
    /// always was (a participant's Latin-1 text is kept readable, not refused).
    /// </summary>
    public void Text(ReadOnlySpan<byte> utf8)
    {
        if (!System.Text.Ascii.IsValid(utf8) && !System.Text.Unicode.Utf8.IsValid(utf8))
        {
            Text(Encoding.UTF8.GetString(utf8));
            return;
        }

        Ensure(4 + utf8.Length);
        BinaryPrimitives.WriteInt32BigEndian(_buffer.AsSpan(_length), utf8.Length);
        utf8.CopyTo(_buffer.AsSpan(_length + 4));
        _length += 4 + utf8.Length;
    }

    /// <summary>A <c>text</c> of two parts (<c>"rejected " + code</c>).</summary>
    public void Text(ReadOnlySpan<byte> first, ReadOnlySpan<byte> second)
    {
        if (!System.Text.Ascii.IsValid(second) && !System.Text.Unicode.Utf8.IsValid(second))
        {
            Text(Encoding.UTF8.GetString(first) + Encoding.UTF8.GetString(second));
            return;
        }

        Ensure(4 + first.Length + second.Length);
        BinaryPrimitives.WriteInt32BigEndian(_buffer.AsSpan(_length), first.Length + second.Length);
        first.CopyTo(_buffer.AsSpan(_length + 4));
        second.CopyTo(_buffer.AsSpan(_length + 4 + first.Length));
        _length += 4 + first.Length + second.Length;
    }

    /// <summary>A <c>bytea</c>.</summary>
    public void Bytes(ReadOnlySpan<byte> value)
    {
        Ensure(4 + value.Length);
        BinaryPrimitives.WriteInt32BigEndian(_buffer.AsSpan(_length), value.Length);
        value.CopyTo(_buffer.AsSpan(_length + 4));
        _length += 4 + value.Length;
    }

    /// <summary>
    /// A <c>numeric</c> with the decimal's digits and scale (12525.00 keeps its two decimals, as Npgsql wrote it):
    /// formatted into a stack buffer, then grouped into base-10000 digits; NULL for null.
    /// </summary>
    public void Numeric(decimal? value)
    {
        if (value is not { } v)
        {
            Null();
            return;
        }

        Span<char> text = stackalloc char[64];
        if (!v.TryFormat(text, out int written, default, CultureInfo.InvariantCulture))
        {
            throw new InvalidOperationException("decimal did not format"); // cannot happen: at most 31 characters
        }

        text = text[..written];
        bool negative = text[0] == '-';
        if (negative)
        {
            text = text[1..];
        }

        int dot = text.IndexOf('.');
        var whole = dot < 0 ? text : text[..dot];
        var fraction = dot < 0 ? [] : text[(dot + 1)..];
        while (whole.Length > 0 && whole[0] == '0')
        {
            whole = whole[1..];
        }

        // Base-10000 groups: the whole part padded on the left, the fraction on the right, to four digits.
        Span<short> groups = stackalloc short[24];
        int wholeGroups = (whole.Length + 3) / 4, count = 0;
        int lead = wholeGroups * 4 - whole.Length;
        for (int g = 0; g < wholeGroups; g++)
        {
            int d = 0;
            for (int i = g * 4 - lead; i < g * 4 - lead + 4; i++)
            {
                d = d * 10 + (i >= 0 ? whole[i] - '0' : 0);
            }

            groups[count++] = (short)d;
        }

        for (int g = 0; g < (fraction.Length + 3) / 4; g++)
        {
            int d = 0;
            for (int i = g * 4; i < g * 4 + 4; i++)
            {
                d = d * 10 + (i < fraction.Length ? fraction[i] - '0' : 0);
            }

            groups[count++] = (short)d;
        }

        int weight = wholeGroups - 1, first = 0;
        while (first < count && groups[first] == 0)
        {
            first++;
            weight--;
        }

        while (count > first && groups[count - 1] == 0)
        {
            count--;
        }

        int ndigits = count - first;
        if (ndigits == 0)
        {
            weight = 0;
            negative = false;
        }

        Ensure(4 + 8 + ndigits * 2);
        var span = _buffer.AsSpan(_length);
        BinaryPrimitives.WriteInt32BigEndian(span, 8 + ndigits * 2);
        BinaryPrimitives.WriteInt16BigEndian(span[4..], (short)ndigits);
        BinaryPrimitives.WriteInt16BigEndian(span[6..], (short)weight);
        BinaryPrimitives.WriteUInt16BigEndian(span[8..], negative ? (ushort)0x4000 : (ushort)0);
        BinaryPrimitives.WriteInt16BigEndian(span[10..], (short)fraction.Length);
        for (int i = 0; i < ndigits; i++)
        {
            BinaryPrimitives.WriteInt16BigEndian(span[(12 + i * 2)..], groups[first + i]);
        }

        _length += 12 + ndigits * 2;
    }

    /// <summary>Room for <paramref name="bytes"/> more: the buffer is handed to the stream first when it lacks it, and grown only for a value larger than the whole buffer.</summary>
    private void Ensure(int bytes)
    {
        if (_length + bytes <= _buffer.Length)
        {
            return;
        }

        if (_arena)
        {
            Array.Resize(ref _buffer, Math.Max(_length + bytes, _buffer.Length * 2));
            return;
        }

        Flush();
        if (bytes > _buffer.Length)
        {
            _buffer = new byte[Math.Max(bytes, _buffer.Length * 2)];
        }
    }

    private void Flush()
    {
        if (_length > 0)
        {
            (_stream ?? throw new InvalidOperationException("no COPY begun")).Write(_buffer, 0, _length);
            _length = 0;
        }
    }
}
