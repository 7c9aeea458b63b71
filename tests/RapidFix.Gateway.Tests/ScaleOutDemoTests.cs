using System.Diagnostics;
using System.Text.RegularExpressions;
using RapidFix.Tests.Shared;

namespace RapidFix.Gateway.Tests;

/// <summary>
/// tools/scale-out-demo.sh, short (docs/scale-out.md, "The demo"): two throwaway PostgreSQL clusters, two services,
/// their persisters and the gateway, a generated set through the gateway, both databases checked; and everything
/// gone afterwards, also when it is stopped halfway. Run here so that the script cannot rot.
/// </summary>
[Collection(nameof(GatewayProcesses))]
public sealed partial class ScaleOutDemoTests
{
    [ScaleOutDemoFact]
    public void The_demo_passes_every_check_and_leaves_nothing_behind()
    {
        // Every process's first port is one this test holds: the demo must notice the bind failure and start each
        // again on another (the race a port chosen before the bind always has; CI's parallel tests lost it once).
        using var busy = new System.Net.Sockets.TcpListener(System.Net.IPAddress.Loopback, 0);
        busy.Start();
        int busyPort = ((System.Net.IPEndPoint)busy.LocalEndpoint).Port;
        var (exit, output) = RunDemo(trades: 60, stopAfterSending: false, firstPorts: string.Join(' ', Enumerable.Repeat(busyPort, 5)));

        Assert.True(exit == 0, output);
        var summary = output.TrimEnd().Split('\n')[^1];
        Assert.StartsWith("scale-out-demo: PASS: 60 trades", summary, StringComparison.Ordinal);
        Assert.Contains("mismatches 0;", summary, StringComparison.Ordinal);
        var rows = SummaryRows().Match(summary);
        Assert.True(rows.Success, summary);
        // Every expected CLS row is in the databases, each database holds its partition's share (both non-empty).
        Assert.Equal(rows.Groups["expected"].Value, rows.Groups["rows"].Value);
        Assert.True(int.Parse(rows.Groups["db0"].Value, System.Globalization.CultureInfo.InvariantCulture) > 0, summary);
        Assert.True(int.Parse(rows.Groups["db1"].Value, System.Globalization.CultureInfo.InvariantCulture) > 0, summary);
        foreach (var process in new[] { "PostgreSQL 0", "PostgreSQL 1", "matching service 0", "matching service 1", "the gateway" })
        {
            Assert.Contains($"scale-out-demo: {process}: port {busyPort} was taken meanwhile; starting it again on another", output, StringComparison.Ordinal);
        }

        AssertNothingLeft(output);
    }

    [ScaleOutDemoFact]
    public void The_demo_stopped_while_trades_flow_stops_and_removes_everything()
    {
        var (exit, output) = RunDemo(trades: 3_000, stopAfterSending: true);

        Assert.True(exit == 143, output); // the TERM trap's exit code: stopped, not finished
        Assert.Contains("scale-out-demo: terminated", output, StringComparison.Ordinal);
        AssertNothingLeft(output);
    }

    // The work folder is named in the output; after the script it is gone, and no process runs from it.
    private static void AssertNothingLeft(string output)
    {
        var folder = WorkFolder().Match(output);
        Assert.True(folder.Success, output);
        string work = folder.Groups[1].Value;
        Assert.False(Directory.Exists(work), $"{work} is still there\n{output}");
        foreach (var dir in Directory.EnumerateDirectories("/proc"))
        {
            if (!int.TryParse(Path.GetFileName(dir), out _))
            {
                continue;
            }

            string commandLine;
            try
            {
                commandLine = File.ReadAllText(Path.Combine(dir, "cmdline")).Replace('\0', ' ');
            }
            catch (IOException)
            {
                continue; // ended meanwhile
            }
            catch (UnauthorizedAccessException)
            {
                continue;
            }

            Assert.False(commandLine.Contains(work, StringComparison.Ordinal), $"still running: {commandLine}\n{output}");
        }
    }

