using System.CommandLine;
using System.Globalization;
using System.Text;
using System.Text.Json;

namespace RapidFix.TradeDriver.Report;

/// <summary>
/// Issue 13's bar "the report's figures are reproduced within noise by rerunning the printed command", made a
/// judgement rather than a reading: <c>compare FIRST SECOND</c> takes two runs' <c>report.json</c> and puts each
/// headline figure of both side by side against a tolerance fixed before either run (docs/measurement.md#reproducing):
/// rates and counts 1 %, resident memory 10 %, the medians and p99s of the steady tables a factor of 1.5, their
/// p99.99s a factor of 2 (a tail is a handful of events: 600 of 6 million), every verdict (sustainable, bounded, the
/// soak bar, the GC counts, the driver's zero-GC verdict, the bottleneck named) equal. Exit 0 when every figure is
/// within, 1 when one is not, 2 when a file cannot be read or the two runs are not of the same command.
/// </summary>
internal static class ReportComparison
{
    private static readonly CultureInfo Inv = CultureInfo.InvariantCulture;

    /// <summary>One figure of both runs and whether the second reproduces the first.</summary>
    public sealed record Row(string Figure, string First, string Second, string Difference, string Tolerance, bool Within);

    /// <summary>The tolerances (defaults as documented).</summary>
    public sealed record Tolerances(double Relative = 0.01, double Memory = 0.10, double LatencyFactor = 1.5, double TailFactor = 2.0);

    /// <summary>
    /// <c>compare</c>: the rows as a table and one last line, <c>reproduced within noise: N of N figures ...</c> or
    /// <c>NOT reproduced: K of N figures outside ...</c>.
    /// </summary>
    public static Command Command()
    {
        var first = new Argument<FileInfo>("first") { Description = "the first run's report.json (or its directory)" };
        var second = new Argument<FileInfo>("second") { Description = "the rerun's report.json (or its directory)" };
        var factor = new Option<double>("--latency-factor") { Description = "how far apart a median or p99 may be (a ratio)", DefaultValueFactory = _ => 1.5 };
        var tail = new Option<double>("--tail-factor") { Description = "how far apart a p99.99 may be (a ratio)", DefaultValueFactory = _ => 2.0 };
        var command = new Command("compare", "whether a rerun reproduced a report within noise: every headline figure of two report.json files side by side against fixed tolerances (docs/measurement.md#reproducing)")
        {
            first, second, factor, tail,
        };
        command.SetAction(parse =>
        {
            if (parse.GetValue(factor) < 1 || parse.GetValue(tail) < 1)
            {
                Console.Error.WriteLine("compare: --latency-factor and --tail-factor are ratios of at least 1");
                return 2;
            }

            string a = ReportPath(parse.GetValue(first)!), b = ReportPath(parse.GetValue(second)!);
            JsonDocument one, two;
            try
            {
                one = JsonDocument.Parse(File.ReadAllText(a));
                two = JsonDocument.Parse(File.ReadAllText(b));
            }
            catch (Exception e) when (e is IOException or UnauthorizedAccessException or JsonException)
            {
                Console.Error.WriteLine($"compare: {e.Message}");
                return 2;
            }

            using (one)
            using (two)
            {
                string c1 = Text(one.RootElement, "command"), c2 = Text(two.RootElement, "command");
                if (!string.Equals(Arguments(c1), Arguments(c2), StringComparison.Ordinal))
                {
                    Console.Error.WriteLine($"compare: not the same command (apart from --out):\n  {c1}\n  {c2}");
                    return 2;
                }

                var rows = Compare(one.RootElement, two.RootElement, new Tolerances(LatencyFactor: parse.GetValue(factor), TailFactor: parse.GetValue(tail)));
                Console.Out.Write(Format(rows, $"{a} (commit {Header(one.RootElement, "commit")}, {Header(one.RootElement, "machine")})",
                    $"{b} (commit {Header(two.RootElement, "commit")}, {Header(two.RootElement, "machine")})", c1));
                return rows.All(r => r.Within) ? 0 : 1;
            }
        });
        return command;
    }

