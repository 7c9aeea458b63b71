using System.Globalization;
using RapidFix.EtwAnalyzer.Analysis;
using RapidFix.EtwAnalyzer.Reading;
using RapidFix.EtwAnalyzer.Reporting;
using RapidFix.Pools.Diagnostics;

namespace RapidFix.EtwAnalyzer.Tests;

public sealed class HgrmAndHtmlTests
{
    private static LatencyHistogram Uniform(int count)
    {
        var h = new LatencyHistogram();
        for (int i = 1; i <= count; i++)
        {
            h.Record(i * 100L); // 0.1 µs .. count/10 µs
        }

        return h;
    }

    [Fact]
    public void The_percentile_distribution_climbs_to_the_maximum_and_the_full_count()
    {
        var points = HgrmWriter.Points(Uniform(10_000));
        Assert.True(points.Count > 50);
        for (int i = 1; i < points.Count; i++)
        {
            Assert.True(points[i].ValueMicros >= points[i - 1].ValueMicros);
            Assert.True(points[i].Fraction >= points[i - 1].Fraction);
            Assert.True(points[i].CountAtOrBelow >= points[i - 1].CountAtOrBelow);
        }

        Assert.Equal(1.0, points[^1].Fraction);
        Assert.Equal(10_000, points[^1].CountAtOrBelow);
        Assert.Equal(1000.0, points[^1].ValueMicros);
        var median = points.First(p => p.Fraction >= 0.5);
        Assert.InRange(median.ValueMicros, 500, 500 * 1.01);
    }

    [Fact]
    public void The_hgrm_text_has_hdrhistograms_columns_and_footer()
    {
        string text = HgrmWriter.Format(Uniform(1_000));
        var lines = text.Split('\n');
        Assert.Matches(@"^\s+Value\s+Percentile\s+TotalCount\s+1/\(1-Percentile\)$", lines[0]);
        var first = lines[2].Split(' ', StringSplitOptions.RemoveEmptyEntries);
        Assert.Equal(4, first.Length);
        Assert.Equal(0.1, double.Parse(first[0], CultureInfo.InvariantCulture));
        Assert.Equal(0.0, double.Parse(first[1], CultureInfo.InvariantCulture));
        Assert.Contains("#[Mean    =       50.050, StdDeviation   =", text, StringComparison.Ordinal);
        Assert.Contains("#[Max     =      100.000, Total count    =         1000]", text, StringComparison.Ordinal);
        var last = lines.Last(l => l.Length > 0 && !l.StartsWith('#')).Split(' ', StringSplitOptions.RemoveEmptyEntries);
        Assert.Equal(3, last.Length); // the 100 % line has no 1/(1-p) column
        Assert.Equal("1.000000000000", last[1]);
    }

    [Fact]
    public void The_maximum_keeps_its_fraction_of_a_microsecond()
    {
        var h = new LatencyHistogram();
        h.Record(856_063);
        string text = HgrmWriter.Format(h);
        Assert.Contains("#[Max     =      856.063,", text, StringComparison.Ordinal);
        Assert.Contains("     856.063 1.000000000000          1", text, StringComparison.Ordinal);
    }

    [Fact]
    public void The_html_page_is_self_contained_with_both_charts_and_the_verdict()
    {
        var m = new TraceModel { Path = "/tmp/run.nettrace", StartMs = 0, EndMs = 3000 };
        m.Markers.Add(new PhaseMarker(1000, "ContinuousBegin", "e", new Dictionary<string, long>()));
        m.Markers.Add(new PhaseMarker(2000, "ContinuousEnd", "e", new Dictionary<string, long>()));
        m.Latency.Add(new LatencyInterval(1500, 0, 1, 1, 1000, 5_000, 9_000, 9_900, 10_000, Uniform(1000)));
        m.Collections.Add(new GcEvent(500, 1, 0, "AllocSmall", "NonConcurrentGC", 1));
        var a = TraceAnalysis.Analyze(m);
        string html = HtmlReport.Format(a, "report <text>");
        Assert.StartsWith("<!DOCTYPE html>", html, StringComparison.Ordinal);
        Assert.Equal(2, html.Split("<svg").Length - 1);
        Assert.Contains("<polyline", html, StringComparison.Ordinal);
        Assert.Contains("report &lt;text&gt;", html, StringComparison.Ordinal);
        Assert.Contains(TextReport.VerdictLine(a).Replace(":", ":", StringComparison.Ordinal)[..20], html, StringComparison.Ordinal);
        Assert.DoesNotContain("<script", html, StringComparison.Ordinal);
        Assert.DoesNotContain("http://", html.Replace("http://www.w3.org/2000/svg", "", StringComparison.Ordinal), StringComparison.Ordinal);
    }
}
