using System.Buffers.Binary;
using System.Buffers.Text;
using System.Globalization;
using System.Numerics;
using System.Runtime.InteropServices;
using System.Text;
using HdrHistogram;
using Microsoft.Win32.SafeHandles;

namespace RapidFix.TradeDriver.Measure;

/// <summary>
/// Encodes one interval histogram as a line of an HdrHistogram interval log (<c>.hlog</c>, format 1.3), into a
/// buffer allocated once: <c>Tag=ack,START,LENGTH,MAX,BASE64</c>, where BASE64 is the histogram's compressed V2
/// encoding (cookie 0x1c849314, the compressed length, then a zlib stream of the V2 encoding: cookie 0x1c849313, the
/// payload length, normalizing offset 0, significant digits, lowest and highest trackable values, conversion ratio
/// 1.0, then each count as a ZigZag LEB128-64b9B long, a run of zeros as its negated length, up to the highest
/// non-zero count). What HdrHistogram's own writer makes allocates: a counts array the size of the histogram, a
/// deflate stream and its buffers, the base64 string and the UTF-16 line, about 2.6 MB an interval at the driver's
/// three channels (docs/measurement.md). This one reads the counts through <see cref="HistogramBase.GetCountAtValue"/>
/// and compresses with <see cref="FixedDeflate"/> (deflate's fixed Huffman codes and LZ77 matches, tables allocated
/// once), then the zlib stream's Adler-32: every reader inflates it (the Java and .NET log readers,
/// <c>HistogramLogProcessor</c>).
/// </summary>
internal sealed class HlogEncoder
{
    private const int CompressedCookie = 0x1c849304 | 0x10;
    private const int UncompressedCookie = 0x1c849303 | 0x10;
    private const int HeaderBytes = 40;
    private const double MaxValueUnitRatio = 1_000_000.0; // HdrHistogram's writer: nanoseconds in the log's max column as milliseconds

    private readonly int _counts;
    private readonly int _halfMagnitude;
    private readonly int _halfCount;
    private readonly int _unitMagnitude;
    private readonly byte[] _payload;
    private readonly byte[] _compressed;
    private readonly byte[] _line;
    private readonly IDeflater _deflate;

    /// <summary>
    /// An encoder for histograms of one shape (lowest, highest, digits), its buffers sized for the worst case (startup).
    /// <paramref name="systemZlib"/>: deflate with the system's zlib when it loads (the ratio HdrHistogram's own
    /// writer gets), else with <see cref="FixedDeflate"/>.
    /// </summary>
    public HlogEncoder(HistogramBase shape, bool systemZlib = true)
    {
        _halfCount = shape.SubBucketCount / 2;
        _halfMagnitude = BitOperations.Log2((uint)_halfCount);
        _unitMagnitude = BitOperations.Log2((ulong)shape.LowestTrackableValue);
        _counts = (shape.BucketCount + 1) * _halfCount;
        Lowest = shape.LowestTrackableValue;
        Highest = shape.HighestTrackableValue;
        Digits = shape.NumberOfSignificantValueDigits;
        _payload = GC.AllocateArray<byte>(HeaderBytes + (_counts * 9), pinned: true);
        _compressed = GC.AllocateArray<byte>(8 + 2 + FixedDeflate.Bound(_payload.Length) + 4, pinned: true);
        _deflate = (systemZlib ? SystemZlib.TryCreate() : null) ?? (IDeflater)new FixedDeflate();
        _line = new byte[256 + (((_compressed.Length + 2) / 3) * 4)];
    }

    public long Lowest { get; }

    public long Highest { get; }

    public int Digits { get; }

    /// <summary>Which deflater compresses: the system's zlib, or the fallback.</summary>
    public string Deflater => _deflate is SystemZlib ? "zlib" : "fixed-Huffman deflate";

    /// <summary>
    /// The highest value recorded (its bucket's highest equivalent value), 0 when empty: what
    /// <c>HistogramExtensions.GetMaxValue</c> gives, without its enumerator and LINQ (which allocate).
    /// </summary>
    public long MaxValue(HistogramBase h)
    {
        int last = LastNonZero(h);
        // Twice, as GetMaxValue does (its iterator's value is the highest equivalent already): the same figure, the
        // library's top-bucket rounding included.
        return last < 0 ? 0 : h.HighestEquivalentValue(h.HighestEquivalentValue(ValueAt(last)));
    }