    private static (int Exit, string Output) RunDemo(int trades, bool stopAfterSending, string? firstPorts = null)
    {
        string root = SharedData.RepositoryRoot() ?? throw new InvalidOperationException("the repository root is not found");
        // The binaries this test project's build made: bin/<configuration>/<framework>/ of the gateway and the persister.
        var output = new DirectoryInfo(AppContext.BaseDirectory.TrimEnd(Path.DirectorySeparatorChar));
        var start = new ProcessStartInfo("bash")
        {
            WorkingDirectory = root,
            RedirectStandardOutput = true,
            RedirectStandardError = true,
        };
        start.ArgumentList.Add(Path.Combine(root, "tools", "scale-out-demo.sh"));
        start.ArgumentList.Add(trades.ToString(System.Globalization.CultureInfo.InvariantCulture));
        start.Environment["DEMO_NO_BUILD"] = "1";
        start.Environment["DEMO_FRAMEWORK"] = output.Name;
        start.Environment["DEMO_CONFIGURATION"] = output.Parent!.Name;
        start.Environment.Remove("DEMO_KEEP");
        if (firstPorts is null)
        {
            start.Environment.Remove("DEMO_PORTS");
        }
        else
        {
            start.Environment["DEMO_PORTS"] = firstPorts;
        }

        using var process = Process.Start(start)!;
        var text = new System.Text.StringBuilder();
        var sending = new ManualResetEventSlim();
        void Line(object sender, DataReceivedEventArgs e)
        {
            if (e.Data is null)
            {
                return;
            }

            lock (text)
            {
                text.Append(e.Data).Append('\n');
            }

            if (e.Data.Contains("through it", StringComparison.Ordinal))
            {
                sending.Set();
            }
        }

        process.OutputDataReceived += Line;
        process.ErrorDataReceived += Line;
        process.BeginOutputReadLine();
        process.BeginErrorReadLine();
        if (stopAfterSending && sending.Wait(TimeSpan.FromMinutes(5)))
        {
            Thread.Sleep(2_000); // trades flowing through the gateway, the persisters writing
            using var kill = Process.Start("kill", ["-TERM", process.Id.ToString(System.Globalization.CultureInfo.InvariantCulture)])!;
            kill.WaitForExit();
        }

        if (!process.WaitForExit(TimeSpan.FromMinutes(10)))
        {
            process.Kill(entireProcessTree: true);
        }

        process.WaitForExit();
        lock (text)
        {
            return (process.ExitCode, text.ToString());
        }
    }

    [GeneratedRegex(@"CLS rows (?<rows>[0-9]+) of (?<expected>[0-9]+) expected \(database 0: (?<db0>[0-9]+), database 1: (?<db1>[0-9]+)\)")]
    private static partial Regex SummaryRows();

    [GeneratedRegex(@"throwaway clusters in (/\S+)\)")]
    private static partial Regex WorkFolder();
}

/// <summary>A fact that needs bash and PostgreSQL's server binaries (what .ci/run installs); skipped, saying why, without them.</summary>
public sealed class ScaleOutDemoFactAttribute : FactAttribute
{
    public ScaleOutDemoFactAttribute()
    {
        if (!OperatingSystem.IsLinux())
        {
            Skip = "the scale-out demo script runs on Linux";
        }
        else if (!HasPostgres())
        {
            Skip = "no PostgreSQL server binaries (initdb on the PATH or under /usr/lib/postgresql/*/bin; .ci/run installs them)";
        }
    }

    private static bool HasPostgres()
    {
        foreach (var dir in (Environment.GetEnvironmentVariable("PATH") ?? "").Split(Path.PathSeparator, StringSplitOptions.RemoveEmptyEntries))
        {
            if (File.Exists(Path.Combine(dir, "initdb")))
            {
                return true;
            }
        }

        return Directory.Exists("/usr/lib/postgresql") &&
               Directory.EnumerateDirectories("/usr/lib/postgresql").Any(d => File.Exists(Path.Combine(d, "bin", "initdb")));
    }
}
