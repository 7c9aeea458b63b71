using System.Numerics;
using RapidFix.Engine.Fields;

namespace RapidFix.Matching.Tests;

/// <summary>
/// Reading amounts and dates (one lookup on the happy path: a missing field and a malformed one still get their own
/// answers), the scaled conversion's overflow check, and the NOE values a trade keeps for comparing later messages.
/// </summary>
public sealed class ReadingAndReferenceTests
{
    [Fact]
    public void Scaled_conversion_agrees_with_exact_arithmetic_at_every_magnitude()
    {
        long[] mantissas =
        [
            0, 1, -1, 7, -7, 9_223_372_036_854, -9_223_372_036_854, 9_223_372_036_855, -9_223_372_036_855,
            long.MaxValue, long.MinValue, long.MaxValue / 10, long.MinValue / 10, 922_337_203_685_477_580,
            -922_337_203_685_477_580, 922_337_203_685_477_581, 123_456_789, -123_456_789, 1_000_000, 15_030_00,
        ];
        int checkedCount = 0;
        foreach (long m in mantissas)
        {
            for (int exponent = -14; exponent <= 14; exponent++)
            {
                // Exact: m × 10^(exponent + 6) must be an integer within a long.
                BigInteger exact = exponent + Scaled.Decimals >= 0
                    ? m * BigInteger.Pow(10, exponent + Scaled.Decimals)
                    : BigInteger.DivRem(m, BigInteger.Pow(10, -(exponent + Scaled.Decimals)), out var remainder) is var q && remainder.IsZero ? q : BigInteger.MinusOne << 100;
                bool representable = exact >= long.MinValue && exact <= long.MaxValue;
                bool ok = Scaled.TryFrom(new FixDecimal(m, exponent), out long scaled);
                Assert.True(representable == ok, $"{m}e{exponent}: expected {(representable ? "a value" : "a refusal")}");
                if (ok)
                {
                    Assert.Equal((long)exact, scaled);
                }

                checkedCount++;
            }
        }

        Assert.Equal(mantissas.Length * 29, checkedCount);
    }

    [Theory]
    [InlineData("381", true)]   // required on NPR
    [InlineData("80", true)]
    [InlineData("6", true)]
    [InlineData("118", true)]
    [InlineData("159", false)]  // optional
    [InlineData("119", false)]
    public void An_amount_absent_is_missing_when_required_and_malformed_is_invalid(string tag, bool required)
    {
        string npr = ContractExamples.Get("NPR-A");
        if (!npr.Contains("|" + tag + "=", StringComparison.Ordinal))
        {
            npr = Demo.Frame([.. npr.TrimEnd('|').Split('|').SkipLast(1), tag + "=1.25", "10=000"]);
        }

        var invalid = Read(Demo.With(npr, tag + "=1.2.5"));
        Assert.False(invalid.Ok);
        Assert.Equal(new ReadProblem(ExceptionReason.InvalidField, int.Parse(tag, System.Globalization.CultureInfo.InvariantCulture)), invalid.Problem);

        // More than six decimals: read, but not representable.
        var tooFine = Read(Demo.With(npr, tag + "=1.0000001"));
        Assert.Equal(new ReadProblem(ExceptionReason.InvalidField, int.Parse(tag, System.Globalization.CultureInfo.InvariantCulture)), tooFine.Problem);

        var absent = Read(Without(npr, tag));
        if (required)
        {
            Assert.False(absent.Ok);
            Assert.Equal(new ReadProblem(ExceptionReason.MissingField, int.Parse(tag, System.Globalization.CultureInfo.InvariantCulture)), absent.Problem);
        }
        else
        {
            Assert.True(absent.Ok, absent.Problem.ToString());
        }
    }

    [Theory]
    [InlineData("75", "20261332", true)]
    [InlineData("75", "2026112", true)]
    [InlineData("75", "X", true)]
    [InlineData("64", "20261131", false)]
    [InlineData("64", "tomorrow", false)]
    public void A_date_absent_is_missing_when_required_and_malformed_is_invalid(string tag, string bad, bool required)
    {
        string npr = ContractExamples.Get("NPR-A");
        int number = int.Parse(tag, System.Globalization.CultureInfo.InvariantCulture);
        var invalid = Read(Demo.With(npr, tag + "=" + bad));
        Assert.False(invalid.Ok);
        Assert.Equal(new ReadProblem(ExceptionReason.InvalidField, number), invalid.Problem);

        var absent = Read(Without(npr, tag));
        if (required)
        {
            Assert.Equal(new ReadProblem(ExceptionReason.MissingField, number), absent.Problem);
        }
        else
        {
            Assert.True(absent.Ok, absent.Problem.ToString());
            Assert.False(absent.Input.Has(InputFields.SettlDate));
        }

        var good = Read(npr);
        Assert.True(good.Ok);
        Assert.Equal(20261123, good.Input.TradeDate);
        Assert.Equal(20261126, good.Input.SettlDate);
        Assert.Equal(15_030 * Scaled.One, good.Input.Gross);
        Assert.Equal(3 * Scaled.One / 2, good.Input.Fees);
    }

