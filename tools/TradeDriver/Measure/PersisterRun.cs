using System.Diagnostics;
using System.Globalization;
using Npgsql;
using RapidFix.Persistence;

namespace RapidFix.TradeDriver.Measure;

/// <summary>One sample of the persister's lag: inputs the service had journalled but PostgreSQL did not yet hold.</summary>
internal readonly record struct LagPoint(double Seconds, long Journalled, long Persisted)
{
    public long Lag => Math.Max(0, Journalled - Persisted);
}

/// <summary>
/// PostgreSQL beside a measured run (issue 11): a throwaway cluster (initdb in a temporary folder, a free port,
/// stopped and deleted at the end), the schema migrated, and the persister in <b>its own process</b> through its
/// ordinary command line (<c>RapidFix.Persister run --data-dir ... --db ...</c>: Npgsql allocates, so never in the
/// zero-GC service process). A poller thread reads how far PostgreSQL has got with the input journal once per
/// interval: the persister lag the report shows. Its query allocates in the driver's process, once per interval and
/// never per message, like the sampler's .hlog encoder.
/// </summary>
internal sealed class PersisterRun : IDisposable
{
    private const string Database = "rapidfix";
    private readonly PgCluster _cluster;
    private readonly Process _process;
    private readonly string _reader;
    private readonly List<string> _lines = [];
    private readonly List<LagPoint> _points = [];
    private readonly ManualResetEventSlim _stop = new();
    private Thread? _poller;

    private PersisterRun(PgCluster cluster, Process process, string reader)
    {
        _cluster = cluster;
        _process = process;
        _reader = reader;
    }

    /// <summary>The cluster's address, for the report's header.</summary>
    public string Describe => string.Create(CultureInfo.InvariantCulture, $"PostgreSQL {Path.GetFileName(Path.GetDirectoryName(PgCluster.FindBinaries() ?? ""))} on 127.0.0.1:{_cluster.Port} (throwaway cluster), persister in its own process");

    /// <summary>The lag samples so far.</summary>
    public IReadOnlyList<LagPoint> Points
    {
        get
        {
            lock (_points)
            {
                return [.. _points];
            }
        }
    }

    /// <summary>Every line the persister printed.</summary>
    public IReadOnlyList<string> Lines
    {
        get
        {
            lock (_lines)
            {
                return [.. _lines];
            }
        }
    }

    /// <summary>
    /// Why no persister runs beside the run, or null when one can: <paramref name="disabled"/> (--no-persister), no
    /// PostgreSQL server binaries, or no persister program to start. When PostgreSQL is here and the repository's
    /// persister is not built yet, it is built now (once; startup), so that the main command needs nothing else.
    /// </summary>
    public static string? Unavailable(bool disabled, TextWriter output)
    {
        if (disabled)
        {
            return "--no-persister given";
        }

        if (PgCluster.Unavailable() is { } why)
        {
            return why;
        }

        return FindPersister() is not null ? null : BuildPersister(output);
    }

    /// <summary>The line a run without PostgreSQL prints, once.</summary>
    public static string SkipLine(string why) => $"PostgreSQL persister: not used ({why}); the run goes without persistence";