    /// <summary>
    /// The log line of <paramref name="h"/> (newline included), valid until the next call: tag, start and length
    /// of the interval in seconds (from milliseconds since the epoch), its max in milliseconds, the compressed
    /// histogram in base64. Allocates nothing.
    /// </summary>
    public ReadOnlySpan<byte> Line(HistogramBase h, ReadOnlySpan<byte> tag, long startMs, long endMs)
    {
        var line = _line.AsSpan();
        int at = 0;
        if (!tag.IsEmpty)
        {
            at += Put(line[at..], "Tag="u8);
            at += Put(line[at..], tag);
            line[at++] = (byte)',';
        }

        double start = startMs / 1000.0;
        at += Format(line[at..], start);
        line[at++] = (byte)',';
        at += Format(line[at..], (endMs / 1000.0) - start);
        line[at++] = (byte)',';
        at += Format(line[at..], MaxValue(h) / MaxValueUnitRatio);
        line[at++] = (byte)',';
        int compressed = Compress(h);
        Base64.EncodeToUtf8(_compressed.AsSpan(0, compressed), line[at..], out _, out int written);
        at += written;
        line[at++] = (byte)'\n';
        return line[..at];
    }

    /// <summary>The compressed V2 encoding of <paramref name="h"/> (what a log line carries in base64), valid until the next call.</summary>
    public ReadOnlySpan<byte> Compressed(HistogramBase h) => _compressed.AsSpan(0, Compress(h));

    private int Compress(HistogramBase h)
    {
        int payload = Encode(h);
        BinaryPrimitives.WriteInt32BigEndian(_compressed, CompressedCookie);
        int zlib = _deflate.Zlib(_payload.AsSpan(0, payload), _compressed.AsSpan(8));
        BinaryPrimitives.WriteInt32BigEndian(_compressed.AsSpan(4), zlib);
        return 8 + zlib;
    }

    // The uncompressed V2 encoding into _payload; returns its length.
    private int Encode(HistogramBase h)
    {
        var p = _payload.AsSpan();
        BinaryPrimitives.WriteInt32BigEndian(p, UncompressedCookie);
        BinaryPrimitives.WriteInt32BigEndian(p[8..], 0); // normalizing index offset
        BinaryPrimitives.WriteInt32BigEndian(p[12..], h.NumberOfSignificantValueDigits);
        BinaryPrimitives.WriteInt64BigEndian(p[16..], h.LowestTrackableValue);
        BinaryPrimitives.WriteInt64BigEndian(p[24..], h.HighestTrackableValue);
        BinaryPrimitives.WriteInt64BigEndian(p[32..], BitConverter.DoubleToInt64Bits(1.0));
        int relevant = Math.Max(1, LastNonZero(h) + 1); // an empty histogram: one zero count, as HdrHistogram's
        int at = HeaderBytes;
        int i = 0;
        while (i < relevant)
        {
            long count = h.GetCountAtValue(ValueAt(i++));
            if (count == 0)
            {
                long zeros = 1;
                while (i < relevant && h.GetCountAtValue(ValueAt(i)) == 0)
                {
                    zeros++;
                    i++;
                }

                at += ZigZag(p[at..], zeros > 1 ? -zeros : 0);
            }
            else
            {
                at += ZigZag(p[at..], count);
            }
        }

        BinaryPrimitives.WriteInt32BigEndian(p[4..], at - HeaderBytes);
        return at;
    }

    // The index of the highest non-zero count, -1 when empty: counted up from the bottom until the counts seen
    // make the total (the interval histograms are copies nobody records into), so only the recorded range is read.
    private int LastNonZero(HistogramBase h)
    {
        long total = h.TotalCount, seen = 0;
        int last = -1;
        for (int i = 0; i < _counts && seen < total; i++)
        {
            long count = h.GetCountAtValue(ValueAt(i));
            if (count != 0)
            {
                seen += count;
                last = i;
            }
        }

        return last;
    }

    // The lowest value of counts index i (HdrHistogram's valueFromIndex).
    private long ValueAt(int index)
    {
        int bucket = (index >> _halfMagnitude) - 1;
        int sub = (index & (_halfCount - 1)) + _halfCount;
        if (bucket < 0)
        {
            sub -= _halfCount;
            bucket = 0;
        }

        return (long)sub << (bucket + _unitMagnitude);
    }

    // ZigZag, then LEB128 of at most 9 bytes (the 9th carries 8 bits): HdrHistogram's LEB128-64b9B variant.
    private static int ZigZag(Span<byte> into, long value)
    {
        ulong v = (ulong)((value << 1) ^ (value >> 63));
        int n = 0;
        while (n < 8 && v >= 0x80)
        {
            into[n++] = (byte)(v | 0x80);
            v >>= 7;
        }

        into[n++] = (byte)v;
        return n;
    }

