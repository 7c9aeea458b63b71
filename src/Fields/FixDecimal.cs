using System.Runtime.CompilerServices;

namespace RapidFix.Engine.Fields;

/// <summary>
/// A decimal number as FIX and FAST carry it: an integer mantissa and a power-of-ten exponent
/// (value = <see cref="Mantissa"/> × 10^<see cref="Exponent"/>). Parsing keeps the scale of the text, so
/// "123.4500" formats back to "123.4500"; equality is numeric (1.5 equals 1.50).
/// </summary>
public readonly struct FixDecimal : IEquatable<FixDecimal>, IComparable<FixDecimal>
{
    /// <summary>Most significant digits accepted in text (a long holds 18 safely).</summary>
    public const int MaxDigits = 18;

    private static readonly long[] PowersOf10 =
    [
        1L, 10L, 100L, 1_000L, 10_000L, 100_000L, 1_000_000L, 10_000_000L, 100_000_000L, 1_000_000_000L,
        10_000_000_000L, 100_000_000_000L, 1_000_000_000_000L, 10_000_000_000_000L, 100_000_000_000_000L,
        1_000_000_000_000_000L, 10_000_000_000_000_000L, 100_000_000_000_000_000L, 1_000_000_000_000_000_000L,
    ];

    /// <summary>The value <paramref name="mantissa"/> × 10^<paramref name="exponent"/>, kept as given (1500, -2 is 15.00 with its two decimals).</summary>
    public FixDecimal(long mantissa, int exponent)
    {
        Mantissa = mantissa;
        Exponent = exponent;
    }

    /// <summary>The integer digits.</summary>
    public long Mantissa { get; }

    /// <summary>The power of ten: -2 means two digits after the point.</summary>
    public int Exponent { get; }

    /// <summary>Converts to <see cref="decimal"/> exactly (throws <see cref="OverflowException"/> beyond its range).</summary>
    public decimal ToDecimal()
    {
        if (Exponent <= 0)
        {
            if (Exponent >= -28)
            {
                ulong magnitude = Mantissa < 0 ? (ulong)(-(Mantissa + 1)) + 1 : (ulong)Mantissa;
                return new decimal((int)(uint)magnitude, (int)(uint)(magnitude >> 32), 0, Mantissa < 0, (byte)(-Exponent));
            }

            decimal d = Mantissa;
            for (int e = Exponent; e < 0; e++)
            {
                d /= 10m;
            }

            return d;
        }

        decimal r = Mantissa;
        for (int e = 0; e < Exponent; e++)
        {
            r *= 10m;
        }

        return r;
    }

    /// <summary>Converts to <see cref="double"/> (nearest).</summary>
    public double ToDouble() => Exponent switch
    {
        0 => Mantissa,
        < 0 when -Exponent < PowersOf10.Length => Mantissa / (double)PowersOf10[-Exponent],
        > 0 when Exponent < PowersOf10.Length => Mantissa * (double)PowersOf10[Exponent],
        _ => Mantissa * Math.Pow(10, Exponent),
    };

    /// <summary>Creates from a <see cref="decimal"/> keeping its scale.</summary>
    public static FixDecimal FromDecimal(decimal value)
    {
        Span<int> bits = stackalloc int[4];
        decimal.GetBits(value, bits);
        if (bits[2] != 0 || bits[1] < 0)
        {
            throw new OverflowException("The decimal has more than 18 significant digits.");
        }

        long mantissa = ((long)bits[1] << 32) | (uint)bits[0];
        int scale = (bits[3] >> 16) & 0xFF;
        bool negative = bits[3] < 0;
        return new FixDecimal(negative ? -mantissa : mantissa, -scale);
    }

    /// <summary>
    /// True when <paramref name="text"/> is FIX float text whose value lies within <see cref="decimal"/>'s range, the
    /// range QuickFIX accepts (digits beyond a long's reach included: <see cref="TryParse"/> reads up to 19).
    /// Extra fractional digits are allowed, as QuickFIX rounds them.
    /// </summary>
    public static bool IsValidText(ReadOnlySpan<byte> text)
    {
        int i = text.Length > 0 && text[0] == (byte)'-' ? 1 : 0;
        int digits = 0;
        int integerStart = -1;
        int integerEnd = -1;
        bool seenDot = false;
        for (; i < text.Length; i++)
        {
            byte b = text[i];
            if (b is >= (byte)'0' and <= (byte)'9')
            {
                digits++;
                if (!seenDot && integerStart < 0 && b != (byte)'0')
                {
                    integerStart = i;
                }
            }
            else if (b == (byte)'.' && !seenDot)
            {
                seenDot = true;
                integerEnd = i;
            }
            else
            {
                return false;
            }
        }

        if (digits == 0)
        {
            return false;
        }

        if (integerStart < 0)
        {
            return true; // no significant integer digit: |value| < 1
        }

        var integer = text.Slice(integerStart, (integerEnd < 0 ? text.Length : integerEnd) - integerStart);
        ReadOnlySpan<byte> max = "79228162514264337593543950335"u8; // decimal.MaxValue
        return integer.Length < max.Length || (integer.Length == max.Length && integer.SequenceCompareTo(max) <= 0);
    }

    /// <summary>
    /// Parses FIX float text: optional '-', digits, optional '.' and digits. No exponent, no '+', no spaces, at most
    /// <see cref="MaxDigits"/> significant digits, or up to 19 while the mantissa fits a long (so a Qty of
    /// 9223372036854775807, long.MaxValue, reads). Leading zeros do not count.
    /// </summary>
    public static bool TryParse(ReadOnlySpan<byte> text, out FixDecimal value)
    {
        value = default;
        int i = 0;
        int n = text.Length;
        if (n == 0)
        {
            return false;
        }

        bool negative = false;
        if (text[0] == (byte)'-')
        {
            negative = true;
            i = 1;
        }

        ulong mantissa = 0;
        int digits = 0;
        int significant = 0;
        int scale = 0;
        bool seenDot = false;
        for (; i < n; i++)
        {
            uint c = (uint)(text[i] - '0');
            if (c <= 9)
            {
                digits++;
                if (mantissa != 0 || c != 0)
                {
                    if (++significant > MaxDigits + 1)
                    {
                        return false;
                    }
                }

                // 19 digits can exceed a long: checked below, as the 19th digit is the only one that can overflow.
                mantissa = (mantissa * 10) + c;
                if (seenDot)
                {
                    scale++;
                }
            }
            else if (text[i] == (byte)'.' && !seenDot)
            {
                seenDot = true;
            }
            else
            {
                return false;
            }
        }

        if (digits == 0 || mantissa > (negative ? (ulong)long.MaxValue + 1 : long.MaxValue))
        {
            return false;
        }

        value = new FixDecimal(negative ? unchecked(-(long)mantissa) : (long)mantissa, -scale);
        return true;
    }

    /// <summary>Writes FIX float text (no exponent notation). Returns false when <paramref name="destination"/> is too small.</summary>
    public bool TryFormat(Span<byte> destination, out int written)
    {
        written = 0;
        ulong magnitude = Mantissa < 0 ? (ulong)(-(Mantissa + 1)) + 1 : (ulong)Mantissa;
        Span<byte> digits = stackalloc byte[20];
        int nd = 0;
        do
        {
            digits[19 - nd] = (byte)('0' + (int)(magnitude % 10));
            magnitude /= 10;
            nd++;
        }
        while (magnitude != 0);

        ReadOnlySpan<byte> d = digits.Slice(20 - nd);
        int pos = 0;
        int frac = Exponent < 0 ? -Exponent : 0;
        int zerosAfter = Exponent > 0 ? Exponent : 0;
        int intDigits = nd - frac;
        int total = (Mantissa < 0 ? 1 : 0) + (intDigits > 0 ? intDigits : 1) + (frac > 0 ? 1 + frac : 0) + zerosAfter;
        if (total > destination.Length)
        {
            return false;
        }

        if (Mantissa < 0)
        {
            destination[pos++] = (byte)'-';
        }

        if (intDigits > 0)
        {
            d.Slice(0, intDigits).CopyTo(destination.Slice(pos));
            pos += intDigits;
            destination.Slice(pos, zerosAfter).Fill((byte)'0');
            pos += zerosAfter;
        }
        else
        {
            destination[pos++] = (byte)'0';
        }

        if (frac > 0)
        {
            destination[pos++] = (byte)'.';
            int leadingZeros = frac - nd;
            if (leadingZeros > 0)
            {
                destination.Slice(pos, leadingZeros).Fill((byte)'0');
                pos += leadingZeros;
                d.CopyTo(destination.Slice(pos));
                pos += nd;
            }
            else
            {
                d.Slice(intDigits).CopyTo(destination.Slice(pos));
                pos += frac;
            }
        }

        written = pos;
        return true;
    }

    /// <summary>
    /// Writes FIX float text at <paramref name="offset"/> (the caller guarantees 48 bytes of room); returns the bytes
    /// written. The encoder's fast path; <see cref="TryFormat"/> is the checked one.
    /// </summary>
    internal int FormatUnchecked(byte[] buffer, int offset)
    {
        if (Exponent == 0)
        {
            return FixValue.FormatLongUnchecked(Mantissa, buffer, offset);
        }

        if (Exponent < 0 && Exponent > -19)
        {
            ref byte dest = ref Unsafe.Add(ref System.Runtime.InteropServices.MemoryMarshal.GetArrayDataReference(buffer), offset);
            int pos = 0;
            ulong magnitude = Mantissa < 0 ? (ulong)(-(Mantissa + 1)) + 1 : (ulong)Mantissa;
            if (Mantissa < 0)
            {
                dest = (byte)'-';
                pos = 1;
            }

            int frac = -Exponent;
            int digits = FixValue.CountDigits(magnitude);
            if (digits > frac)
            {
                // 412.37: write "41237", then move the fraction digits one place right and put the point in.
                int intDigits = digits - frac;
                ref byte first = ref Unsafe.Add(ref dest, pos);
                FixValue.WriteDigitsUnchecked(magnitude, ref first, digits);
                for (int k = digits; k > intDigits; k--)
                {
                    Unsafe.Add(ref first, k) = Unsafe.Add(ref first, k - 1);
                }

                Unsafe.Add(ref first, intDigits) = (byte)'.';
                return pos + digits + 1;
            }

            // 0.0037: "0." then the fraction, zero-padded.
            Unsafe.Add(ref dest, pos++) = (byte)'0';
            Unsafe.Add(ref dest, pos++) = (byte)'.';
            FixValue.WriteDigitsUnchecked(magnitude, ref Unsafe.Add(ref dest, pos), frac);
            return pos + frac;
        }

        TryFormat(new Span<byte>(buffer, offset, 48), out int written);
        return written;
    }

    /// <summary>The same value with trailing zeros removed from the mantissa (1.50 → 1.5; 100 → 1e2).</summary>
    public FixDecimal Normalize()
    {
        long m = Mantissa;
        int e = Exponent;
        if (m == 0)
        {
            return new FixDecimal(0, 0);
        }

        while (m % 10 == 0)
        {
            m /= 10;
            e++;
        }

        return new FixDecimal(m, e);
    }

    /// <summary>Equal in value: 15.00 equals 15 (the scale does not count).</summary>
    public bool Equals(FixDecimal other)
    {
        var a = Normalize();
        var b = other.Normalize();
        return a.Mantissa == b.Mantissa && a.Exponent == b.Exponent;
    }

    /// <inheritdoc/>
    public override bool Equals(object? obj) => obj is FixDecimal other && Equals(other);

    /// <summary>A hash equal for values that are equal whatever their scale.</summary>
    public override int GetHashCode()
    {
        var n = Normalize();
        return HashCode.Combine(n.Mantissa, n.Exponent);
    }

    /// <summary>Compares by value.</summary>
    public int CompareTo(FixDecimal other)
    {
        if (Exponent == other.Exponent)
        {
            return Mantissa.CompareTo(other.Mantissa);
        }

        return ToDecimalSaturating().CompareTo(other.ToDecimalSaturating());
    }

    /// <summary>Equal in value (see <see cref="Equals(FixDecimal)"/>).</summary>
    public static bool operator ==(FixDecimal left, FixDecimal right) => left.Equals(right);

    /// <summary>Not equal in value.</summary>
    public static bool operator !=(FixDecimal left, FixDecimal right) => !left.Equals(right);

    /// <summary>The value in FIX text form, with its scale (allocates: for logs and tests, not the hot path).</summary>
    public override string ToString()
    {
        Span<byte> buffer = stackalloc byte[48];
        return TryFormat(buffer, out int n) ? System.Text.Encoding.ASCII.GetString(buffer.Slice(0, n)) : $"{Mantissa}e{Exponent}";
    }

    [MethodImpl(MethodImplOptions.NoInlining)]
    private decimal ToDecimalSaturating()
    {
        try
        {
            return ToDecimal();
        }
        catch (OverflowException)
        {
            return Mantissa < 0 ? decimal.MinValue : decimal.MaxValue;
        }
    }
}