    /// <summary>
    /// Starts a cluster with a migrated database and the persister tailing <paramref name="dataDirectory"/> (the
    /// service's, which may not exist yet: the persister waits for its journals). Startup: allocates freely.
    /// </summary>
    public static PersisterRun Start(string dataDirectory, string work, TextWriter output)
    {
        string persister = FindPersister() ?? throw new InvalidOperationException("the persister is not built");
        Directory.CreateDirectory(dataDirectory);
        var cluster = PgCluster.Create();
        try
        {
            cluster.CreateDatabase(Database);
            string password = Convert.ToHexString(System.Security.Cryptography.RandomNumberGenerator.GetBytes(12));
            Schema.Migrate(cluster.ConnectionString(Database), password, password);
            var start = new ProcessStartInfo(ServiceProcess.DotNetHost)
            {
                RedirectStandardOutput = true,
                RedirectStandardError = true,
                UseShellExecute = false,
            };
            string writer = new NpgsqlConnectionStringBuilder(cluster.ConnectionString(Database, Schema.WriterRole)) { Password = null }.ConnectionString;
            foreach (var argument in new[] { "exec", persister, "run", "--data-dir", dataDirectory, "--db", writer })
            {
                start.ArgumentList.Add(argument);
            }

            start.Environment["PGPASSWORD"] = password; // never on a command line that ps shows
            var process = new Process { StartInfo = start };
            var run = new PersisterRun(cluster, process, cluster.ConnectionString(Database, Schema.WriterRole, password));
            process.OutputDataReceived += (_, e) => run.OnLine(e.Data);
            process.ErrorDataReceived += (_, e) => run.OnLine(e.Data);
            process.Start();
            process.BeginOutputReadLine();
            process.BeginErrorReadLine();
            File.WriteAllText(Path.Combine(Directory.CreateDirectory(work).FullName, "persister.txt"), run.Describe + "\n");
            output.WriteLine($"PostgreSQL persister: {run.Describe}");
            return run;
        }
        catch
        {
            cluster.Dispose();
            throw;
        }
    }

    /// <summary>
    /// Samples the lag every <paramref name="interval"/> on its own thread: <paramref name="journalled"/> is the
    /// service's count of journalled inputs (its stats file), <paramref name="seconds"/> the run's clock.
    /// </summary>
    public void StartPolling(Func<long> journalled, Func<double> seconds, TimeSpan interval)
    {
        _poller = new Thread(() =>
        {
            using var connection = new NpgsqlConnection(_reader);
            using var query = new NpgsqlCommand("SELECT coalesce(max(seq), 0) FROM rapidfix.journal_position WHERE source = 'matching-input'", connection);
            do
            {
                try
                {
                    if (connection.State != System.Data.ConnectionState.Open)
                    {
                        connection.Open();
                    }

                    long journal = journalled();
                    // Record 1 of the input journal is its control record (the business date), not an input.
                    long persisted = Math.Max(0, Convert.ToInt64(query.ExecuteScalar(), CultureInfo.InvariantCulture) - 1);
                    lock (_points)
                    {
                        _points.Add(new LagPoint(seconds(), journal, persisted));
                    }
                }
                catch (Exception e) when (e is NpgsqlException or InvalidOperationException or TimeoutException)
                {
                    connection.Close(); // the next interval opens it again
                }
            }
            while (!_stop.Wait(interval));
        }) { IsBackground = true, Name = "measure-persister-lag" };
        _poller.Start();
    }

    /// <summary>
    /// Waits up to <paramref name="timeout"/> for PostgreSQL to hold every journalled input (the persister's
    /// catch-up after the last send); returns the seconds it took, or null when it did not catch up.
    /// </summary>
    public double? WaitCaughtUp(Func<long> journalled, TimeSpan timeout)
    {
        var clock = Stopwatch.StartNew();
        while (clock.Elapsed < timeout && !_process.HasExited)
        {
            var points = Points;
            if (points.Count > 0 && points[^1].Persisted >= journalled() && points[^1].Journalled >= journalled())
            {
                return clock.Elapsed.TotalSeconds;
            }

            Thread.Sleep(50);
        }

        return null;
    }

    /// <summary>Stops the poller and the persister (SIGTERM: its clean stop), keeps its output; the cluster goes on <see cref="Dispose"/>.</summary>
    public int Stop(TimeSpan timeout)
    {
        _stop.Set();
        _poller?.Join();
        return ServiceProcess.Terminate(_process, timeout);
    }

    public void Dispose()
    {
        _stop.Set();
        if (!_process.HasExited)
        {
            _process.Kill(entireProcessTree: true);
            _process.WaitForExit();
        }

        _poller?.Join();
        _process.Dispose();
        _cluster.Dispose();
        _stop.Dispose();
    }