    internal static uint Adler32(ReadOnlySpan<byte> data)
    {
        const uint mod = 65_521;
        uint a = 1, b = 0;
        while (!data.IsEmpty)
        {
            int n = Math.Min(5552, data.Length); // the most bytes before b can overflow 32 bits
            foreach (byte x in data[..n])
            {
                a += x;
                b += a;
            }

            a %= mod;
            b %= mod;
            data = data[n..];
        }

        return (b << 16) | a;
    }

    private static int Put(Span<byte> into, ReadOnlySpan<byte> text)
    {
        text.CopyTo(into);
        return text.Length;
    }

    private static int Format(Span<byte> into, double value) =>
        value.TryFormat(into, out int n, "F3", CultureInfo.InvariantCulture) ? n : 0;
}

/// <summary>A zlib stream (RFC 1950: header, deflate, Adler-32) of a buffer into another, allocation-free.</summary>
internal interface IDeflater
{
    /// <summary>Compresses <paramref name="data"/> into <paramref name="into"/> (room for <see cref="FixedDeflate.Bound"/> plus 6); returns the bytes written.</summary>
    int Zlib(ReadOnlySpan<byte> data, Span<byte> into);
}

/// <summary>
/// The system's zlib (<c>libz.so.1</c>, its documented C API) through one <c>z_stream</c> kept in native memory:
/// <c>deflateInit2_</c> once (startup), then per histogram <c>deflateReset</c> and one <c>deflate(Z_FINISH)</c> from
/// a pinned buffer into a pinned buffer: no managed allocation, no native one either after the first. The level
/// and window are zlib's defaults (6, 32 KiB), the ratio HdrHistogram's own writer gets through .NET's
/// DeflateStream. Null from <see cref="TryCreate"/> where zlib does not load (not Linux, or no libz): the encoder
/// then uses <see cref="FixedDeflate"/>.
/// </summary>
internal sealed unsafe class SystemZlib : IDeflater, IDisposable
{
    private const string Library = "libz.so.1";
    private const int StreamBytes = 112; // sizeof(z_stream) on LP64: 4 pointers, 3 uLongs, 2 uInts, 3 function/opaque pointers, int, 2 uLongs
    private const int NextIn = 0, AvailIn = 8, NextOut = 24, AvailOut = 32, TotalOut = 40;
    private const int ZFinish = 4, ZStreamEnd = 1, ZOk = 0;
    private nint _stream;
    private readonly nint _version;

    private SystemZlib(nint stream, nint version)
    {
        _stream = stream;
        _version = version;
    }

    ~SystemZlib() => Free();

    /// <summary>A deflater on the system's zlib, or null when it does not load (startup).</summary>
    public static SystemZlib? TryCreate()
    {
        if (!OperatingSystem.IsLinux() || IntPtr.Size != 8)
        {
            return null;
        }

        nint stream = Marshal.AllocHGlobal(StreamBytes);
        nint version = Marshal.StringToHGlobalAnsi("1.2.11"); // zlib checks its first character only
        new Span<byte>((void*)stream, StreamBytes).Clear(); // zalloc, zfree, opaque null: zlib's own allocator
        try
        {
            if (deflateInit2_(stream, 6, 8, 15, 8, 0, version, StreamBytes) == ZOk)
            {
                return new SystemZlib(stream, version);
            }
        }
        catch (Exception e) when (e is DllNotFoundException or EntryPointNotFoundException or BadImageFormatException)
        {
        }

        Marshal.FreeHGlobal(stream);
        Marshal.FreeHGlobal(version);
        return null;
    }

    /// <inheritdoc/>
    /// <remarks><paramref name="data"/> and <paramref name="into"/> must be pinned (the encoder's buffers are).</remarks>
    public int Zlib(ReadOnlySpan<byte> data, Span<byte> into)
    {
        if (deflateReset(_stream) != ZOk)
        {
            throw new InvalidOperationException("zlib: deflateReset failed");
        }

        fixed (byte* input = data)
        fixed (byte* output = into)
        {
            Marshal.WriteIntPtr(_stream, NextIn, (nint)input);
            Marshal.WriteInt32(_stream, AvailIn, data.Length);
            Marshal.WriteIntPtr(_stream, NextOut, (nint)output);
            Marshal.WriteInt32(_stream, AvailOut, into.Length);
            if (deflate(_stream, ZFinish) != ZStreamEnd)
            {
                throw new InvalidOperationException("zlib: deflate did not finish (output buffer too small)");
            }

            return (int)Marshal.ReadInt64(_stream, TotalOut);
        }
    }

