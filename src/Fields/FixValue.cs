using System.Runtime.CompilerServices;

namespace RapidFix.Engine.Fields;

/// <summary>
/// Parsing and formatting of FIX text values (int, long, bool, char) over byte spans. Strict: FIX forbids '+',
/// spaces and exponents; overflow fails rather than wraps.
/// </summary>
public static class FixValue
{
    /// <summary>Parses an int: optional '-', then 1 or more digits.</summary>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    public static bool TryParseInt(ReadOnlySpan<byte> text, out int value)
    {
        if (TryParseLong(text, out long v) && v >= int.MinValue && v <= int.MaxValue)
        {
            value = (int)v;
            return true;
        }

        value = 0;
        return false;
    }

    /// <summary>Parses a long: optional '-', then 1 to 19 digits (overflow fails).</summary>
    public static bool TryParseLong(ReadOnlySpan<byte> text, out long value)
    {
        value = 0;
        int i = 0;
        bool negative = false;
        if (text.Length != 0 && text[0] == (byte)'-')
        {
            negative = true;
            i = 1;
        }

        int digits = text.Length - i;
        if (digits == 0)
        {
            return false;
        }

        if (digits > 18)
        {
            return TryParseLongSlow(text.Slice(i), negative, out value);
        }

        // Up to 18 digits cannot overflow a long: no per-digit range check.
        long acc = 0;
        for (; i < text.Length; i++)
        {
            uint d = (uint)(text[i] - '0');
            if (d > 9)
            {
                return false;
            }

            acc = (acc * 10) + d;
        }

        value = negative ? -acc : acc;
        return true;
    }

    [MethodImpl(MethodImplOptions.NoInlining)]
    private static bool TryParseLongSlow(ReadOnlySpan<byte> digits, bool negative, out long value)
    {
        value = 0;
        ulong acc = 0;
        foreach (byte b in digits)
        {
            uint d = (uint)(b - '0');
            if (d > 9 || acc > (ulong.MaxValue - d) / 10)
            {
                return false;
            }

            acc = (acc * 10) + d;
        }

        if (negative)
        {
            if (acc > (ulong)long.MaxValue + 1)
            {
                return false;
            }

            value = (long)(0 - acc);
            return true;
        }

        if (acc > long.MaxValue)
        {
            return false;
        }

        value = (long)acc;
        return true;
    }

    /// <summary>Parses a non-negative int (SeqNum, Length, NumInGroup, TagNum): digits only.</summary>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    public static bool TryParseNonNegativeInt(ReadOnlySpan<byte> text, out int value)
    {
        value = 0;
        if (text.Length == 0 || text.Length > 10)
        {
            return false;
        }

        long acc = 0;
        foreach (byte b in text)
        {
            uint d = (uint)(b - '0');
            if (d > 9)
            {
                return false;
            }

            acc = (acc * 10) + d;
        }

        if (acc > int.MaxValue)
        {
            return false;
        }

        value = (int)acc;
        return true;
    }

    /// <summary>Parses a FIX Boolean: 'Y' or 'N'.</summary>
    public static bool TryParseBool(ReadOnlySpan<byte> text, out bool value)
    {
        value = false;
        if (text.Length != 1)
        {
            return false;
        }

        if (text[0] == (byte)'Y')
        {
            value = true;
            return true;
        }

        return text[0] == (byte)'N';
    }

    /// <summary>Number of decimal digits of a non-negative value (1 for 0): a log2 estimate and one table compare.</summary>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    public static int CountDigits(ulong value)
    {
        // digits - 1 <= (log2(v) + 1) * 1233 / 4096 < digits + 1: one compare with a power of ten settles it.
        // (v | 1 counts 0 as one digit and never changes an even value's digit count.)
        value |= 1;
        int estimate = ((System.Numerics.BitOperations.Log2(value) + 1) * 1233) >> 12;
        return estimate + (value >= Unsafe.Add(ref System.Runtime.InteropServices.MemoryMarshal.GetArrayDataReference(PowersOf10), estimate) ? 1 : 0);
    }

    private static readonly ulong[] PowersOf10 =
    [
        1UL, 10UL, 100UL, 1_000UL, 10_000UL, 100_000UL, 1_000_000UL, 10_000_000UL, 100_000_000UL, 1_000_000_000UL,
        10_000_000_000UL, 100_000_000_000UL, 1_000_000_000_000UL, 10_000_000_000_000UL, 100_000_000_000_000UL,
        1_000_000_000_000_000UL, 10_000_000_000_000_000UL, 100_000_000_000_000_000UL, 1_000_000_000_000_000_000UL,
        10_000_000_000_000_000_000UL,
    ];

