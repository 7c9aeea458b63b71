using RapidFix.Engine.Fields;

namespace RapidFix.Engine.Codec;

/// <summary>
/// Formats UTCTimestamps, caching the "yyyyMMdd-HH:mm:ss" text of the last second written: consecutive messages
/// within one second only format their fractional digits. One instance per writing thread.
/// </summary>
public sealed class FixTimestampWriter
{
    private readonly byte[] _secondText = new byte[17];
    private long _cachedSecond = long.MinValue;

    /// <summary>Writes the timestamp into <paramref name="destination"/> (exactly <see cref="FixTimeFormat.TimestampLength"/> bytes).</summary>
    public void Write(long unixNanoseconds, FixTimePrecision precision, Span<byte> destination)
    {
        long second = unixNanoseconds >= 0 ? unixNanoseconds / FixTimeFormat.NanosPerSecond : ((unixNanoseconds + 1) / FixTimeFormat.NanosPerSecond) - 1;
        if (second != _cachedSecond)
        {
            long days = second >= 0 ? second / 86_400 : ((second + 1) / 86_400) - 1;
            FixTimeFormat.WriteDateTimeToSecond(days, second - (days * 86_400), _secondText);
            _cachedSecond = second;
        }

        _secondText.CopyTo(destination);
        if (precision == FixTimePrecision.Seconds)
        {
            return;
        }

        destination[17] = (byte)'.';
        long frac = unixNanoseconds - (second * FixTimeFormat.NanosPerSecond);
        frac = precision switch
        {
            FixTimePrecision.Milliseconds => frac / 1_000_000,
            FixTimePrecision.Microseconds => frac / 1_000,
            _ => frac,
        };
        FixValue.WriteDigits((ulong)frac, destination.Slice(18, (int)precision));
    }
}
