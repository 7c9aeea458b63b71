namespace RapidFix.Pools.Diagnostics;

/// <summary>
/// A compact binary form of a <see cref="LatencyHistogram"/>, carried in trace events so that a reader can merge
/// intervals into exact whole-run distributions: a version byte, the sub-bucket bits, the count, the exact sum and
/// maximum, then (gap, count) pairs for the non-empty buckets, every number a LEB128 varint. Trace events carry it
/// as hexadecimal text (<see cref="EncodeText"/>): trace readers decode string fields everywhere, byte arrays not.
/// </summary>
public static class LatencyHistogramCodec
{
    /// <summary>The format written by <see cref="Encode"/>.</summary>
    public const byte FormatVersion = 1;

    /// <summary>Room that always suffices: the header plus a (gap, count) pair of at most 10 + 10 bytes per bucket.</summary>
    public static int MaxEncodedLength => 2 + 3 * 10 + LatencyHistogram.BucketCount * 20;

    /// <summary>Writes <paramref name="histogram"/> into <paramref name="destination"/>; returns the length, or -1 when it does not fit.</summary>
    public static int Encode(LatencyHistogram histogram, Span<byte> destination)
    {
        ArgumentNullException.ThrowIfNull(histogram);
        if (destination.Length < 2)
        {
            return -1;
        }

        destination[0] = FormatVersion;
        destination[1] = LatencyHistogram.SubBucketBits;
        int at = 2;
        if (!TryWrite(histogram.TotalCount, destination, ref at) ||
            !TryWrite(histogram.Sum, destination, ref at) ||
            !TryWrite(histogram.Max, destination, ref at))
        {
            return -1;
        }

        int last = -1;
        int buckets = LatencyHistogram.BucketCount;
        for (int i = 0; i < buckets; i++)
        {
            long count = histogram.CountAt(i);
            if (count == 0)
            {
                continue;
            }

            if (!TryWrite(i - last - 1, destination, ref at) || !TryWrite(count, destination, ref at))
            {
                return -1;
            }

            last = i;
        }

        return at;
    }

    /// <summary>
    /// Writes <paramref name="histogram"/> as hexadecimal text into <paramref name="destination"/>, using
    /// <paramref name="scratch"/> for the binary form; returns the number of characters, or -1 when it does not fit.
    /// </summary>
    public static int EncodeText(LatencyHistogram histogram, Span<byte> scratch, Span<char> destination)
    {
        int length = Encode(histogram, scratch);
        if (length < 0 || destination.Length < length * 2)
        {
            return -1;
        }

        const string Digits = "0123456789abcdef";
        for (int i = 0; i < length; i++)
        {
            byte b = scratch[i];
            destination[2 * i] = Digits[b >> 4];
            destination[(2 * i) + 1] = Digits[b & 0xF];
        }

        return length * 2;
    }

    /// <summary>Decodes the text form (<see cref="EncodeText"/>) into <paramref name="into"/>; false, with the reason, when it is not one.</summary>
    public static bool TryDecodeTextInto(string text, LatencyHistogram into, out string? error)
    {
        ArgumentNullException.ThrowIfNull(text);
        byte[] bytes;
        try
        {
            bytes = Convert.FromHexString(text);
        }
        catch (FormatException)
        {
            error = "histogram text is not hexadecimal";
            return false;
        }

        return TryDecodeInto(bytes, into, out error);
    }

    /// <summary>
    /// Adds the values encoded in <paramref name="source"/> to <paramref name="into"/> (bucket counts, exact sum and
    /// maximum). False, with <paramref name="error"/> set, when the bytes are not a histogram of this format.
    /// </summary>
    public static bool TryDecodeInto(ReadOnlySpan<byte> source, LatencyHistogram into, out string? error)
    {
        ArgumentNullException.ThrowIfNull(into);
        error = null;
        if (source.Length < 2 || source[0] != FormatVersion || source[1] != LatencyHistogram.SubBucketBits)
        {
            error = source.Length < 2 ? "histogram too short" : $"unknown histogram format {source[0]}/{source[1]}";
            return false;
        }

        int at = 2;
        if (!TryRead(source, ref at, out long total) || !TryRead(source, ref at, out long sum) || !TryRead(source, ref at, out long max))
        {
            error = "histogram header truncated";
            return false;
        }

        var decoded = new LatencyHistogram();
        long seen = 0;
        int index = -1;
        while (at < source.Length)
        {
            if (!TryRead(source, ref at, out long gap) || !TryRead(source, ref at, out long count))
            {
                error = "histogram bucket list truncated";
                return false;
            }

            index += (int)gap + 1;
            if (index >= LatencyHistogram.BucketCount || count <= 0)
            {
                error = $"histogram bucket {index} out of range";
                return false;
            }

            decoded.AddToBucket(index, count);
            seen += count;
        }

        if (seen != total)
        {
            error = $"histogram counts add up to {seen}, header says {total}";
            return false;
        }

        into.AddDecoded(decoded, sum, max);
        return true;
    }

    private static bool TryWrite(long value, Span<byte> destination, ref int at)
    {
        ulong v = (ulong)value;
        do
        {
            if (at >= destination.Length)
            {
                return false;
            }

            byte b = (byte)(v & 0x7F);
            v >>= 7;
            destination[at++] = v == 0 ? b : (byte)(b | 0x80);
        }
        while (v != 0);

        return true;
    }

    private static bool TryRead(ReadOnlySpan<byte> source, ref int at, out long value)
    {
        ulong result = 0;
        for (int shift = 0; shift < 64; shift += 7)
        {
            if (at >= source.Length)
            {
                value = 0;
                return false;
            }

            byte b = source[at++];
            result |= (ulong)(b & 0x7F) << shift;
            if ((b & 0x80) == 0)
            {
                value = (long)result;
                return true;
            }
        }

        value = 0;
        return false;
    }
}
