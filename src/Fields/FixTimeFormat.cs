using System.Runtime.CompilerServices;

namespace RapidFix.Engine.Fields;

/// <summary>
/// FIX date and time text: UTCTimestamp (yyyyMMdd-HH:mm:ss[.fff[fff[fff]]]), UTCTimeOnly (HH:mm:ss[.f...]),
/// UTCDateOnly / LocalMktDate (yyyyMMdd), MonthYear. Calendar arithmetic is done on integers (days from the civil
/// date), so nothing here allocates or depends on the current culture or time zone.
/// </summary>
public static class FixTimeFormat
{
    /// <summary>Nanoseconds in a second.</summary>
    public const long NanosPerSecond = 1_000_000_000L;
    /// <summary>Nanoseconds in a day.</summary>
    public const long NanosPerDay = 86_400L * NanosPerSecond;

    /// <summary>Length of the text <see cref="FormatTimestamp"/> writes for a precision.</summary>
    public static int TimestampLength(FixTimePrecision precision) => precision == FixTimePrecision.Seconds ? 17 : 18 + (int)precision;

    /// <summary>Parses a UTCTimestamp. Accepts 0 to 9 fractional digits (and 12, truncated to nanoseconds).</summary>
    public static bool TryParseTimestamp(ReadOnlySpan<byte> text, out FixTimestamp value)
    {
        value = default;
        if (text.Length < 17 || text[8] != (byte)'-')
        {
            return false;
        }

        if (!TryParseDate(text.Slice(0, 8), out long days) || !TryParseTimeOfDay(text.Slice(9), out long nanosOfDay, out var precision))
        {
            return false;
        }

        value = new FixTimestamp((days * NanosPerDay) + nanosOfDay, precision);
        return true;
    }

    /// <summary>
    /// Checks the shape and ranges of a UTCTimestamp without computing the instant (the validator's fast path):
    /// the same acceptance as <see cref="TryParseTimestamp"/>.
    /// </summary>
    public static bool IsValidTimestamp(ReadOnlySpan<byte> text)
    {
        if (text.Length < 17 || text[8] != (byte)'-' || text[11] != (byte)':' || text[14] != (byte)':')
        {
            return false;
        }

        int year = D(text[0]) * 1000 + D(text[1]) * 100 + D(text[2]) * 10 + D(text[3]);
        int month = D(text[4]) * 10 + D(text[5]);
        int day = D(text[6]) * 10 + D(text[7]);
        int hh = D(text[9]) * 10 + D(text[10]);
        int mm = D(text[12]) * 10 + D(text[13]);
        int ss = D(text[15]) * 10 + D(text[16]);
        if ((year | month | day | hh | mm | ss) < 0 || month is < 1 or > 12 || day < 1 || hh > 23 || mm > 59 || ss > 60 ||
            (day > 28 && day > DaysInMonth(year, month)))
        {
            return false;
        }

        if (text.Length == 17)
        {
            return true;
        }

        int frac = text.Length - 18;
        if (text[17] != (byte)'.' || frac == 0 || (frac > 9 && frac != 12))
        {
            return false;
        }

        for (int i = 18; i < text.Length; i++)
        {
            if ((uint)(text[i] - '0') > 9)
            {
                return false;
            }
        }

        return true;
    }

    /// <summary>A digit's value, or a large negative number that poisons any sum it enters.</summary>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    private static int D(byte b)
    {
        uint d = (uint)(b - '0');
        return d <= 9 ? (int)d : -100_000;
    }

    /// <summary>Parses yyyyMMdd into days since 1970-01-01, checking month and day ranges (leap years included).</summary>
    public static bool TryParseDate(ReadOnlySpan<byte> text, out long daysSinceEpoch)
    {
        daysSinceEpoch = 0;
        if (text.Length != 8 ||
            !TryDigits(text.Slice(0, 4), out int year) ||
            !TryDigits(text.Slice(4, 2), out int month) ||
            !TryDigits(text.Slice(6, 2), out int day))
        {
            return false;
        }

        if (month is < 1 or > 12 || day < 1 || day > DaysInMonth(year, month))
        {
            return false;
        }

        daysSinceEpoch = DaysFromCivil(year, month, day);
        return true;
    }

    /// <summary>Parses HH:mm:ss[.f...] into nanoseconds since midnight. Seconds may be 60 (leap second).</summary>
    public static bool TryParseTimeOfDay(ReadOnlySpan<byte> text, out long nanosOfDay, out FixTimePrecision precision)
    {
        nanosOfDay = 0;
        precision = FixTimePrecision.Seconds;
        if (text.Length < 8 || text[2] != (byte)':' || text[5] != (byte)':' ||
            !TryDigits(text.Slice(0, 2), out int hh) ||
            !TryDigits(text.Slice(3, 2), out int mm) ||
            !TryDigits(text.Slice(6, 2), out int ss) ||
            hh > 23 || mm > 59 || ss > 60)
        {
            return false;
        }

        long nanos = 0;
        if (text.Length > 8)
        {
            if (text[8] != (byte)'.')
            {
                return false;
            }

            var frac = text.Slice(9);
            if (frac.Length == 0 || (frac.Length > 9 && frac.Length != 12))
            {
                return false;
            }

            int used = Math.Min(frac.Length, 9);
            for (int i = 0; i < frac.Length; i++)
            {
                uint d = (uint)(frac[i] - '0');
                if (d > 9)
                {
                    return false;
                }

                if (i < used)
                {
                    nanos = (nanos * 10) + d;
                }
            }

            for (int i = used; i < 9; i++)
            {
                nanos *= 10;
            }

            precision = used switch
            {
                <= 3 => FixTimePrecision.Milliseconds,
                <= 6 => FixTimePrecision.Microseconds,
                _ => FixTimePrecision.Nanoseconds,
            };
        }

        nanosOfDay = (((hh * 60L) + mm) * 60L + ss) * NanosPerSecond + nanos;
        return true;
    }

