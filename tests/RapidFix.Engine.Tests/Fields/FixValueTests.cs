using System.Text;
using RapidFix.Engine.Fields;

namespace RapidFix.Engine.Tests.Fields;

public sealed class FixValueTests
{
    [Theory]
    [InlineData("0", 0L)]
    [InlineData("-17", -17L)]
    [InlineData("007", 7L)]
    [InlineData("9223372036854775807", long.MaxValue)]
    [InlineData("-9223372036854775808", long.MinValue)]
    public void Parses_longs(string text, long expected)
    {
        Assert.True(FixValue.TryParseLong(Encoding.ASCII.GetBytes(text), out long v));
        Assert.Equal(expected, v);
        var buffer = new byte[24];
        int n = FixValue.FormatLong(expected, buffer);
        Assert.Equal(expected.ToString(System.Globalization.CultureInfo.InvariantCulture), Encoding.ASCII.GetString(buffer, 0, n));
    }

    [Theory]
    [InlineData("")]
    [InlineData("-")]
    [InlineData("+1")]
    [InlineData(" 1")]
    [InlineData("1.0")]
    [InlineData("9223372036854775808")]
    [InlineData("99999999999999999999")]
    public void Rejects_malformed_longs(string text) => Assert.False(FixValue.TryParseLong(Encoding.ASCII.GetBytes(text), out _));

    [Theory]
    [InlineData("412.37", 41237L, -2, "412.37")]
    [InlineData("002000.00", 200000L, -2, "2000.00")]
    [InlineData("-0.5", -5L, -1, "-0.5")]
    [InlineData(".5", 5L, -1, "0.5")]
    [InlineData("7", 7L, 0, "7")]
    [InlineData("0.000001", 1L, -6, "0.000001")]
    [InlineData("123456789012345678", 123456789012345678L, 0, "123456789012345678")]
    public void Decimals_keep_their_scale(string text, long mantissa, int exponent, string formatted)
    {
        Assert.True(FixDecimal.TryParse(Encoding.ASCII.GetBytes(text), out var d));
        Assert.Equal(mantissa, d.Mantissa);
        Assert.Equal(exponent, d.Exponent);
        Assert.Equal(formatted, d.ToString());
        Assert.Equal(decimal.Parse(text, System.Globalization.CultureInfo.InvariantCulture), d.ToDecimal());
    }

    [Theory]
    [InlineData("")]
    [InlineData("+1")]
    [InlineData("1e5")]
    [InlineData("1.2.3")]
    [InlineData("-")]
    [InlineData(".")]
    [InlineData("12345678901234567890")]
    [InlineData("9223372036854775808")]
    [InlineData("-9223372036854775809")]
    public void Rejects_malformed_decimals(string text) => Assert.False(FixDecimal.TryParse(Encoding.ASCII.GetBytes(text), out _));

    [Theory]
    [InlineData("9223372036854775807", long.MaxValue, 0)]
    [InlineData("-9223372036854775808", long.MinValue, 0)]
    [InlineData("922337203685477580.7", long.MaxValue, -1)]
    [InlineData("1234567890123456789", 1234567890123456789L, 0)]
    public void Reads_nineteen_digits_while_the_mantissa_fits_a_long(string text, long mantissa, int exponent)
    {
        Assert.True(FixDecimal.TryParse(Encoding.ASCII.GetBytes(text), out var d));
        Assert.Equal(mantissa, d.Mantissa);
        Assert.Equal(exponent, d.Exponent);
        Assert.Equal(decimal.Parse(text, System.Globalization.CultureInfo.InvariantCulture), d.ToDecimal());
    }

    [Theory]
    [InlineData("9223372036854775807", true)]
    [InlineData("79228162514264337593543950335", true)]
    [InlineData("-79228162514264337593543950335.5", true)]
    [InlineData("0000079228162514264337593543950335", true)]
    [InlineData("0.00000000000000000000000000000000001", true)]
    [InlineData("79228162514264337593543950336", false)]
    [InlineData("792281625142643375935439503350", false)]
    [InlineData("+1", false)]
    [InlineData("1e5", false)]
    [InlineData(".", false)]
    [InlineData("", false)]
    public void Decimal_text_is_valid_within_the_range_of_decimal(string text, bool valid) =>
        Assert.Equal(valid, FixDecimal.IsValidText(Encoding.ASCII.GetBytes(text)));

    [Fact]
    public void Decimal_equality_is_numeric_and_positive_exponents_format()
    {
        Assert.Equal(new FixDecimal(15, -1), new FixDecimal(150, -2));
        Assert.NotEqual(new FixDecimal(15, -1), new FixDecimal(16, -1));
        Assert.Equal("12300", new FixDecimal(123, 2).ToString());
        Assert.Equal(12300m, new FixDecimal(123, 2).ToDecimal());
        Assert.True(new FixDecimal(1, 0).CompareTo(new FixDecimal(99, -2)) > 0);
        Assert.Equal(new FixDecimal(-12345, -3), FixDecimal.FromDecimal(-12.345m));
    }

