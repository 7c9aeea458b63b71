using System.Globalization;
using System.Text;
using RapidFix.Pools.Diagnostics;

namespace RapidFix.EtwAnalyzer.Reporting;

/// <summary>
/// Writes a histogram as an HdrHistogram percentile distribution (".hgrm"), values in microseconds, the format
/// HdrHistogram's plotter and most latency tooling read: one line per percentile step, five steps per halving of
/// the distance to 100 %, then the mean, deviation, maximum and count.
/// </summary>
public static class HgrmWriter
{
    private const int TicksPerHalfDistance = 5;

    /// <summary>The (value in µs, percentile as a fraction, count at or below) points of the distribution.</summary>
    public static IReadOnlyList<(double ValueMicros, double Fraction, long CountAtOrBelow)> Points(LatencyHistogram histogram)
    {
        ArgumentNullException.ThrowIfNull(histogram);
        var points = new List<(double, double, long)>();
        long total = histogram.TotalCount;
        if (total == 0)
        {
            return points;
        }

        double percentile = 0;
        while (true)
        {
            long value = histogram.ValueAtPercentile(percentile);
            long countAtOrBelow = CountAtOrBelow(histogram, value);
            // The last point; the step guard ends the walk even for a maximum inconsistent with the buckets.
            if (countAtOrBelow >= total || points.Count >= 4096)
            {
                points.Add((histogram.Max / 1000.0, 1.0, total));
                return points;
            }

            points.Add((value / 1000.0, percentile / 100, countAtOrBelow));
            double halvings = Math.Floor(Math.Log2(100 / (100 - percentile)));
            double ticks = TicksPerHalfDistance * Math.Pow(2, halvings + 1);
            percentile += 100 / ticks;
        }
    }

    public static string Format(LatencyHistogram histogram)
    {
        ArgumentNullException.ThrowIfNull(histogram);
        var text = new StringBuilder();
        var inv = CultureInfo.InvariantCulture;
        text.Append(inv, $"{"Value",12} {"Percentile",14} {"TotalCount",10} {"1/(1-Percentile)",14}\n\n");
        foreach (var (value, fraction, count) in Points(histogram))
        {
            if (fraction < 1)
            {
                text.Append(inv, $"{value,12:F3} {fraction,14:F12} {count,10} {1 / (1 - fraction),14:F2}\n");
            }
            else
            {
                text.Append(inv, $"{value,12:F3} {fraction,14:F12} {count,10}\n");
            }
        }

        text.Append(inv, $"#[Mean    = {histogram.Mean / 1000,12:F3}, StdDeviation   = {histogram.StandardDeviation / 1000,12:F3}]\n");
        text.Append(inv, $"#[Max     = {histogram.Max / 1000.0,12:F3}, Total count    = {histogram.TotalCount,12}]\n");
        text.Append(inv, $"#[Buckets = {LatencyHistogram.BucketCount,12}, SubBuckets     = {1 << LatencyHistogram.SubBucketBits,12}]\n");
        return text.ToString();
    }

    private static long CountAtOrBelow(LatencyHistogram histogram, long value)
    {
        long count = 0;
        int last = LatencyHistogram.IndexOf(value);
        for (int i = 0; i <= last; i++)
        {
            count += histogram.CountAt(i);
        }

        return count;
    }
}