    /// <summary>Checks MonthYear: yyyyMM, yyyyMMdd or yyyyMMwN (week 1-5).</summary>
    public static bool IsValidMonthYear(ReadOnlySpan<byte> text)
    {
        if (text.Length < 6 || !TryDigits(text.Slice(0, 4), out _) || !TryDigits(text.Slice(4, 2), out int month) || month is < 1 or > 12)
        {
            return false;
        }

        if (text.Length == 6)
        {
            return true;
        }

        if (text.Length == 8)
        {
            if (text[6] == (byte)'w')
            {
                return text[7] is >= (byte)'1' and <= (byte)'5';
            }

            return TryDigits(text.Slice(6, 2), out int day) && day is >= 1 and <= 31;
        }

        return false;
    }

    /// <summary>Writes a UTCTimestamp; returns the length written (see <see cref="TimestampLength"/>).</summary>
    public static int FormatTimestamp(long unixNanos, FixTimePrecision precision, Span<byte> destination)
    {
        int length = TimestampLength(precision);
        if (destination.Length < length)
        {
            return 0;
        }

        long days = FloorDiv(unixNanos, NanosPerDay);
        long nanosOfDay = unixNanos - (days * NanosPerDay);
        WriteDateTimeToSecond(days, nanosOfDay / NanosPerSecond, destination);
        if (precision != FixTimePrecision.Seconds)
        {
            destination[17] = (byte)'.';
            long frac = nanosOfDay % NanosPerSecond;
            frac = precision switch
            {
                FixTimePrecision.Milliseconds => frac / 1_000_000,
                FixTimePrecision.Microseconds => frac / 1_000,
                _ => frac,
            };
            FixValue.WriteDigits((ulong)frac, destination.Slice(18, (int)precision));
        }

        return length;
    }

    /// <summary>Writes "yyyyMMdd-HH:mm:ss" (17 bytes) for a day number and second of day.</summary>
    public static void WriteDateTimeToSecond(long days, long secondOfDay, Span<byte> destination)
    {
        CivilFromDays(days, out int year, out int month, out int day);
        FixValue.WriteDigits((ulong)year, destination.Slice(0, 4));
        FixValue.Write2((uint)month, ref destination[4]);
        FixValue.Write2((uint)day, ref destination[6]);
        destination[8] = (byte)'-';
        uint s = (uint)secondOfDay;
        FixValue.Write2(s / 3600, ref destination[9]);
        destination[11] = (byte)':';
        FixValue.Write2(s / 60 % 60, ref destination[12]);
        destination[14] = (byte)':';
        FixValue.Write2(s % 60, ref destination[15]);
    }

    /// <summary>Days since 1970-01-01 of a proleptic Gregorian date (H. Hinnant's algorithm).</summary>
    public static long DaysFromCivil(int year, int month, int day)
    {
        year -= month <= 2 ? 1 : 0;
        int era = (year >= 0 ? year : year - 399) / 400;
        int yoe = year - (era * 400);
        int doy = (((153 * (month + (month > 2 ? -3 : 9))) + 2) / 5) + day - 1;
        int doe = (yoe * 365) + (yoe / 4) - (yoe / 100) + doy;
        return (era * 146097L) + doe - 719468;
    }

    /// <summary>The civil date of a day number (inverse of <see cref="DaysFromCivil"/>).</summary>
    public static void CivilFromDays(long days, out int year, out int month, out int day)
    {
        days += 719468;
        long era = (days >= 0 ? days : days - 146096) / 146097;
        int doe = (int)(days - (era * 146097));
        int yoe = (doe - (doe / 1460) + (doe / 36524) - (doe / 146096)) / 365;
        int y = (int)(yoe + (era * 400));
        int doy = doe - ((365 * yoe) + (yoe / 4) - (yoe / 100));
        int mp = ((5 * doy) + 2) / 153;
        day = doy - (((153 * mp) + 2) / 5) + 1;
        month = mp < 10 ? mp + 3 : mp - 9;
        year = month <= 2 ? y + 1 : y;
    }

    /// <summary>The days of <paramref name="month"/> (1-12) in <paramref name="year"/>, leap years counted.</summary>
    public static int DaysInMonth(int year, int month) => month switch
    {
        2 => (year % 4 == 0 && (year % 100 != 0 || year % 400 == 0)) ? 29 : 28,
        4 or 6 or 9 or 11 => 30,
        _ => 31,
    };

    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    private static long FloorDiv(long a, long b)
    {
        long q = a / b;
        return (a % b != 0 && ((a < 0) ^ (b < 0))) ? q - 1 : q;
    }

    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    private static bool TryDigits(ReadOnlySpan<byte> text, out int value)
    {
        value = 0;
        foreach (byte b in text)
        {
            uint d = (uint)(b - '0');
            if (d > 9)
            {
                return false;
            }

            value = (value * 10) + (int)d;
        }

        return true;
    }
}
