using RapidFix.Pools.Diagnostics;

namespace RapidFix.Pools.Tests.Diagnostics;

public sealed class LatencyHistogramCodecTests
{
    private static LatencyHistogram Sample()
    {
        var h = new LatencyHistogram();
        var random = new Random(3);
        for (int i = 0; i < 50_000; i++)
        {
            h.Record(random.Next(200, 20_000));
        }

        h.Record(123_456_789);
        return h;
    }

    [Fact]
    public void Text_round_trip_keeps_every_bucket_and_the_exact_sum_and_maximum()
    {
        var h = Sample();
        var bytes = new byte[LatencyHistogramCodec.MaxEncodedLength];
        var text = new char[LatencyHistogramCodec.MaxEncodedLength * 2];
        int n = LatencyHistogramCodec.EncodeText(h, bytes, text);
        Assert.True(n > 0);

        var decoded = new LatencyHistogram();
        Assert.True(LatencyHistogramCodec.TryDecodeTextInto(new string(text, 0, n), decoded, out string? error), error);
        Assert.Equal(h.TotalCount, decoded.TotalCount);
        Assert.Equal(h.Sum, decoded.Sum);
        Assert.Equal(h.Max, decoded.Max);
        for (int i = 0; i < LatencyHistogram.BucketCount; i++)
        {
            Assert.Equal(h.CountAt(i), decoded.CountAt(i));
        }
    }

    [Fact]
    public void Decoding_adds_to_what_the_histogram_holds()
    {
        var h = Sample();
        var bytes = new byte[LatencyHistogramCodec.MaxEncodedLength];
        int n = LatencyHistogramCodec.Encode(h, bytes);
        var merged = new LatencyHistogram();
        Assert.True(LatencyHistogramCodec.TryDecodeInto(bytes.AsSpan(0, n), merged, out _));
        Assert.True(LatencyHistogramCodec.TryDecodeInto(bytes.AsSpan(0, n), merged, out _));
        Assert.Equal(2 * h.TotalCount, merged.TotalCount);
        Assert.Equal(2 * h.Sum, merged.Sum);
    }

    [Fact]
    public void A_destination_too_small_is_refused_not_overrun()
    {
        var h = Sample();
        var small = new byte[64];
        Assert.Equal(-1, LatencyHistogramCodec.Encode(h, small));
        Assert.Equal(-1, LatencyHistogramCodec.EncodeText(h, new byte[LatencyHistogramCodec.MaxEncodedLength], new char[10]));
    }

    [Theory]
    [InlineData("", "too short")]
    [InlineData("zz", "not hexadecimal")]
    [InlineData("0907", "unknown histogram format")]
    [InlineData("0107", "header truncated")]
    [InlineData("010702000005", "bucket list truncated")]
    [InlineData("01070300000005", "add up to")]
    public void Damaged_text_is_refused_with_a_reason(string text, string expected)
    {
        Assert.False(LatencyHistogramCodec.TryDecodeTextInto(text, new LatencyHistogram(), out string? error));
        Assert.Contains(expected, error, StringComparison.Ordinal);
    }

    [Fact]
    public void Encoding_allocates_nothing()
    {
        var state = (Histogram: Sample(), Bytes: new byte[LatencyHistogramCodec.MaxEncodedLength], Text: new char[LatencyHistogramCodec.MaxEncodedLength * 2]);
        long bytes = RapidFix.Tests.Shared.Allocations.Measure(state, static s => LatencyHistogramCodec.EncodeText(s.Histogram, s.Bytes, s.Text), 2_000);
        Assert.Equal(0, bytes);
    }
}
