using System.Globalization;
using System.Text;
using HdrHistogram;

namespace RapidFix.TradeDriver.Measure;

/// <summary>
/// One row of the 4-day table (Rapid Addition's soak report, paper 002): count, run time, min, mean, standard
/// deviation, median, p90, p99, p99.9, p99.99, p99.999, max; latencies in microseconds.
/// </summary>
internal sealed record LatencyRow(string Name, long Count, double RunSeconds, double Min, double Mean, double Std, double Median, double P90,
    double P99, double P999, double P9999, double P99999, double Max)
{
    /// <summary>The percentiles the table shows, in its order.</summary>
    public static readonly double[] Percentiles = [50, 90, 99, 99.9, 99.99, 99.999];

    /// <summary>The row of a histogram of nanoseconds; an empty histogram gives zeros.</summary>
    public static LatencyRow From(string name, HistogramBase h, double runSeconds)
    {
        ArgumentNullException.ThrowIfNull(h);
        if (h.TotalCount == 0)
        {
            return new LatencyRow(name, 0, runSeconds, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0);
        }

        static double Us(double nanos) => nanos / 1000.0;
        return new LatencyRow(name, h.TotalCount, runSeconds, Us(Lowest(h)), Us(h.GetMean()), Us(h.GetStdDeviation()), Us(h.GetValueAtPercentile(50)),
            Us(h.GetValueAtPercentile(90)), Us(h.GetValueAtPercentile(99)), Us(h.GetValueAtPercentile(99.9)), Us(h.GetValueAtPercentile(99.99)),
            Us(h.GetValueAtPercentile(99.999)), Us(h.GetMaxValue()));
    }

    // The lowest recorded value (HdrHistogram reports values at bucket resolution: equivalent values share one).
    private static long Lowest(HistogramBase h)
    {
        foreach (var v in h.RecordedValues())
        {
            return h.LowestEquivalentValue(v.ValueIteratedTo);
        }

        return 0;
    }

    /// <summary>The table as text, one row per histogram, in the paper's column order.</summary>
    public static string Format(IEnumerable<LatencyRow> rows)
    {
        var inv = CultureInfo.InvariantCulture;
        var text = new StringBuilder();
        text.Append(inv, $"{"latency (us)",-22}{"count",11}{"run s",7}{"min",11}{"mean",11}{"std",11}{"median",11}{"p90",11}{"p99",11}{"p99.9",11}{"p99.99",11}{"p99.999",11}{"max",11}\n");
        foreach (var r in rows)
        {
            text.Append(inv,
                $"{r.Name,-22}{r.Count,11}{r.RunSeconds,7:F1} {V(r.Min)} {V(r.Mean)} {V(r.Std)} {V(r.Median)} {V(r.P90)} {V(r.P99)} {V(r.P999)} {V(r.P9999)} {V(r.P99999)} {V(r.Max)}\n");
        }

        return text.ToString();

        // Ten characters at most: one decimal below 100,000 µs, none above, seconds beyond a million µs.
        static string V(double us) => us < 100_000 ? us.ToString("F1", CultureInfo.InvariantCulture).PadLeft(10)
            : us < 1e7 ? us.ToString("F0", CultureInfo.InvariantCulture).PadLeft(10)
            : (us / 1e6).ToString("F1", CultureInfo.InvariantCulture).PadLeft(9) + "s";
    }
}
