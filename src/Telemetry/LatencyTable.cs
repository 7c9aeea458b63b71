using System.Globalization;
using System.Text;

namespace RapidFix.Pools.Diagnostics;

/// <summary>
/// Formats send and receive processing times side by side, in the layout of Rapid Addition's four-day run
/// (message count, run time, then min, mean, standard deviation and percentiles in microseconds).
/// </summary>
public static class LatencyTable
{
    /// <summary>The percentiles the table shows, with their row labels.</summary>
    public static readonly (string Label, double Percentile)[] Rows =
    [
        ("Median (us)", 50),
        ("90th Percentile (us)", 90),
        ("99th Percentile (us)", 99),
        ("99.9th Percentile (us)", 99.9),
        ("99.99th Percentile (us)", 99.99),
        ("99.999th Percentile (us)", 99.999),
    ];

    /// <summary>The table as text lines (columns aligned; an empty histogram shows dashes).</summary>
    public static string Format(LatencyHistogram send, LatencyHistogram receive, TimeSpan runTime)
    {
        ArgumentNullException.ThrowIfNull(send);
        ArgumentNullException.ThrowIfNull(receive);
        var text = new StringBuilder();
        void Row(string label, string a, string b) => text.Append(CultureInfo.InvariantCulture, $"{label,-26}{a,18}{b,18}\n");
        string Micros(LatencyHistogram h, double nanoseconds) => h.TotalCount == 0 ? "-" : (nanoseconds / 1000.0).ToString("F2", CultureInfo.InvariantCulture);

        Row("Item", "Send Total", "Receive Total");
        Row("Message count", send.TotalCount.ToString("N0", CultureInfo.InvariantCulture), receive.TotalCount.ToString("N0", CultureInfo.InvariantCulture));
        string minutes = runTime.TotalMinutes.ToString("F2", CultureInfo.InvariantCulture);
        Row("Run time (minutes)", minutes, minutes);
        Row("Min (us)", Micros(send, send.Min), Micros(receive, receive.Min));
        Row("Mean (us)", Micros(send, send.Mean), Micros(receive, receive.Mean));
        Row("Std (us)", Micros(send, send.StandardDeviation), Micros(receive, receive.StandardDeviation));
        foreach (var (label, percentile) in Rows)
        {
            Row(label, Micros(send, send.ValueAtPercentile(percentile)), Micros(receive, receive.ValueAtPercentile(percentile)));
        }

        Row("Max (us)", Micros(send, send.Max), Micros(receive, receive.Max));
        return text.ToString().TrimEnd('\n');
    }
}
