using RapidFix.Pools.Diagnostics;

namespace RapidFix.Pools.Tests.Diagnostics;

public sealed class LatencyHistogramTests
{
    [Fact]
    public void Values_below_256_ns_have_their_own_bucket()
    {
        for (long v = 0; v < 256; v++)
        {
            int index = LatencyHistogram.IndexOf(v);
            Assert.Equal(v, LatencyHistogram.LowestEquivalentValue(index));
            Assert.Equal(v, LatencyHistogram.HighestEquivalentValue(index));
        }
    }

    [Fact]
    public void Every_value_falls_in_a_bucket_whose_bounds_hold_it_within_one_128th()
    {
        var random = new Random(42);
        for (int i = 0; i < 200_000; i++)
        {
            long v = (long)Math.Pow(2, random.NextDouble() * 40);
            int index = LatencyHistogram.IndexOf(v);
            long low = LatencyHistogram.LowestEquivalentValue(index);
            long high = LatencyHistogram.HighestEquivalentValue(index);
            Assert.InRange(v, low, high);
            Assert.True(high - low <= Math.Max(0, low / 128), $"bucket [{low}, {high}] too wide for {v}");
        }
    }

    [Fact]
    public void Buckets_are_contiguous_and_increasing()
    {
        for (int i = 1; i < LatencyHistogram.BucketCount; i++)
        {
            Assert.Equal(LatencyHistogram.HighestEquivalentValue(i - 1) + 1, LatencyHistogram.LowestEquivalentValue(i));
        }

        Assert.Equal(LatencyHistogram.BucketCount - 1, LatencyHistogram.IndexOf(long.MaxValue));
        Assert.Equal(0, LatencyHistogram.IndexOf(-5));
    }

    [Fact]
    public void Percentiles_match_the_sorted_values_within_the_bucket_precision()
    {
        var random = new Random(7);
        var values = new long[100_000];
        var h = new LatencyHistogram();
        for (int i = 0; i < values.Length; i++)
        {
            // A latency-like shape: mostly a few microseconds, a long tail to milliseconds.
            values[i] = random.NextDouble() < 0.99 ? 1_000 + random.Next(9_000) : 50_000 + random.Next(5_000_000);
            h.Record(values[i]);
        }

        Array.Sort(values);
        foreach (double p in new[] { 0.0, 50, 90, 99, 99.9, 99.99, 99.999, 100 })
        {
            long exact = values[Math.Max(0, (int)Math.Ceiling(p / 100 * values.Length) - 1)];
            long reported = h.ValueAtPercentile(p);
            Assert.InRange(reported, exact, exact + Math.Max(1, exact / 128));
        }

        Assert.Equal(values.Length, h.TotalCount);
        Assert.Equal(values[^1], h.Max);
        Assert.Equal(values.Average(), h.Mean, 6);
        double std = Math.Sqrt(values.Select(v => (v - values.Average()) * (v - values.Average())).Average());
        Assert.InRange(h.StandardDeviation, std * 0.99, std * 1.01);
        Assert.InRange(h.Min, values[0] - values[0] / 128, values[0]);
    }

    [Fact]
    public void An_empty_histogram_reports_zeros()
    {
        var h = new LatencyHistogram();
        Assert.Equal(0, h.ValueAtPercentile(99));
        Assert.Equal(0, h.Min);
        Assert.Equal(0, h.Mean);
        Assert.Equal(0, h.StandardDeviation);
    }

    [Fact]
    public void Differences_give_each_interval_only_its_own_values()
    {
        var live = new LatencyHistogram();
        var previous = new LatencyHistogram();
        var interval = new LatencyHistogram();
        for (int i = 0; i < 1000; i++)
        {
            live.Record(1_000);
        }

        interval.CopyDifference(live, previous);
        Assert.Equal(1000, interval.TotalCount);
        Assert.Equal(1_000, interval.ValueAtPercentile(50));

        for (int i = 0; i < 10; i++)
        {
            live.Record(5_000_000);
        }

        interval.CopyDifference(live, previous);
        Assert.Equal(10, interval.TotalCount);
        Assert.Equal(50_000_000, interval.Sum);
        Assert.InRange(interval.ValueAtPercentile(1), 5_000_000, 5_000_000 + 5_000_000 / 128);
        Assert.Equal(5_000_000, interval.Max);

        interval.CopyDifference(live, previous);
        Assert.Equal(0, interval.TotalCount);
    }

    [Fact]
    public void Add_merges_counts_sums_and_maxima()
    {
        var a = new LatencyHistogram();
        var b = new LatencyHistogram();
        a.Record(100);
        b.Record(300);
        b.Record(70_000);
        a.Add(b);
        Assert.Equal(3, a.TotalCount);
        Assert.Equal(70_400, a.Sum);
        Assert.Equal(70_000, a.Max);
        Assert.InRange(a.ValueAtPercentile(66), 300, 301); // the upper bound of 300's two-nanosecond bucket
    }

    [Fact]
    public void Recording_allocates_nothing()
    {
        var h = new LatencyHistogram();
        long bytes = RapidFix.Tests.Shared.Allocations.Measure(h, static x => x.Record(Environment.TickCount64 & 0xFFFFF), 100_000);
        Assert.Equal(0, bytes);
    }
}