    public void Dispose()
    {
        Free();
        GC.SuppressFinalize(this);
    }

    private void Free()
    {
        if (_stream != 0)
        {
            deflateEnd(_stream);
            Marshal.FreeHGlobal(_stream);
            Marshal.FreeHGlobal(_version);
            _stream = 0;
        }
    }

    [DllImport(Library)]
    private static extern int deflateInit2_(nint stream, int level, int method, int windowBits, int memLevel, int strategy, nint version, int streamSize);

    [DllImport(Library)]
    private static extern int deflateReset(nint stream);

    [DllImport(Library)]
    private static extern int deflate(nint stream, int flush);

    [DllImport(Library)]
    private static extern int deflateEnd(nint stream);
}

/// <summary>
/// Deflate (RFC 1951) into a caller's buffer without allocating: one final block with the fixed Huffman codes, greedy
/// LZ77 matches (3 to 258 bytes, up to 32 KiB back) found through a hash of the next three bytes. Not zlib's
/// ratio, a little faster than it, and enough for an interval histogram's V2 encoding (runs of small counts). It
/// matters beyond size: HdrHistogram.NET's log reader inflates a line with a single DeflateStream.Read, which
/// returns what its first 8 KiB of input inflate to, so a line must compress well to be read back whole (stored,
/// uncompressed blocks were tried first and failed that reader above about 8 KB). The fallback where the system's
/// zlib does not load (<see cref="SystemZlib"/>): about 1.3 to 1.5 times zlib's size on interval histograms.
/// </summary>
internal sealed class FixedDeflate : IDeflater
{
    private const int Window = 32_768;
    private const int HashBits = 15;
    private const int MinMatch = 3;
    private const int MaxMatch = 258;

    private static ReadOnlySpan<ushort> LengthBase => [3, 4, 5, 6, 7, 8, 9, 10, 11, 13, 15, 17, 19, 23, 27, 31, 35, 43, 51, 59, 67, 83, 99, 115, 131, 163, 195, 227, 258];

    private static ReadOnlySpan<byte> LengthExtra => [0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2, 2, 3, 3, 3, 3, 4, 4, 4, 4, 5, 5, 5, 5, 0];

    private static ReadOnlySpan<ushort> DistanceBase => [1, 2, 3, 4, 5, 7, 9, 13, 17, 25, 33, 49, 65, 97, 129, 193, 257, 385, 513, 769, 1025, 1537, 2049, 3073, 4097, 6145, 8193, 12289, 16385, 24577];

    private static ReadOnlySpan<byte> DistanceExtra => [0, 0, 0, 0, 1, 1, 2, 2, 3, 3, 4, 4, 5, 5, 6, 6, 7, 7, 8, 8, 9, 9, 10, 10, 11, 11, 12, 12, 13, 13];

    private readonly int[] _head = new int[1 << HashBits];
    private readonly ushort[] _code = new ushort[288]; // the fixed literal/length codes, bit-reversed for LSB-first output
    private readonly byte[] _bits = new byte[288];
    private ulong _buffer;
    private int _count;
    private int _at;

    public FixedDeflate()
    {
        for (int symbol = 0; symbol < 288; symbol++)
        {
            (int code, int bits) = symbol switch
            {
                < 144 => (0x30 + symbol, 8),
                < 256 => (0x190 + symbol - 144, 9),
                < 280 => (symbol - 256, 7),
                _ => (0xC0 + symbol - 280, 8),
            };
            _code[symbol] = Reverse(code, bits);
            _bits[symbol] = (byte)bits;
        }
    }

    /// <summary>The most bytes <see cref="Compress"/> writes for <paramref name="length"/> input bytes (every byte a 9-bit literal).</summary>
    public static int Bound(int length) => (length * 9 / 8) + 16;

    /// <inheritdoc/>
    public int Zlib(ReadOnlySpan<byte> data, Span<byte> into)
    {
        into[0] = 0x78; // zlib: deflate, 32 KiB window
        into[1] = 0x01; // no dictionary; (0x78 << 8 | 0x01) % 31 == 0
        int at = 2 + Compress(data, into[2..]);
        BinaryPrimitives.WriteUInt32BigEndian(into[at..], HlogEncoder.Adler32(data));
        return at + 4;
    }

