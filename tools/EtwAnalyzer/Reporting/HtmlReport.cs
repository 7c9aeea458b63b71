using System.Globalization;
using System.Net;
using System.Text;
using RapidFix.EtwAnalyzer.Analysis;
using RapidFix.Pools.Diagnostics;

namespace RapidFix.EtwAnalyzer.Reporting;

/// <summary>
/// A self-contained HTML page (inline SVG, no script, nothing fetched) with the continuous phase's percentile
/// distribution per channel, a timeline of the interval percentiles with the phases, GCs and allocation ticks
/// marked, and the text report.
/// </summary>
public static class HtmlReport
{
    private const int Width = 900;
    private const int Height = 360;
    private const int Left = 70;
    private const int Right = 20;
    private const int Top = 20;
    private const int Bottom = 50;
    private static readonly CultureInfo Inv = CultureInfo.InvariantCulture;
    private static readonly string[] Colors = ["#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e", "#8c564b"];

    public static string Format(TraceAnalysis analysis, string textReport)
    {
        ArgumentNullException.ThrowIfNull(analysis);
        var html = new StringBuilder();
        html.Append("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>RapidFix trace: ")
            .Append(Encode(Path.GetFileName(analysis.Model.Path)))
            .Append("</title>\n<style>body{font-family:sans-serif;margin:20px;color:#222}pre{background:#f6f6f6;padding:10px;font-size:12px}")
            .Append("svg{background:#fff;border:1px solid #ccc}text{font-size:11px}.pass{color:#2a7d2a}.fail{color:#c62828}</style></head><body>\n");
        html.Append("<h1>RapidFix trace: ").Append(Encode(Path.GetFileName(analysis.Model.Path))).Append("</h1>\n");
        string css = analysis.Verdict == Verdict.Pass ? "pass" : "fail";
        html.Append("<h2 class=\"").Append(css).Append("\">").Append(Encode(TextReport.VerdictLine(analysis))).Append("</h2>\n");

        html.Append("<h2>Latency distribution, continuous phase</h2>\n");
        var series = new List<(string Name, IReadOnlyList<(double X, double Y)> Points)>();
        foreach (var channel in new[] { LatencyChannel.Receive, LatencyChannel.Send })
        {
            var h = analysis.Continuous.Histogram(channel);
            if (h.TotalCount == 0)
            {
                continue;
            }

            // x: 1/(1-p) on a log scale, capped at a million (99.9999 %).
            var points = HgrmWriter.Points(h).Select(p => (Math.Log10(Math.Min(1e6, p.Fraction >= 1 ? 1e6 : 1 / (1 - p.Fraction))), p.ValueMicros)).ToList();
            series.Add(($"{channel} ({h.TotalCount:N0})", points));
        }

        if (series.Count == 0)
        {
            html.Append("<p>No latency summaries in the continuous phase.</p>\n");
        }
        else
        {
            var xTicks = new (double, string)[] { (0, "0%"), (1, "90%"), (2, "99%"), (3, "99.9%"), (4, "99.99%"), (5, "99.999%"), (6, "99.9999%") };
            html.Append(Chart(series, 0, 6, xTicks, "percentile", "latency (µs, log scale)", [], []));
        }

        html.Append("<h2>Timeline: latency per interval, with phases, GCs (red) and allocation ticks (orange)</h2>\n");
        var m = analysis.Model;
        double t0 = m.StartMs;
        var timeline = new List<(string, IReadOnlyList<(double, double)>)>();
        foreach (var channel in new[] { LatencyChannel.Receive, LatencyChannel.Send })
        {
            var intervals = m.Latency.Where(l => l.Channel == (int)channel).OrderBy(l => l.TimeMs).ToList();
            if (intervals.Count == 0)
            {
                continue;
            }

            timeline.Add(($"{channel} p99", intervals.Select(l => ((l.TimeMs - t0) / 1000, l.P99 / 1000.0)).ToList()));
            timeline.Add(($"{channel} max", intervals.Select(l => ((l.TimeMs - t0) / 1000, l.Max / 1000.0)).ToList()));
        }

        double duration = Math.Max(1e-3, (m.EndMs - m.StartMs) / 1000);
        var bands = analysis.Phases.Select(p => ((p.StartMs - t0) / 1000, (p.EndMs - t0) / 1000, p.Name)).ToList();
        var marks = m.Collections.Select(g => ((g.TimeMs - t0) / 1000, "#d62728"))
            .Concat(m.AllocationTicks.Select(a => ((a.TimeMs - t0) / 1000, "#ff7f0e"))).ToList();
        var timeTicks = Enumerable.Range(0, 11).Select(i => (duration * i / 10, (duration * i / 10).ToString("F0", Inv) + " s")).ToArray();
        if (timeline.Count == 0)
        {
            html.Append("<p>No latency summaries in the trace.</p>\n");
        }
        else
        {
            html.Append(Chart(timeline, 0, duration, timeTicks, "time since the trace began", "latency (µs, log scale)", bands, marks));
        }

        html.Append("<h2>Report</h2>\n<pre>").Append(Encode(textReport)).Append("</pre>\n</body></html>\n");
        return html.ToString();
    }