    /// <summary>Every figure both reports have, compared.</summary>
    public static List<Row> Compare(JsonElement first, JsonElement second, Tolerances t)
    {
        var rows = new List<Row>();
        var r1 = first.GetProperty("run");
        var r2 = second.GetProperty("run");
        foreach (string rate in new[] { "sentPerSecond", "achievedPerSecond" })
        {
            Relative(rows, rate, r1, r2, rate, t.Relative);
        }

        foreach (string count in new[] { "sent", "acks", "cls", "exceptions", "refused" })
        {
            Relative(rows, count, r1, r2, count, t.Relative);
        }

        foreach (string verdict in new[] { "sustainable", "bounded", "gcCount" })
        {
            Equal(rows, verdict, r1, r2, verdict);
        }

        Equal(rows, "host writeback", r1, r2, "hostWriteback"); // it moves the tail by a factor of five: another machine

        if (Find(r1, "persister", "verdict") is { } p1 && Find(r2, "persister", "verdict") is { } p2)
        {
            Equal(rows, "persister lag bounded", p1, p2, "Bounded");
        }

        if (Find(r1, "driver") is { } d1 && Find(r2, "driver") is { } d2)
        {
            Equal(rows, "driver zero-GC", d1, d2, "zeroGc");
            // A run of ordinary threads is not a rerun of real-time ones; the number raised is not the scheduling (a
            // run whose sessions reconnected raised more receiving threads, each real-time as before).
            Equal(rows, "driver timing threads", d1, d2, "scheduling", Measure.TimingThreads.KindOf);
        }

        if (Find(r1, "soak") is { } s1 && Find(r2, "soak") is { } s2)
        {
            Equal(rows, "soak bar met", s1, s2, "Met");
            Equal(rows, "soak p99.99 flat", s1, s2, "LatencyFlat");
            Equal(rows, "soak memory flat", s1, s2, "MemoryFlat");
            Relative(rows, "service resident memory (last third)", s1, s2, "LastResident", t.Memory);
        }

        if (Find(r1, "operationalAnalysis") is { } o1 && Find(r2, "operationalAnalysis") is { } o2)
        {
            Equal(rows, "bottleneck", o1, o2, "bottleneck");
        }

        if (Find(r1, "tables", "steady") is { ValueKind: JsonValueKind.Array } t1 && Find(r2, "tables", "steady") is { ValueKind: JsonValueKind.Array } t2)
        {
            foreach (var line in t1.EnumerateArray())
            {
                string name = Text(line, "Name");
                var other = t2.EnumerateArray().FirstOrDefault(l => Text(l, "Name") == name);
                if (other.ValueKind != JsonValueKind.Object)
                {
                    continue;
                }

                Factor(rows, name + " median", line, other, "Median", t.LatencyFactor);
                Factor(rows, name + " p99", line, other, "P99", t.LatencyFactor);
                Factor(rows, name + " p99.99", line, other, "P9999", t.TailFactor);
            }
        }

        return rows;
    }

    /// <summary>The table and the verdict line.</summary>
    public static string Format(IReadOnlyList<Row> rows, string first, string second, string command)
    {
        var text = new StringBuilder();
        text.AppendLine(Inv, $"command: {command}");
        text.AppendLine(Inv, $"first:   {first}");
        text.AppendLine(Inv, $"second:  {second}");
        int w = Math.Max(6, rows.Count == 0 ? 0 : rows.Max(r => r.Figure.Length));
        // Values as wide as the numbers: a long one (the driver's scheduling) overflows its own row, not every row.
        int v = Math.Max(5, rows.Count == 0 ? 0 : rows.Max(r => Math.Max(r.First.Length, r.Second.Length) is var n && n <= 16 ? n : 0));
        text.AppendLine(Inv, $"{"figure".PadRight(w)}  {"first".PadLeft(v)}  {"second".PadLeft(v)}  {"difference",-12}  {"tolerance",-12}  within");
        foreach (var r in rows)
        {
            text.AppendLine(Inv, $"{r.Figure.PadRight(w)}  {r.First.PadLeft(v)}  {r.Second.PadLeft(v)}  {r.Difference,-12}  {r.Tolerance,-12}  {(r.Within ? "yes" : "NO")}");
        }

        var outside = rows.Where(r => !r.Within).Select(r => r.Figure).ToList();
        text.AppendLine(outside.Count == 0
            ? string.Create(Inv, $"reproduced within noise: {rows.Count} of {rows.Count} figures within their tolerances")
            : string.Create(Inv, $"NOT reproduced: {outside.Count} of {rows.Count} figures outside their tolerances ({string.Join(", ", outside)})"));
        return text.ToString();
    }