    [Fact]
    public void Messages_after_a_replaced_NOE_are_compared_with_the_replacement()
    {
        // The trade keeps its NOE's price, settlement date and block quantity for the comparisons of later messages:
        // after a replace they must be the replacement's.
        var trade = Trades.Documented();
        var matcher = Demo.NewMatcher();
        var sink = new RecordingSink();
        Trades.Send(matcher, trade["NOE"], ref sink);
        string replace = Demo.Frame(Demo.With(trade["NOE"], "571=NOE-1001R", "487=2", "31=2.51", "32=6000", "64=20261127")
            .Replace("|487=2|", "|487=2|572=NOE-1001|", StringComparison.Ordinal).TrimEnd('|').Split('|'));
        Trades.Send(matcher, replace, ref sink);
        Assert.Equal(AckStatus.Accepted, sink.LastAck.Status);

        // The old price and settlement date are mismatches now.
        Trades.Send(matcher, trade["ALC-A"], ref sink);
        Assert.Equal(AckStatus.Rejected, sink.LastAck.Status);
        Assert.Equal(Criterion.SettlementDate, sink.LastAck.Criterion);
        Trades.Send(matcher, Demo.With(trade["ALC-A"], "64=20261127"), ref sink);
        Assert.Equal(AckStatus.Rejected, sink.LastAck.Status);
        Assert.Equal(Criterion.Price, sink.LastAck.Criterion);
        Assert.Contains("EXPECTED 2.51 ", RecordingSink.Text(sink.Exceptions[^1]), StringComparison.Ordinal);

        // The replacement's agree; its block (6,000) takes ACC-A's 6,000 and leaves no room for ACC-B's 4,000,
        // which therefore opens a trade of its own.
        Trades.Send(matcher, Demo.With(trade["ALC-A"], "6=2.51", "64=20261127"), ref sink);
        Assert.Equal(AckStatus.Accepted, sink.LastAck.Status);
        Assert.Equal(1, matcher.OpenTrades);
        Trades.Send(matcher, Demo.With(trade["ALC-B"], "6=2.51", "64=20261127"), ref sink);
        Assert.Equal(AckStatus.Accepted, sink.LastAck.Status);
        Assert.Equal(2, matcher.OpenTrades);
    }

    [Fact]
    public void Rounding_to_a_price_precision_matches_exact_arithmetic_at_every_precision()
    {
        // Round takes a constant divisor per precision: each against decimal arithmetic, half away from zero.
        long[] values = [0, 1, 4, 5, 9, 15, 25, 49, 50, 51, 2_505_000, 2_504_999, 2_505_500, 999_999_999_999_999, 123_456_789_012_345];
        for (int decimals = 0; decimals <= Scaled.Decimals + 1; decimals++)
        {
            foreach (long magnitude in values)
            {
                foreach (long v in new[] { magnitude, -magnitude })
                {
                    decimal exact = Math.Round(v / 1_000_000m, Math.Min(decimals, Scaled.Decimals), MidpointRounding.AwayFromZero);
                    Assert.Equal((long)(exact * 1_000_000m), Scaled.Round(v, decimals));
                }
            }
        }
    }

    [Fact]
    public void Ids_compare_by_their_bytes_whatever_lies_past_their_length()
    {
        // The sender is compared with the parties in one 16-byte compare: bytes a longer value left behind must not count.
        var a = default(Bytes16);
        var b = default(Bytes16);
        Assert.True(a.SameBytes(in b));
        Assert.True(a.TrySet("EB1-LONGER-NAME"u8));
        Assert.True(a.TrySet("EB1"u8));
        Assert.True(b.TrySet("EB1"u8));
        Assert.True(a.SameBytes(in b));
        Assert.True(b.TrySet("EB2"u8));
        Assert.False(a.SameBytes(in b));
        Assert.True(b.TrySet("EB1-"u8));
        Assert.False(a.SameBytes(in b));
        Assert.True(a.TrySet("0123456789ABCDEF"u8));
        Assert.True(b.TrySet("0123456789ABCDEF"u8));
        Assert.True(a.SameBytes(in b));
        Assert.True(b.TrySet("0123456789ABCDEX"u8));
        Assert.False(a.SameBytes(in b));
        Assert.False(a.SameBytes(default));
    }

    private static (bool Ok, MatchInput Input, ReadProblem Problem) Read(string text)
    {
        bool ok = MessageReader.TryRead(Demo.Parse(text), Demo.SenderOf(text), out var input, out var problem);
        return (ok, input, problem);
    }

    private static string Without(string text, string tag) =>
        Demo.Frame(text.TrimEnd('|').Split('|').Where(f => !f.StartsWith(tag + "=", StringComparison.Ordinal)));
}