    private static string Chart(IReadOnlyList<(string Name, IReadOnlyList<(double X, double Y)> Points)> series, double xMin, double xMax,
        IReadOnlyList<(double X, string Label)> xTicks, string xLabel, string yLabel,
        IReadOnlyList<(double From, double To, string Name)> bands, IReadOnlyList<(double X, string Color)> marks)
    {
        var values = series.SelectMany(s => s.Points).Select(p => Math.Max(p.Y, 0.01)).ToList();
        double yMin = Math.Pow(10, Math.Floor(Math.Log10(values.Min())));
        double yMax = Math.Pow(10, Math.Ceiling(Math.Log10(values.Max() * 1.0001)));
        if (yMax <= yMin)
        {
            yMax = yMin * 10;
        }

        double plotW = Width - Left - Right;
        double plotH = Height - Top - Bottom;
        double X(double x) => Left + (xMax <= xMin ? 0 : (x - xMin) / (xMax - xMin) * plotW);
        double Y(double y) => Top + plotH - (Math.Log10(Math.Max(y, yMin)) - Math.Log10(yMin)) / (Math.Log10(yMax) - Math.Log10(yMin)) * plotH;

        var svg = new StringBuilder();
        svg.Append(Inv, $"<svg width=\"{Width}\" height=\"{Height}\" xmlns=\"http://www.w3.org/2000/svg\">\n");
        string[] bandColors = ["#f3f3f3", "#e8f4ea", "#f3f3f3"];
        for (int i = 0; i < bands.Count; i++)
        {
            var (from, to, name) = bands[i];
            svg.Append(Inv, $"<rect x=\"{X(from):F1}\" y=\"{Top}\" width=\"{Math.Max(0, X(to) - X(from)):F1}\" height=\"{plotH:F1}\" fill=\"{bandColors[i % bandColors.Length]}\"/>");
            svg.Append(Inv, $"<text x=\"{X(from) + 4:F1}\" y=\"{Top + 12}\">{Encode(name)}</text>\n");
        }

        foreach (var (x, color) in marks)
        {
            svg.Append(Inv, $"<line x1=\"{X(x):F1}\" y1=\"{Top}\" x2=\"{X(x):F1}\" y2=\"{Top + plotH:F1}\" stroke=\"{color}\" stroke-width=\"1\" opacity=\"0.6\"/>");
        }

        for (double decade = yMin; decade <= yMax * 1.0001; decade *= 10)
        {
            svg.Append(Inv, $"<line x1=\"{Left}\" y1=\"{Y(decade):F1}\" x2=\"{Left + plotW:F1}\" y2=\"{Y(decade):F1}\" stroke=\"#ddd\"/>");
            svg.Append(Inv, $"<text x=\"{Left - 6}\" y=\"{Y(decade) + 4:F1}\" text-anchor=\"end\">{(decade >= 1 ? decade.ToString("N0", Inv) : decade.ToString("G3", Inv))}</text>\n");
        }

        foreach (var (x, label) in xTicks)
        {
            svg.Append(Inv, $"<line x1=\"{X(x):F1}\" y1=\"{Top + plotH:F1}\" x2=\"{X(x):F1}\" y2=\"{Top + plotH + 5:F1}\" stroke=\"#333\"/>");
            svg.Append(Inv, $"<text x=\"{X(x):F1}\" y=\"{Top + plotH + 18:F1}\" text-anchor=\"middle\">{Encode(label)}</text>\n");
        }

        svg.Append(Inv, $"<rect x=\"{Left}\" y=\"{Top}\" width=\"{plotW:F1}\" height=\"{plotH:F1}\" fill=\"none\" stroke=\"#333\"/>\n");
        svg.Append(Inv, $"<text x=\"{Left + plotW / 2:F1}\" y=\"{Height - 8}\" text-anchor=\"middle\">{Encode(xLabel)}</text>");
        svg.Append(Inv, $"<text x=\"14\" y=\"{Top + plotH / 2:F1}\" text-anchor=\"middle\" transform=\"rotate(-90 14 {Top + plotH / 2:F1})\">{Encode(yLabel)}</text>\n");
        for (int s = 0; s < series.Count; s++)
        {
            string color = Colors[s % Colors.Length];
            var points = string.Join(" ", series[s].Points.Select(p => string.Create(Inv, $"{X(p.X):F1},{Y(Math.Max(p.Y, 0.01)):F1}")));
            svg.Append(Inv, $"<polyline fill=\"none\" stroke=\"{color}\" stroke-width=\"1.5\" points=\"{points}\"/>\n");
            svg.Append(Inv, $"<rect x=\"{Left + 10}\" y=\"{Top + 22 + s * 16}\" width=\"12\" height=\"3\" fill=\"{color}\"/>");
            svg.Append(Inv, $"<text x=\"{Left + 28}\" y=\"{Top + 27 + s * 16}\">{Encode(series[s].Name)}</text>\n");
        }

        svg.Append("</svg>\n");
        return svg.ToString();
    }

    private static string Encode(string s) => WebUtility.HtmlEncode(s);
}
