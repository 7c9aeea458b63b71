namespace RapidFix.Engine.Fields;

/// <summary>Digits after the seconds in a FIX UTCTimestamp / UTCTimeOnly.</summary>
public enum FixTimePrecision : byte
{
    Seconds = 0,
    Milliseconds = 3,
    Microseconds = 6,
    Nanoseconds = 9,
}

/// <summary>
/// A UTC instant with nanosecond resolution (nanoseconds since 1970-01-01T00:00:00Z), as FIX UTCTimestamp carries
/// it, plus the precision the text had. Covers the years 1678 to 2261.
/// </summary>
public readonly record struct FixTimestamp(long UnixNanoseconds, FixTimePrecision Precision = FixTimePrecision.Milliseconds)
{
    private const long NanosPerTick = 100;
    private static readonly long UnixEpochTicks = DateTime.UnixEpoch.Ticks;

    /// <summary>Converts to a UTC <see cref="DateTime"/> (100 ns resolution: sub-tick digits are dropped).</summary>
    public DateTime ToDateTime() => new(UnixEpochTicks + (UnixNanoseconds / NanosPerTick), DateTimeKind.Utc);

    /// <summary>From a <see cref="DateTime"/> (treated as UTC).</summary>
    public static FixTimestamp FromDateTime(DateTime utc, FixTimePrecision precision = FixTimePrecision.Milliseconds) =>
        new((utc.Ticks - UnixEpochTicks) * NanosPerTick, precision);

    public override string ToString()
    {
        Span<byte> buffer = stackalloc byte[32];
        int n = FixTimeFormat.FormatTimestamp(UnixNanoseconds, Precision, buffer);
        return System.Text.Encoding.ASCII.GetString(buffer.Slice(0, n));
    }
}