    private static void Relative(List<Row> rows, string figure, JsonElement a, JsonElement b, string name, double tolerance)
    {
        if (Number(a, name) is not { } x || Number(b, name) is not { } y)
        {
            return;
        }

        double diff = x == y ? 0 : Math.Abs(y - x) / Math.Max(Math.Abs(x), Math.Abs(y));
        rows.Add(new Row(figure, Show(x), Show(y), string.Create(Inv, $"{diff:P2}"), string.Create(Inv, $"{tolerance:P0}"), diff <= tolerance));
    }

    private static void Factor(List<Row> rows, string figure, JsonElement a, JsonElement b, string name, double factor)
    {
        if (Number(a, name) is not { } x || Number(b, name) is not { } y)
        {
            return;
        }

        double ratio = x <= 0 || y <= 0 ? (x == y ? 1 : double.PositiveInfinity) : y / x;
        bool within = ratio <= factor && ratio >= 1 / factor;
        rows.Add(new Row(figure + " (us)", Show(x), Show(y), string.Create(Inv, $"x{ratio:F2}"), string.Create(Inv, $"x{1 / factor:F2}-x{factor:F2}"), within));
    }

    private static void Equal(List<Row> rows, string figure, JsonElement a, JsonElement b, string name, Func<string, string>? kind = null)
    {
        if (!a.TryGetProperty(name, out var x) || !b.TryGetProperty(name, out var y)
            || x.ValueKind == JsonValueKind.Null || y.ValueKind == JsonValueKind.Null)
        {
            return;
        }

        string sx = x.ToString(), sy = y.ToString();
        bool same = kind is null ? sx == sy : kind(sx) == kind(sy);
        rows.Add(new Row(figure, sx, sy, same ? "same" : "differs", "equal", same));
    }

    private static JsonElement? Find(JsonElement e, params string[] path)
    {
        foreach (string p in path)
        {
            if (e.ValueKind != JsonValueKind.Object || !e.TryGetProperty(p, out e) || e.ValueKind == JsonValueKind.Null)
            {
                return null;
            }
        }

        return e;
    }

    private static string Header(JsonElement report, string name) =>
        Find(report, "header") is { } h ? Text(h, name) : "";

    private static double? Number(JsonElement e, string name) =>
        e.TryGetProperty(name, out var v) && v.ValueKind == JsonValueKind.Number ? v.GetDouble() : null;

    private static string Text(JsonElement e, string name) =>
        e.TryGetProperty(name, out var v) && v.ValueKind == JsonValueKind.String ? v.GetString()! : "";

    private static string Show(double x) =>
        x == Math.Floor(x) && Math.Abs(x) < 1e15 ? x.ToString("N0", Inv) : x.ToString("N1", Inv);

    /// <summary>The command's arguments without its <c>--out</c> (a rerun writes elsewhere).</summary>
    internal static string Arguments(string command)
    {
        var parts = command.Split(' ', StringSplitOptions.RemoveEmptyEntries).ToList();
        int i = parts.IndexOf("--out");
        if (i >= 0)
        {
            parts.RemoveRange(i, Math.Min(2, parts.Count - i));
        }

        return string.Join(' ', parts);
    }

    private static string ReportPath(FileInfo f) =>
        Directory.Exists(f.FullName) ? Path.Combine(f.FullName, "report.json") : f.FullName;
}
