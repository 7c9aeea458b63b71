using System.Numerics;
using System.Runtime.CompilerServices;
using System.Runtime.InteropServices;
using System.Runtime.Intrinsics;

namespace RapidFix.Engine.Codec;

/// <summary>
/// Finds every SOH of a message in one vectorized pass and records their positions as a bitmap (bit i set when
/// byte i is SOH). The parser then finds the end of each value with a bit scan instead of a search per field.
/// </summary>
internal static class DelimiterScanner
{
    /// <summary>Number of 64-bit words needed for <paramref name="length"/> bytes.</summary>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    public static int WordsFor(int length) => (length + 63) >> 6;

    /// <summary>Fills <paramref name="bits"/> (at least <see cref="WordsFor"/> words) with the SOH bitmap of <paramref name="bytes"/>.</summary>
    public static void Build(ReadOnlySpan<byte> bytes, Span<ulong> bits)
    {
        int length = bytes.Length;
        ref byte start = ref MemoryMarshal.GetReference(bytes);
        int i = 0;
        int word = 0;
        if (Vector256.IsHardwareAccelerated)
        {
            var soh = Vector256.Create((byte)1);
            for (; i <= length - 64; i += 64, word++)
            {
                ulong lo = Vector256.Equals(Vector256.LoadUnsafe(ref start, (nuint)i), soh).ExtractMostSignificantBits();
                ulong hi = Vector256.Equals(Vector256.LoadUnsafe(ref start, (nuint)(i + 32)), soh).ExtractMostSignificantBits();
                bits[word] = lo | (hi << 32);
            }
        }
        else if (Vector128.IsHardwareAccelerated)
        {
            var soh = Vector128.Create((byte)1);
            for (; i <= length - 64; i += 64, word++)
            {
                ulong a = Vector128.Equals(Vector128.LoadUnsafe(ref start, (nuint)i), soh).ExtractMostSignificantBits();
                ulong b = Vector128.Equals(Vector128.LoadUnsafe(ref start, (nuint)(i + 16)), soh).ExtractMostSignificantBits();
                ulong c = Vector128.Equals(Vector128.LoadUnsafe(ref start, (nuint)(i + 32)), soh).ExtractMostSignificantBits();
                ulong d = Vector128.Equals(Vector128.LoadUnsafe(ref start, (nuint)(i + 48)), soh).ExtractMostSignificantBits();
                bits[word] = a | (b << 16) | (c << 32) | (d << 48);
            }
        }

        if (i < length)
        {
            int rest = length - i;
            if (Vector256.IsHardwareAccelerated)
            {
                // Compare the last 64 bytes (overlapping what is done, or a zero-padded copy of a short message)
                // and keep the bits of the bytes not yet covered.
                ulong mask;
                var soh = Vector256.Create((byte)1);
                if (length >= 64)
                {
                    ref byte last = ref Unsafe.Add(ref start, length - 64);
                    ulong lo = Vector256.Equals(Vector256.LoadUnsafe(ref last), soh).ExtractMostSignificantBits();
                    ulong hi = Vector256.Equals(Vector256.LoadUnsafe(ref last, 32), soh).ExtractMostSignificantBits();
                    mask = (lo | (hi << 32)) >> (64 - rest);
                }
                else
                {
                    Span<byte> padded = stackalloc byte[64];
                    padded.Clear();
                    bytes.CopyTo(padded);
                    ref byte p = ref MemoryMarshal.GetReference(padded);
                    ulong lo = Vector256.Equals(Vector256.LoadUnsafe(ref p), soh).ExtractMostSignificantBits();
                    ulong hi = Vector256.Equals(Vector256.LoadUnsafe(ref p, 32), soh).ExtractMostSignificantBits();
                    mask = lo | (hi << 32);
                }

                bits[word] = mask;
                return;
            }

            ulong w = 0;
            for (int k = 0; k < rest; k++)
            {
                if (Unsafe.Add(ref start, i + k) == 1)
                {
                    w |= 1UL << k;
                }
            }

            bits[word] = w;
        }
    }

    /// <summary>Position of the first SOH at or after <paramref name="from"/>, or -1.</summary>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    public static int Next(ReadOnlySpan<ulong> bits, int from)
    {
        int word = from >> 6;
        if ((uint)word >= (uint)bits.Length)
        {
            return -1;
        }

        ulong w = bits[word] & (ulong.MaxValue << (from & 63));
        while (w == 0)
        {
            if (++word >= bits.Length)
            {
                return -1;
            }

            w = bits[word];
        }

        return (word << 6) + BitOperations.TrailingZeroCount(w);
    }
}