    /// <summary>
    /// Copies a short run of bytes with a few overlapping unaligned loads and stores instead of a call to memmove
    /// (most FIX values are under 16 bytes). Source and destination must not overlap.
    /// </summary>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    public static void CopyShort(ref byte destination, ref byte source, int length)
    {
        if (length >= 8)
        {
            if (length <= 16)
            {
                ulong head = Unsafe.ReadUnaligned<ulong>(ref source);
                ulong tail = Unsafe.ReadUnaligned<ulong>(ref Unsafe.Add(ref source, length - 8));
                Unsafe.WriteUnaligned(ref destination, head);
                Unsafe.WriteUnaligned(ref Unsafe.Add(ref destination, length - 8), tail);
                return;
            }

            Unsafe.CopyBlockUnaligned(ref destination, ref source, (uint)length);
        }
        else if (length >= 4)
        {
            uint head = Unsafe.ReadUnaligned<uint>(ref source);
            uint tail = Unsafe.ReadUnaligned<uint>(ref Unsafe.Add(ref source, length - 4));
            Unsafe.WriteUnaligned(ref destination, head);
            Unsafe.WriteUnaligned(ref Unsafe.Add(ref destination, length - 4), tail);
        }
        else if (length >= 2)
        {
            ushort head = Unsafe.ReadUnaligned<ushort>(ref source);
            ushort tail = Unsafe.ReadUnaligned<ushort>(ref Unsafe.Add(ref source, length - 2));
            Unsafe.WriteUnaligned(ref destination, head);
            Unsafe.WriteUnaligned(ref Unsafe.Add(ref destination, length - 2), tail);
        }
        else if (length == 1)
        {
            destination = source;
        }
    }

    /// <summary>Writes a long in decimal; returns the bytes written, or 0 when <paramref name="destination"/> is too small.</summary>
    public static int FormatLong(long value, Span<byte> destination)
    {
        ulong magnitude;
        int pos = 0;
        if (value < 0)
        {
            if (destination.Length == 0)
            {
                return 0;
            }

            destination[0] = (byte)'-';
            pos = 1;
            magnitude = (ulong)(-(value + 1)) + 1;
        }
        else
        {
            magnitude = (ulong)value;
        }

        int digits = CountDigits(magnitude);
        if (pos + digits > destination.Length)
        {
            return 0;
        }

        WriteDigits(magnitude, destination.Slice(pos, digits));
        return pos + digits;
    }

    /// <summary>
    /// Writes a long at <paramref name="offset"/> (the caller guarantees 20 bytes of room) two digits at a time;
    /// returns the bytes written.
    /// </summary>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    public static int FormatLongUnchecked(long value, byte[] buffer, int offset)
    {
        ref byte dest = ref Unsafe.Add(ref System.Runtime.InteropServices.MemoryMarshal.GetArrayDataReference(buffer), offset);
        int pos = 0;
        ulong magnitude;
        if (value < 0)
        {
            dest = (byte)'-';
            pos = 1;
            magnitude = (ulong)(-(value + 1)) + 1;
        }
        else
        {
            magnitude = (ulong)value;
        }

        int digits = CountDigits(magnitude);
        WriteDigitsUnchecked(magnitude, ref Unsafe.Add(ref dest, pos), digits);
        return pos + digits;
    }

    /// <summary>Writes exactly <paramref name="digits"/> digits of <paramref name="value"/> (zero-padded) two at a time.</summary>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    public static void WriteDigitsUnchecked(ulong value, ref byte destination, int digits)
    {
        ref byte pairs = ref System.Runtime.InteropServices.MemoryMarshal.GetArrayDataReference(DigitPairs);
        int i = digits;
        while (i >= 2)
        {
            ulong q = value / 100;
            int r = (int)(value - (q * 100));
            value = q;
            i -= 2;
            Unsafe.WriteUnaligned(ref Unsafe.Add(ref destination, i), Unsafe.ReadUnaligned<ushort>(ref Unsafe.Add(ref pairs, r * 2)));
        }

        if (i == 1)
        {
            destination = (byte)('0' + (int)(value % 10));
        }
    }

    private static readonly byte[] DigitPairs =
        "00010203040506070809101112131415161718192021222324252627282930313233343536373839404142434445464748495051525354555657585960616263646566676869707172737475767778798081828384858687888990919293949596979899"u8.ToArray();

    /// <summary>Writes exactly <paramref name="destination"/>.Length digits of <paramref name="value"/>, zero-padded on the left.</summary>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    public static void WriteDigits(ulong value, Span<byte> destination)
    {
        for (int i = destination.Length - 1; i >= 0; i--)
        {
            ulong q = value / 10;
            destination[i] = (byte)('0' + (int)(value - (q * 10)));
            value = q;
        }
    }

    /// <summary>Writes a two-digit zero-padded number (0..99).</summary>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    public static void Write2(uint value, ref byte destination)
    {
        uint q = value / 10;
        destination = (byte)('0' + q);
        Unsafe.Add(ref destination, 1) = (byte)('0' + (value - (q * 10)));
    }
}
