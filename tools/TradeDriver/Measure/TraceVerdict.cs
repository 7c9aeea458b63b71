using System.Diagnostics;
using System.Globalization;
using System.Text.RegularExpressions;

namespace RapidFix.TradeDriver.Measure;

/// <summary>
/// The zero-GC verdict of the service's trace, from tools/EtwAnalyzer (run as its own process: it targets .NET 10
/// only and brings TraceEvent): its verdict line, the continuous phase's GC count, and the engine's own receive and
/// send processing latencies from the <c>.hgrm</c> files it writes (the send and receive rows of the 4-day table).
/// </summary>
internal sealed partial record TraceVerdict(string Verdict, int? Collections, double ContinuousSeconds, IReadOnlyList<LatencyRow> Rows, string VerdictLine)
{
    /// <summary>The environment variable that names the analyzer's DLL (default: the repository's Release build).</summary>
    public const string AnalyzerVariable = "RAPIDFIX_ETWANALYZER";

    /// <summary>Analyzes the trace; null (with a note saying why) when the analyzer is not built or fails.</summary>
    public static TraceVerdict? Analyze(string trace, string outputDirectory, List<string> notes)
    {
        string? analyzer = FindAnalyzer();
        if (analyzer is null)
        {
            notes.Add("trace not analyzed: tools/EtwAnalyzer is not built (dotnet build tools/EtwAnalyzer -c Release); the GC count comes from the service's own report");
            return null;
        }

        if (!File.Exists(trace))
        {
            notes.Add($"trace not analyzed: the service wrote no trace at {trace}");
            return null;
        }

        var start = new ProcessStartInfo(Environment.GetEnvironmentVariable("DOTNET_HOST_PATH") is { Length: > 0 } dotnet ? dotnet : "dotnet")
        {
            RedirectStandardOutput = true,
            RedirectStandardError = true,
            UseShellExecute = false,
        };
        foreach (var a in new[] { "exec", analyzer, "analyze", trace, "--out", outputDirectory })
        {
            start.ArgumentList.Add(a);
        }

        using var process = Process.Start(start)!;
        var errors = process.StandardError.ReadToEndAsync();
        string text = process.StandardOutput.ReadToEnd();
        process.WaitForExit();
        File.WriteAllText(Path.Combine(Directory.CreateDirectory(outputDirectory).FullName, "analyzer-output.txt"), text + errors.Result);
        var verdict = Parse(text, outputDirectory);
        if (verdict is null)
        {
            notes.Add($"trace not analyzed: the analyzer printed no verdict (exit {process.ExitCode}): {errors.Result.Trim()}");
        }

        return verdict;
    }

    /// <summary>Reads the analyzer's text report and the continuous phase's .hgrm files.</summary>
    public static TraceVerdict? Parse(string report, string outputDirectory)
    {
        var line = report.Split('\n').Select(l => l.Trim()).LastOrDefault(l => l.StartsWith("verdict:", StringComparison.Ordinal));
        if (line is null)
        {
            return null;
        }

        var m = VerdictPattern().Match(line);
        string word = m.Success ? m.Groups[1].Value : "unknown";
        double seconds = m.Success ? double.Parse(m.Groups[2].Value, CultureInfo.InvariantCulture) : 0;
        int? gcs = m.Success ? int.Parse(m.Groups[3].Value, CultureInfo.InvariantCulture) : null;
        var rows = new List<LatencyRow>();
        foreach (var (file, name) in new[] { ("continuous-receive.hgrm", "engine receive"), ("continuous-send.hgrm", "engine send") })
        {
            string path = Path.Combine(outputDirectory, file);
            if (File.Exists(path) && FromHgrm(name, File.ReadAllText(path), seconds) is { } row)
            {
                rows.Add(row);
            }
        }

        return new TraceVerdict(word, gcs, seconds, rows, line);
    }

    /// <summary>
    /// A table row from an HdrHistogram percentile distribution (µs): each percentile is the first value at or above
    /// it; min the first value; mean, deviation, max and count from the footer.
    /// </summary>
    public static LatencyRow? FromHgrm(string name, string hgrm, double runSeconds)
    {
        var points = new List<(double Value, double Fraction)>();
        double mean = 0, std = 0, max = 0;
        long count = 0;
        foreach (var raw in hgrm.Split('\n'))
        {
            string l = raw.Trim();
            if (l.StartsWith("#[Mean", StringComparison.Ordinal))
            {
                var f = FooterNumbers().Matches(l);
                mean = double.Parse(f[0].Groups[1].Value, CultureInfo.InvariantCulture);
                std = double.Parse(f[1].Groups[1].Value, CultureInfo.InvariantCulture);
            }
            else if (l.StartsWith("#[Max", StringComparison.Ordinal))
            {
                var f = FooterNumbers().Matches(l);
                max = double.Parse(f[0].Groups[1].Value, CultureInfo.InvariantCulture);
                count = (long)double.Parse(f[1].Groups[1].Value, CultureInfo.InvariantCulture);
            }
            else if (l.Length > 0 && char.IsDigit(l[0]))
            {
                var parts = l.Split(' ', StringSplitOptions.RemoveEmptyEntries);
                if (parts.Length >= 2 && double.TryParse(parts[0], CultureInfo.InvariantCulture, out double v)
                    && double.TryParse(parts[1], CultureInfo.InvariantCulture, out double p))
                {
                    points.Add((v, p));
                }
            }
        }

        if (points.Count == 0)
        {
            return null;
        }

        double At(double percentile) => points.FirstOrDefault(p => p.Fraction * 100 >= percentile - 1e-9, points[^1]).Value;
        return new LatencyRow(name, count, runSeconds, points[0].Value, mean, std, At(50), At(90), At(99), At(99.9), At(99.99), At(99.999), max);
    }

    private static string? FindAnalyzer()
    {
        if (Environment.GetEnvironmentVariable(AnalyzerVariable) is { Length: > 0 } given)
        {
            return File.Exists(given) ? given : null;
        }

        for (var dir = new DirectoryInfo(AppContext.BaseDirectory); dir is not null; dir = dir.Parent)
        {
            if (File.Exists(Path.Combine(dir.FullName, "RapidFix.sln")))
            {
                string dll = Path.Combine(dir.FullName, "tools", "EtwAnalyzer", "bin", "Release", "net10.0", "EtwAnalyzer.dll");
                return File.Exists(dll) ? dll : null;
            }
        }

        return null;
    }

    [GeneratedRegex(@"^verdict: (\w+): continuous phase ([\d.]+) s: (\d+) GCs")]
    private static partial Regex VerdictPattern();

    [GeneratedRegex(@"=\s*([\d.]+)")]
    private static partial Regex FooterNumbers();
}