    /// <summary>Deflates <paramref name="data"/> into <paramref name="into"/> (at least <see cref="Bound"/> bytes); returns the bytes written.</summary>
    public int Compress(ReadOnlySpan<byte> data, Span<byte> into)
    {
        Array.Fill(_head, -1);
        _buffer = 0;
        _count = 0;
        _at = 0;
        Put(into, 1, 1); // BFINAL
        Put(into, 1, 2); // BTYPE 01: fixed Huffman codes
        int i = 0;
        while (i < data.Length)
        {
            int length = 0, distance = 0;
            if (i + MinMatch <= data.Length)
            {
                int hash = Hash(data, i);
                int candidate = _head[hash];
                _head[hash] = i;
                if (candidate >= 0 && i - candidate <= Window)
                {
                    int max = Math.Min(MaxMatch, data.Length - i);
                    while (length < max && data[candidate + length] == data[i + length])
                    {
                        length++;
                    }

                    distance = i - candidate;
                }
            }

            if (length >= MinMatch)
            {
                Length(into, length);
                Distance(into, distance);
                for (int j = i + 1; j < i + length && j + MinMatch <= data.Length; j++)
                {
                    _head[Hash(data, j)] = j;
                }

                i += length;
            }
            else
            {
                Symbol(into, data[i++]);
            }
        }

        Symbol(into, 256); // end of block
        if (_count > 0)
        {
            into[_at++] = (byte)_buffer;
        }

        return _at;
    }

    private static int Hash(ReadOnlySpan<byte> data, int i) =>
        (int)(((uint)(data[i] | (data[i + 1] << 8) | (data[i + 2] << 16)) * 2654435761u) >> (32 - HashBits));

    private static ushort Reverse(int code, int bits)
    {
        int r = 0;
        for (int b = 0; b < bits; b++)
        {
            r = (r << 1) | ((code >> b) & 1);
        }

        return (ushort)r;
    }

    private void Symbol(Span<byte> into, int symbol) => Put(into, _code[symbol], _bits[symbol]);

    private void Length(Span<byte> into, int length)
    {
        int s = LengthBase.Length - 1;
        while (LengthBase[s] > length)
        {
            s--;
        }

        Symbol(into, 257 + s);
        Put(into, (uint)(length - LengthBase[s]), LengthExtra[s]);
    }

    private void Distance(Span<byte> into, int distance)
    {
        int s = DistanceBase.Length - 1;
        while (DistanceBase[s] > distance)
        {
            s--;
        }

        Put(into, Reverse(s, 5), 5);
        Put(into, (uint)(distance - DistanceBase[s]), DistanceExtra[s]);
    }

    // Appends the low `bits` bits of `value`, least significant first (deflate's bit order).
    private void Put(Span<byte> into, uint value, int bits)
    {
        _buffer |= (ulong)value << _count;
        _count += bits;
        while (_count >= 8)
        {
            into[_at++] = (byte)_buffer;
            _buffer >>= 8;
            _count -= 8;
        }
    }
}

/// <summary>
/// An HdrHistogram interval log file (<c>.hlog</c>): the header written when it is created (startup), then one
/// line per interval and channel appended through a file handle opened once, from <see cref="HlogEncoder"/>'s
/// buffer: nothing is allocated per interval. ASCII, as the Java and .NET log readers expect.
/// </summary>
internal sealed class HlogFile : IDisposable
{
    private readonly SafeFileHandle _file;
    private readonly HlogEncoder _encoder;
    private readonly long _startMs;
    private long _offset;

    public HlogFile(string path, DateTime start, HlogEncoder encoder)
    {
        _encoder = encoder;
        _file = File.OpenHandle(path, FileMode.Create, FileAccess.Write, FileShare.Read);
        var utc = start.ToUniversalTime();
        _startMs = new DateTimeOffset(utc).ToUnixTimeMilliseconds();
        // The header HdrHistogram's writer makes: format version, start time, legend.
        string header = string.Create(CultureInfo.InvariantCulture,
            $"#[Histogram log format version 1.3]\n#[StartTime: {_startMs / 1000.0:F3} (seconds since epoch), {utc:o}]\n\"StartTimestamp\",\"Interval_Length\",\"Interval_Max\",\"Interval_Compressed_Histogram\"\n");
        Write(Encoding.ASCII.GetBytes(header));
    }

    /// <summary>Appends one interval's histogram (its start and end, in ticks from the log's start). Allocates nothing.</summary>
    public void Append(HistogramBase h, ReadOnlySpan<byte> tag, long fromTicks, long toTicks, long frequency) =>
        Write(_encoder.Line(h, tag, _startMs + (fromTicks * 1000 / frequency), _startMs + (toTicks * 1000 / frequency)));

    public void Dispose() => _file.Dispose();

    private void Write(ReadOnlySpan<byte> bytes)
    {
        RandomAccess.Write(_file, bytes, _offset);
        _offset += bytes.Length;
    }
}