    /// <summary>
    /// The persister program: beside the driver, else the repository's build of tools/Persister (the driver's own
    /// configuration and framework first); null when there is none.
    /// </summary>
    public static string? FindPersister()
    {
        const string dll = "RapidFix.Persister.dll";
        if (File.Exists(Path.Combine(AppContext.BaseDirectory, dll)))
        {
            return Path.Combine(AppContext.BaseDirectory, dll);
        }

        // bin/<configuration>/<framework>/ of the driver names where the persister's build would be.
        var framework = new DirectoryInfo(AppContext.BaseDirectory.TrimEnd(Path.DirectorySeparatorChar));
        string configuration = framework.Parent?.Name ?? "Release";
        for (var dir = framework; dir is not null; dir = dir.Parent)
        {
            if (File.Exists(Path.Combine(dir.FullName, "RapidFix.sln")))
            {
                foreach (string c in new[] { configuration, "Release", "Debug" })
                {
                    string path = Path.Combine(dir.FullName, "tools", "Persister", "bin", c, framework.Name, dll);
                    if (File.Exists(path))
                    {
                        return path;
                    }
                }

                return null;
            }
        }

        return null;
    }

    // Builds tools/Persister beside the driver's own build. Its references (this driver among them) are built
    // already, and rebuilding them would overwrite the running driver's files: BuildProjectReferences=false.
    private static string? BuildPersister(TextWriter output)
    {
        var framework = new DirectoryInfo(AppContext.BaseDirectory.TrimEnd(Path.DirectorySeparatorChar));
        string? project = null;
        for (var dir = framework; dir is not null && project is null; dir = dir.Parent)
        {
            if (File.Exists(Path.Combine(dir.FullName, "RapidFix.sln")))
            {
                project = Path.Combine(dir.FullName, "tools", "Persister", "RapidFix.Persister.csproj");
            }
        }

        if (project is null || !File.Exists(project))
        {
            return "no persister program beside the driver and no repository to build it from";
        }

        output.WriteLine("PostgreSQL persister: building tools/Persister (once)");
        var start = new ProcessStartInfo(ServiceProcess.DotNetHost)
        {
            RedirectStandardOutput = true,
            RedirectStandardError = true,
            UseShellExecute = false,
        };
        foreach (var argument in new[] { "build", project, "-c", framework.Parent?.Name ?? "Release", "-f", framework.Name, "-p:BuildProjectReferences=false", "-v", "q", "-nologo" })
        {
            start.ArgumentList.Add(argument);
        }

        using var build = Process.Start(start)!;
        var errors = build.StandardError.ReadToEndAsync();
        string text = build.StandardOutput.ReadToEnd();
        build.WaitForExit();
        if (build.ExitCode != 0 || FindPersister() is null)
        {
            string first = (text + errors.Result).Split('\n').FirstOrDefault(l => l.Contains("error", StringComparison.OrdinalIgnoreCase))?.Trim() ?? $"exit {build.ExitCode}";
            return $"tools/Persister did not build: {first}";
        }

        return null;
    }

    private void OnLine(string? line)
    {
        if (line is not null)
        {
            lock (_lines)
            {
                _lines.Add(line);
            }
        }
    }
}

/// <summary>What the persister did beside a run, for the report.</summary>
internal sealed record PersisterSummary(string Description, IReadOnlyList<LagPoint> Points, double? CatchUpSeconds, long FinalLag, int ExitCode)
{
    /// <summary>The largest lag sampled, in inputs.</summary>
    public long MaxLag => Points.Count == 0 ? 0 : Points.Max(p => p.Lag);

    /// <summary>The mean lag sampled, in inputs.</summary>
    public double MeanLag => Points.Count == 0 ? 0 : Points.Average(p => (double)p.Lag);

    /// <summary>The report's line.</summary>
    public string Line => string.Create(CultureInfo.InvariantCulture,
        $"persister lag: max {MaxLag:N0} inputs, mean {MeanLag:N0} ({Points.Count} samples); {(CatchUpSeconds is { } s ? $"caught up {s:F1} s after the last answer" : $"NOT caught up at the end ({FinalLag:N0} inputs behind)")}");
}
