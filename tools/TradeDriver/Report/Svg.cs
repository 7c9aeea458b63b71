using System.Globalization;
using System.Net;
using System.Text;

namespace RapidFix.TradeDriver.Report;

/// <summary>One line (or set of markers) of a plot.</summary>
internal sealed record Series(string Name, IReadOnlyList<(double X, double Y)> Points, bool Markers = false, bool Dashed = false);

/// <summary>A shaded band along the x axis (a run's phases).</summary>
internal sealed record Band(double From, double To, string Label);

/// <summary>
/// Plots drawn as inline SVG, so that the report is one self-contained file with nothing to load: axes with
/// round-number ticks, lines and markers, an optional logarithmic x axis (percentile distributions) and a legend.
/// </summary>
internal static class Svg
{
    private const int Width = 860, Height = 380, Left = 70, Right = 20, Top = 34, Bottom = 50;
    private static readonly string[] Colours = ["#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e", "#17becf", "#8c564b"];
    private static readonly CultureInfo Inv = CultureInfo.InvariantCulture;

    /// <summary>
    /// A line plot. With <paramref name="percentileX"/> the x values are percentiles (0..100) drawn on the usual
    /// latency-distribution axis, log10(1 / (1 - p)), labelled 90, 99, 99.9...
    /// </summary>
    public static string Plot(string title, string xLabel, string yLabel, IReadOnlyList<Series> series, bool percentileX = false,
        IReadOnlyList<Band>? bands = null, bool identityLine = false)
    {
        var all = series.SelectMany(s => s.Points).Where(p => double.IsFinite(p.X) && double.IsFinite(p.Y)).ToList();
        var svg = new StringBuilder();
        svg.Append(Inv, $"<svg xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 {Width} {Height}\" width=\"{Width}\" height=\"{Height}\" role=\"img\" aria-label=\"{E(title)}\">");
        svg.Append(Inv, $"<rect width=\"{Width}\" height=\"{Height}\" fill=\"#fff\"/><text x=\"{Width / 2}\" y=\"20\" text-anchor=\"middle\" font-size=\"15\" font-weight=\"bold\">{E(title)}</text>");
        if (all.Count == 0)
        {
            svg.Append(Inv, $"<text x=\"{Width / 2}\" y=\"{Height / 2}\" text-anchor=\"middle\" fill=\"#888\">no data</text></svg>");
            return svg.ToString();
        }

        Func<double, double> fx = percentileX ? p => Math.Log10(1 / Math.Max(1e-7, 1 - (Math.Min(p, 99.99999) / 100))) : x => x;
        double x0 = all.Min(p => fx(p.X)), x1 = all.Max(p => fx(p.X));
        double y0 = 0, y1 = all.Max(p => p.Y);
        if (identityLine)
        {
            x0 = Math.Min(x0, 0);
            x1 = y1 = Math.Max(x1, y1);
        }

        if (!percentileX && x0 > 0 && x1 - x0 < 0.1 * x1)
        {
            x0 = 0; // a single point (or a tight cluster) is read against zero, not against itself
        }

        if (x1 <= x0)
        {
            x1 = x0 + 1;
        }

        if (y1 <= y0)
        {
            y1 = y0 + 1;
        }

        y1 = NiceCeiling(y1);
        double Px(double x) => Left + ((fx(x) - x0) / (x1 - x0) * (Width - Left - Right));
        double Py(double y) => Height - Bottom - ((y - y0) / (y1 - y0) * (Height - Top - Bottom));
        double Pxr(double raw) => Left + ((raw - x0) / (x1 - x0) * (Width - Left - Right));

        foreach (var (band, i) in (bands ?? []).Select((b, i) => (b, i)))
        {
            double a = Math.Max(Left, Px(band.From)), b = Math.Min(Width - Right, Px(band.To));
            if (b > a)
            {
                svg.Append(Inv, $"<rect x=\"{a:F1}\" y=\"{Top}\" width=\"{b - a:F1}\" height=\"{Height - Top - Bottom}\" fill=\"{(i % 2 == 0 ? "#f3f3f3" : "#e8eef7")}\"/>");
                svg.Append(Inv, $"<text x=\"{(a + b) / 2:F1}\" y=\"{Height - Bottom - 5}\" text-anchor=\"middle\" font-size=\"10\" fill=\"#666\">{E(band.Label)}</text>");
            }
        }

        // Axes and ticks.
        svg.Append(Inv, $"<line x1=\"{Left}\" y1=\"{Height - Bottom}\" x2=\"{Width - Right}\" y2=\"{Height - Bottom}\" stroke=\"#333\"/>");
        svg.Append(Inv, $"<line x1=\"{Left}\" y1=\"{Top}\" x2=\"{Left}\" y2=\"{Height - Bottom}\" stroke=\"#333\"/>");
        foreach (double t in Ticks(y0, y1))
        {
            svg.Append(Inv, $"<line x1=\"{Left}\" y1=\"{Py(t):F1}\" x2=\"{Width - Right}\" y2=\"{Py(t):F1}\" stroke=\"#ddd\"/>");
            svg.Append(Inv, $"<text x=\"{Left - 6}\" y=\"{Py(t) + 4:F1}\" text-anchor=\"end\" font-size=\"11\">{Number(t)}</text>");
        }

        if (percentileX)
        {
            foreach (var (label, decades) in new[] { ("0", 0.0), ("90", 1.0), ("99", 2.0), ("99.9", 3.0), ("99.99", 4.0), ("99.999", 5.0), ("99.9999", 6.0) })
            {
                if (decades >= x0 - 1e-9 && decades <= x1 + 1e-9)
                {
                    svg.Append(Inv, $"<line x1=\"{Pxr(decades):F1}\" y1=\"{Top}\" x2=\"{Pxr(decades):F1}\" y2=\"{Height - Bottom}\" stroke=\"#eee\"/>");
                    svg.Append(Inv, $"<text x=\"{Pxr(decades):F1}\" y=\"{Height - Bottom + 16}\" text-anchor=\"middle\" font-size=\"11\">{label}</text>");
                }
            }
        }
        else
        {
            foreach (double t in Ticks(x0, x1))
            {
                svg.Append(Inv, $"<text x=\"{Px(t):F1}\" y=\"{Height - Bottom + 16}\" text-anchor=\"middle\" font-size=\"11\">{Number(t)}</text>");
            }
        }

        svg.Append(Inv, $"<text x=\"{(Left + Width - Right) / 2}\" y=\"{Height - 10}\" text-anchor=\"middle\" font-size=\"12\">{E(xLabel)}</text>");
        svg.Append(Inv, $"<text x=\"16\" y=\"{(Top + Height - Bottom) / 2}\" text-anchor=\"middle\" font-size=\"12\" transform=\"rotate(-90 16 {(Top + Height - Bottom) / 2})\">{E(yLabel)}</text>");
        if (identityLine)
        {
            svg.Append(Inv, $"<line x1=\"{Px(0):F1}\" y1=\"{Py(0):F1}\" x2=\"{Px(y1):F1}\" y2=\"{Py(y1):F1}\" stroke=\"#aaa\" stroke-dasharray=\"4 4\"/>");
        }

        for (int i = 0; i < series.Count; i++)
        {
            var s = series[i];
            string colour = Colours[i % Colours.Length];
            var points = s.Points.Where(p => double.IsFinite(p.X) && double.IsFinite(p.Y)).ToList();
            if (points.Count > 1)
            {
                svg.Append(Inv, $"<polyline fill=\"none\" stroke=\"{colour}\" stroke-width=\"1.8\"{(s.Dashed ? " stroke-dasharray=\"6 3\"" : "")} points=\"");
                foreach (var p in points)
                {
                    svg.Append(Inv, $"{Px(p.X):F1},{Py(p.Y):F1} ");
                }

                svg.Append("\"/>");
            }

            if (s.Markers || points.Count == 1)
            {
                foreach (var p in points)
                {
                    svg.Append(Inv, $"<circle cx=\"{Px(p.X):F1}\" cy=\"{Py(p.Y):F1}\" r=\"3.5\" fill=\"{colour}\"/>");
                }
            }

            svg.Append(Inv, $"<rect x=\"{Left + 12}\" y=\"{Top + 8 + (i * 16)}\" width=\"12\" height=\"4\" fill=\"{colour}\"/>");
            svg.Append(Inv, $"<text x=\"{Left + 30}\" y=\"{Top + 14 + (i * 16)}\" font-size=\"11\">{E(s.Name)}</text>");
        }

        svg.Append("</svg>");
        return svg.ToString();
    }

    /// <summary>Round-number ticks between two values (about five).</summary>
    public static IEnumerable<double> Ticks(double from, double to)
    {
        double step = NiceStep((to - from) / 5);
        for (double t = Math.Ceiling(from / step) * step; t <= to + (step * 1e-9); t += step)
        {
            yield return t;
        }
    }

    private static double NiceStep(double raw)
    {
        if (raw <= 0 || !double.IsFinite(raw))
        {
            return 1;
        }

        double p = Math.Pow(10, Math.Floor(Math.Log10(raw)));
        double f = raw / p;
        return (f <= 1 ? 1 : f <= 2 ? 2 : f <= 5 ? 5 : 10) * p;
    }

    private static double NiceCeiling(double v)
    {
        double step = NiceStep(v / 5);
        return Math.Ceiling(v / step) * step;
    }

    private static string Number(double v) => Math.Abs(v) >= 10_000 ? v.ToString("N0", Inv) : v.ToString("0.###", Inv);

    /// <summary>Text escaped for SVG and HTML.</summary>
    public static string E(string s) => WebUtility.HtmlEncode(s);
}
