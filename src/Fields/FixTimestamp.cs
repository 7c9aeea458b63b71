namespace RapidFix.Engine.Fields;

/// <summary>Digits after the seconds in a FIX UTCTimestamp / UTCTimeOnly.</summary>
public enum FixTimePrecision : byte
{
    /// <summary>Whole seconds: HH:MM:SS.</summary>
    Seconds = 0,
    /// <summary>Milliseconds: HH:MM:SS.sss (the FIX default).</summary>
    Milliseconds = 3,
    /// <summary>Microseconds: HH:MM:SS.ssssss.</summary>
    Microseconds = 6,
    /// <summary>Nanoseconds: HH:MM:SS.sssssssss.</summary>
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

    /// <summary>The timestamp as FIX UTCTimestamp text at its precision (allocates: for logs and tests).</summary>
    public override string ToString()
    {
        Span<byte> buffer = stackalloc byte[32];
        int n = FixTimeFormat.FormatTimestamp(UnixNanoseconds, Precision, buffer);
        return System.Text.Encoding.ASCII.GetString(buffer.Slice(0, n));
    }
}