    [Theory]
    [InlineData("20261121-21:30:15", 0, FixTimePrecision.Seconds)]
    [InlineData("20261121-21:30:15.123", 123_000_000, FixTimePrecision.Milliseconds)]
    [InlineData("20261121-21:30:15.123456", 123_456_000, FixTimePrecision.Microseconds)]
    [InlineData("20261121-21:30:15.123456789", 123_456_789, FixTimePrecision.Nanoseconds)]
    [InlineData("20240229-00:00:60", 0, FixTimePrecision.Seconds)]
    public void Parses_utc_timestamps(string text, long fractionNanos, FixTimePrecision precision)
    {
        Assert.True(FixTimeFormat.TryParseTimestamp(Encoding.ASCII.GetBytes(text), out var ts));
        Assert.Equal(precision, ts.Precision);
        var seconds = DateTime.ParseExact(text[..17].Replace(":60", ":59"), "yyyyMMdd-HH:mm:ss", System.Globalization.CultureInfo.InvariantCulture);
        long expected = (seconds.Ticks - DateTime.UnixEpoch.Ticks) * 100 + fractionNanos + (text.EndsWith(":60", StringComparison.Ordinal) ? 1_000_000_000 : 0);
        Assert.Equal(expected, ts.UnixNanoseconds);
    }

    [Theory]
    [InlineData("20261321-21:30:15")]
    [InlineData("20230229-21:30:15")]
    [InlineData("20261121-24:00:00")]
    [InlineData("20261121 21:30:15")]
    [InlineData("20261121-21:30:15.")]
    [InlineData("20261121-21:30:15.1234567890")]
    [InlineData("2026112-21:30:15")]
    public void Rejects_malformed_timestamps(string text) => Assert.False(FixTimeFormat.TryParseTimestamp(Encoding.ASCII.GetBytes(text), out _));

    [Fact]
    public void Civil_date_arithmetic_matches_the_framework_over_centuries()
    {
        for (var d = new DateTime(1900, 1, 1); d < new DateTime(2200, 1, 1); d = d.AddDays(7))
        {
            long days = FixTimeFormat.DaysFromCivil(d.Year, d.Month, d.Day);
            Assert.Equal((d - DateTime.UnixEpoch).Days, days);
            FixTimeFormat.CivilFromDays(days, out int y, out int m, out int day);
            Assert.Equal((d.Year, d.Month, d.Day), (y, m, day));
        }
    }

    [Fact]
    public void Formats_and_reparses_timestamps_before_and_after_the_epoch()
    {
        var buffer = new byte[32];
        foreach (var when in new[] { new DateTime(1969, 12, 31, 23, 59, 59, 999, DateTimeKind.Utc), new DateTime(2099, 7, 4, 1, 2, 3, 4, DateTimeKind.Utc) })
        {
            var ts = FixTimestamp.FromDateTime(when);
            int n = FixTimeFormat.FormatTimestamp(ts.UnixNanoseconds, FixTimePrecision.Milliseconds, buffer);
            Assert.Equal(when.ToString("yyyyMMdd-HH:mm:ss.fff", System.Globalization.CultureInfo.InvariantCulture), Encoding.ASCII.GetString(buffer, 0, n));
            Assert.True(FixTimeFormat.TryParseTimestamp(buffer.AsSpan(0, n), out var back));
            Assert.Equal(when, back.ToDateTime());
        }
    }
}

public sealed class FixValueFastPathTests
{
    [Fact]
    public void Unchecked_decimal_and_long_formatting_match_the_checked_formatters()
    {
        var random = new Random(7);
        var fast = new byte[64];
        var slow = new byte[64];
        for (int i = 0; i < 20_000; i++)
        {
            long mantissa = random.Next(4) switch
            {
                0 => random.Next(-1000, 1000),
                1 => random.NextInt64(),
                2 => -random.NextInt64(),
                _ => random.NextInt64(long.MinValue, long.MaxValue),
            };
            int exponent = random.Next(-20, 4);
            var d = new FixDecimal(mantissa, exponent);
            int n = d.FormatUnchecked(fast, 0);
            Assert.True(d.TryFormat(slow, out int m));
            Assert.Equal(Encoding.ASCII.GetString(slow, 0, m), Encoding.ASCII.GetString(fast, 0, n));

            n = FixValue.FormatLongUnchecked(mantissa, fast, 3);
            Assert.Equal(mantissa.ToString(System.Globalization.CultureInfo.InvariantCulture), Encoding.ASCII.GetString(fast, 3, n));
        }
    }

    [Fact]
    public void Digit_counts_are_exact_at_every_power_of_ten()
    {
        ulong p = 1;
        for (int digits = 1; digits <= 20; digits++)
        {
            Assert.Equal(digits, FixValue.CountDigits(p));
            if (p > 1)
            {
                Assert.Equal(digits - 1, FixValue.CountDigits(p - 1));
            }

            if (digits < 20)
            {
                p *= 10;
            }
        }

        Assert.Equal(1, FixValue.CountDigits(0));
        Assert.Equal(20, FixValue.CountDigits(ulong.MaxValue));
        var random = new Random(3);
        for (int i = 0; i < 10_000; i++)
        {
            ulong v = (ulong)random.NextInt64() >> random.Next(64);
            Assert.Equal(v.ToString(System.Globalization.CultureInfo.InvariantCulture).Length, FixValue.CountDigits(v));
        }
    }

    [Theory]
    [InlineData("20261121-21:30:15")]
    [InlineData("20261121-21:30:15.123")]
    [InlineData("20261121-21:30:15.123456789123")]
    [InlineData("20240229-23:59:60")]
    [InlineData("20230229-21:30:15")]
    [InlineData("20261131-21:30:15")]
    [InlineData("20261121-21:3a:15")]
    [InlineData("20261121-21:30:15.")]
    [InlineData("20261121-21:30:15.1234567890")]
    [InlineData("2026112x-21:30:15")]
    [InlineData("20261121-21:30")]
    public void The_validators_timestamp_shape_check_agrees_with_the_parser(string text)
    {
        var bytes = Encoding.ASCII.GetBytes(text);
        Assert.Equal(FixTimeFormat.TryParseTimestamp(bytes, out _), FixTimeFormat.IsValidTimestamp(bytes));
    }
}
