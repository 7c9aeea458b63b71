using System.Text.RegularExpressions;

namespace RapidFix.Samples.Tests;

/// <summary>
/// The README's main command as a user runs it (issue 13): the one-minute measured run of the matching service, here
/// shortened with its own <c>--duration</c> and <c>--rate</c>. Its last line states messages, achieved rate,
/// p99.99 end to end and the GC count of the service's continuous phase; PostgreSQL's persister runs beside it when
/// PostgreSQL's server binaries are present, and one line says so when it does not.
/// </summary>
public sealed partial class MainCommandTests : IDisposable
{
    private const string Folder = "tools/TradeDriver";
    private const string Assembly = "RapidFix.TradeDriver";
    private static readonly TimeSpan Generous = TimeSpan.FromMinutes(8); // a loaded 2-core machine starts three processes and a cluster
    private readonly string _directory = Directory.CreateTempSubdirectory("rapidfix-main-").FullName;

    [Fact]
    public void The_readme_names_the_measured_run_as_the_main_command()
    {
        string readme = File.ReadAllText(Path.Combine(Programs.Root, "README.md"));

        Assert.Equal("dotnet run -c Release --project tools/TradeDriver -f net10.0 -- run", MainCommand(readme));
    }

    [Fact]
    public void The_main_command_runs_the_whole_path_and_ends_with_the_figures_line()
    {
        string[] readme = MainCommand(File.ReadAllText(Path.Combine(Programs.Root, "README.md"))).Split(" -- ")[1].Split(' ');
        string output = Path.Combine(_directory, "run");

        var (exit, text, error) = ChildProcess.Run(Programs.Dll(Folder, Assembly), Generous,
            [.. readme, "--duration", "4", "--rate", "300", "--warm-up", "2", "--ramp", "1", "--out", output]);

        Assert.True(exit is 0 or 1, $"exit {exit}\n{text}\n{error}"); // 1: not sustainable on a loaded machine; never a usage error
        string last = text.TrimEnd().Split('\n')[^1].Trim();
        var figures = LastLine().Match(last);
        Assert.True(figures.Success, $"last line: {last}\n{text}\n{error}");
        Assert.True(long.Parse(figures.Groups[1].Value, System.Globalization.CultureInfo.InvariantCulture) > 1000, last); // 2 s + 1 s + 4 s + 1 s at 300/s, ramps slower
        Assert.Equal("0", figures.Groups[2].Value); // the service's continuous phase collected nothing
        Assert.True(File.Exists(Path.Combine(output, "report.html")), "no report.html");
        string report = File.ReadAllText(Path.Combine(output, "report.txt"));
        if (PostgreSqlHere())
        {
            Assert.Contains("PostgreSQL persister: PostgreSQL", text, StringComparison.Ordinal);
            Assert.Matches(@"persister lag: max [\d,]+ inputs, mean [\d,]+ \(\d+ samples\); caught up", report);
            Assert.Contains("persister in its own process", report, StringComparison.Ordinal);
        }
        else
        {
            Assert.Contains("PostgreSQL persister: not used (", text, StringComparison.Ordinal);
        }
    }

    [Fact]
    public void Without_the_persister_the_run_says_so_in_one_line_and_goes_on()
    {
        string output = Path.Combine(_directory, "no-persister");

        var (exit, text, error) = ChildProcess.Run(Programs.Dll(Folder, Assembly), Generous,
            "run", "--no-persister", "--no-trace", "--duration", "2", "--rate", "200", "--warm-up", "1", "--ramp", "0", "--out", output);

        Assert.True(exit is 0 or 1, $"exit {exit}\n{text}\n{error}");
        string line = Assert.Single(text.Split('\n'), l => l.StartsWith("PostgreSQL persister:", StringComparison.Ordinal));
        Assert.Equal("PostgreSQL persister: not used (--no-persister given); the run goes without persistence", line.Trim());
        Assert.Contains("no PostgreSQL persister (--no-persister given)", File.ReadAllText(Path.Combine(output, "report.txt")), StringComparison.Ordinal);
        Assert.Matches(LastLine(), text.TrimEnd().Split('\n')[^1].Trim());
    }

    [Fact]
    public void A_journal_window_larger_than_one_array_is_refused_at_startup_with_one_line()
    {
        var (exit, text, error) = ChildProcess.Run(Programs.Dll(Folder, Assembly), Generous,
            "run", "--duration", "600", "--rate", "2000", "--journal-bytes", "4294967296", "--out", Path.Combine(_directory, "small"));

        Assert.True(exit == 2, $"exit {exit}\n{text}\n{error}");
        string line = Assert.Single(error.Split('\n', StringSplitOptions.RemoveEmptyEntries));
        Assert.Contains("--journal-bytes 4294967296 is outside", line, StringComparison.Ordinal);
        Assert.DoesNotContain("measure:", text, StringComparison.Ordinal); // refused before the set is generated or the service starts
        Assert.DoesNotContain("   at ", text + error, StringComparison.Ordinal);
    }

    public void Dispose()
    {
        try
        {
            Directory.Delete(_directory, recursive: true);
        }
        catch (IOException)
        {
            // a child still closing its files: the temp folder is cleaned by the machine
        }
    }

    /// <summary>The command in the README's "main job" row.</summary>
    private static string MainCommand(string readme)
    {
        var row = Regex.Match(readme, @"^\| main job \| `([^`]+)` \|", RegexOptions.Multiline);
        Assert.True(row.Success, "README.md has no '| main job | `command` |' row");
        return row.Groups[1].Value;
    }

    // PostgreSQL's server binaries where the driver looks for them (the persistence library's rule).
    private static bool PostgreSqlHere() =>
        (Environment.GetEnvironmentVariable("PATH") ?? "").Split(Path.PathSeparator).Any(d => File.Exists(Path.Combine(d, "initdb")) && File.Exists(Path.Combine(d, "pg_ctl")))
        || (Directory.Exists("/usr/lib/postgresql") && Directory.GetDirectories("/usr/lib/postgresql").Any(d => File.Exists(Path.Combine(d, "bin", "initdb"))));

    [GeneratedRegex(@"^processed (\d+) messages at \d+/s, p99\.99 [\d.]+ us, GC (\d+)$")]
    private static partial Regex LastLine();
}
