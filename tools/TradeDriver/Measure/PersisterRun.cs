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
/// zero-GC service process). How far PostgreSQL has got with the input journal (the persister lag the report shows)
/// is read once per interval by a child process, <see cref="PersisterLag"/> (<c>persister-lag</c>: its SQL query
/// allocates), which publishes it in a memory-mapped <see cref="LagFile"/>; the driver's poller thread copies each
/// new reading into an array sized at startup and allocates nothing.
/// </summary>
internal sealed class PersisterRun : IDisposable
{
    private const string Database = "rapidfix";
    private readonly PgCluster _cluster;
    private readonly Process _process;
    private readonly string _reader;
    private readonly string _password;
    private readonly string _work;
    private ChildOutput? _output;
    private readonly object _pointsLock = new();
    private readonly ManualResetEventSlim _stop = new();
    private LagPoint[] _points = [];
    private int _pointCount;
    private long _pointsDropped;
    private Thread? _poller;
    private Process? _lagReader;
    private LagFile? _lagFile;
    private long _allocatedFrom = long.MinValue;
    private long _allocated = -1;

    private PersisterRun(PgCluster cluster, Process process, string reader, string password, string work)
    {
        _cluster = cluster;
        _process = process;
        _reader = reader;
        _password = password;
        _work = work;
    }

    /// <summary>The cluster's address, for the report's header.</summary>
    public string Describe => string.Create(CultureInfo.InvariantCulture, $"PostgreSQL {Path.GetFileName(Path.GetDirectoryName(PgCluster.FindBinaries() ?? ""))} on 127.0.0.1:{_cluster.Port} (throwaway cluster, fsync on, the settings docs/persistence.md recommends), persister in its own process");

    /// <summary>The lag samples so far.</summary>
    public IReadOnlyList<LagPoint> Points
    {
        get
        {
            lock (_pointsLock)
            {
                return _points.AsSpan(0, _pointCount).ToArray();
            }
        }
    }

    /// <summary>Readings the poller could not keep (its array, sized for the run, was full): 0 expected.</summary>
    public long PointsDropped => Interlocked.Read(ref _pointsDropped);

    /// <summary>
    /// Bytes the poller's thread allocated from <see cref="MarkAllocations"/> to its stop (-1: not marked, or not
    /// stopped yet).
    /// </summary>
    public long PollerAllocated => Interlocked.Read(ref _allocated);

    /// <summary>Asks the poller's thread to take its allocation baseline at its next wake-up (the measured phase starts).</summary>
    public void MarkAllocations() => Interlocked.CompareExchange(ref _allocatedFrom, -1, long.MinValue);

    /// <summary>Whether the persister's process has ended.</summary>
    public bool HasExited => _process.HasExited;

    /// <summary>Bytes the threads reading the persister's output have allocated so far (<see cref="ChildOutput.ThreadsAllocatedBytes"/>).</summary>
    public long OutputThreadsAllocatedBytes => _output?.ThreadsAllocatedBytes ?? 0;

    /// <summary>
    /// The lines the persister printed (the first and last 64 KiB, <see cref="ChildOutput"/>): decoded when read, so
    /// read them outside the measured phase.
    /// </summary>
    public IReadOnlyList<string> Lines => _output?.Lines ?? [];

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

        string? found = FindPersister();
        if (found is not null && StaleBuild(found) is null)
        {
            return null;
        }

        if (BuildPersister(output, found is null ? "once" : "its build there is not of this driver's sources") is { } failed)
        {
            return failed;
        }

        return FindPersister() is { } built && StaleBuild(built) is { } stale ? stale : null;
    }

    /// <summary>
    /// Why a persister build found in the repository cannot serve this driver: its copy of the persistence library
    /// (the schema's migrations, the record layout) is not the driver's. A build left from an earlier checkout
    /// refused a newer schema at startup (exit 2), and a whole MST search then read as "persister lag grew"
    /// (docs/measurement.md). Null when they are the same file or one of them cannot be read.
    /// </summary>
    internal static string? StaleBuild(string persister)
    {
        const string library = "RapidFix.Persistence.dll";
        string theirs = Path.Combine(Path.GetDirectoryName(persister)!, library);
        string ours = Path.Combine(AppContext.BaseDirectory, library);
        try
        {
            if (!File.Exists(theirs) || !File.Exists(ours) || File.ReadAllBytes(theirs).AsSpan().SequenceEqual(File.ReadAllBytes(ours)))
            {
                return null;
            }
        }
        catch (IOException)
        {
            return null;
        }

        return $"the persister at {persister} was built from other sources than this driver ({library} differs): rebuild tools/Persister";
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
        // The server as docs/persistence.md recommends it (fsync on, checkpoints far apart, backends' writes flushed
        // as they go): the figures are of the path a user would run, not of a server that may lose what it acknowledged.
        var cluster = PgCluster.Create(durable: true);
        try
        {
            string password = Convert.ToHexString(System.Security.Cryptography.RandomNumberGenerator.GetBytes(12));
            Setup(cluster, password);
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
            var run = new PersisterRun(cluster, process, writer, password, Directory.CreateDirectory(work).FullName);
            process.Start();
            // Its output into buffers made now, on threads of the driver's own: a retry line the persister prints in
            // the measured phase allocates nothing in the driver (the process's events made a string for each).
            run._output = ChildOutput.Of(process, "persister");
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

    /// <summary>The environment variables of the <c>persister-setup</c> child: the superuser's connection strings and the roles' password.</summary>
    internal const string SetupAdminVariable = "RAPIDFIX_SETUP_ADMIN", SetupDatabaseVariable = "RAPIDFIX_SETUP_DATABASE", SetupPasswordVariable = "RAPIDFIX_SETUP_PASSWORD";

    /// <summary>
    /// Creates the database and migrates the schema (the writer's and reader's roles with <paramref name="password"/>)
    /// in a child process, the driver's own hidden <c>persister-setup</c> (<see cref="SetupCommand"/>): Npgsql, run in the
    /// driver's process, left the runtime's timer thread due to wake at each command's timeout (300 s; the timer stops
    /// but its wake-up stays), and that wake-up in the measured phase made the thread pool start threads: the 2,072
    /// bytes of the 10-minute soak. Startup; throws with the child's output when it fails.
    /// </summary>
    internal static void Setup(PgCluster cluster, string password)
    {
        var start = new ProcessStartInfo(ServiceProcess.DotNetHost)
        {
            RedirectStandardOutput = true,
            RedirectStandardError = true,
            UseShellExecute = false,
        };
        foreach (var argument in new[] { "exec", typeof(PersisterRun).Assembly.Location, "persister-setup" })
        {
            start.ArgumentList.Add(argument);
        }

        // Passwords in the environment, never on a command line that ps shows.
        start.Environment[SetupAdminVariable] = cluster.ConnectionString();
        start.Environment[SetupDatabaseVariable] = cluster.ConnectionString(Database);
        start.Environment[SetupPasswordVariable] = password;
        using var setup = Process.Start(start) ?? throw new InvalidOperationException("the persister-setup child did not start");
        var errors = setup.StandardError.ReadToEndAsync();
        string text = setup.StandardOutput.ReadToEnd();
        if (!setup.WaitForExit(TimeSpan.FromMinutes(5)))
        {
            setup.Kill(entireProcessTree: true);
            throw new InvalidOperationException("the persister's schema set-up did not end within 5 minutes");
        }

        if (setup.ExitCode != 0)
        {
            throw new InvalidOperationException($"the persister's schema set-up failed (exit {setup.ExitCode}): {(text + errors.Result).Trim()}");
        }
    }

    /// <summary><c>persister-setup</c> (hidden): what <see cref="Setup"/> runs in its child.</summary>
    public static System.CommandLine.Command SetupCommand()
    {
        var command = new System.CommandLine.Command("persister-setup", "creates the run's database and migrates the persister's schema (started by the driver; its connection strings and password in the environment)")
        {
            Hidden = true,
        };
        command.SetAction(_ =>
        {
            try
            {
                string admin = Environment.GetEnvironmentVariable(SetupAdminVariable) ?? throw new InvalidOperationException(SetupAdminVariable + " is not set");
                string database = Environment.GetEnvironmentVariable(SetupDatabaseVariable) ?? throw new InvalidOperationException(SetupDatabaseVariable + " is not set");
                string password = Environment.GetEnvironmentVariable(SetupPasswordVariable) ?? throw new InvalidOperationException(SetupPasswordVariable + " is not set");
                using (var connection = new NpgsqlConnection(admin))
                {
                    connection.Open();
                    using var create = new NpgsqlCommand($"CREATE DATABASE {Database}", connection); // a constant name
                    create.ExecuteNonQuery();
                }

                Schema.Migrate(database, password, password);
                return 0;
            }
            catch (Exception e) when (e is InvalidOperationException or NpgsqlException or IOException)
            {
                Console.Error.WriteLine(e.Message);
                return 1;
            }
        });
        return command;
    }

    /// <summary>
    /// Samples the lag every <paramref name="interval"/>: starts the <c>persister-lag</c> child (startup: a process, a
    /// mapped file) reading the service's stats file <paramref name="statsPath"/> and PostgreSQL, and the poller
    /// thread that copies each new reading into an array of <paramref name="capacity"/> points; a reading's time is
    /// in seconds from <paramref name="originTicks"/> (the run's clock, <see cref="Stopwatch"/>: one monotonic clock
    /// for both processes).
    /// </summary>
    public void StartPolling(string statsPath, long originTicks, TimeSpan interval, int capacity)
    {
        _points = new LagPoint[Math.Max(16, capacity)];
        string lagPath = Path.Combine(_work, "persister-lag.bin");
        _lagFile = LagFile.Create(lagPath);
        var start = new ProcessStartInfo(ServiceProcess.DotNetHost)
        {
            RedirectStandardInput = true,
            UseShellExecute = false,
        };
        foreach (var argument in new[] { "exec", typeof(PersisterLag).Assembly.Location, "persister-lag", "--db", _reader, "--stats", statsPath,
                     "--lag-file", lagPath, "--interval-ms", ((long)interval.TotalMilliseconds).ToString(CultureInfo.InvariantCulture) })
        {
            start.ArgumentList.Add(argument);
        }

        start.Environment["PGPASSWORD"] = _password;
        _lagReader = Process.Start(start) ?? throw new InvalidOperationException("the persister-lag reader did not start");
        var lag = _lagFile;
        // Woken four times an interval: a reading is copied within a quarter of an interval of the child's write.
        var wake = TimeSpan.FromMilliseconds(Math.Max(10, interval.TotalMilliseconds / 4));
        double frequency = Stopwatch.Frequency;
        _poller = new Thread(() =>
        {
            long seen = 0;
            do
            {
                if (Interlocked.Read(ref _allocatedFrom) == -1)
                {
                    Interlocked.Exchange(ref _allocatedFrom, GC.GetAllocatedBytesForCurrentThread());
                }

                if (lag.TryRead(out long count, out long timestamp, out long journalled, out long persisted) && count > seen)
                {
                    seen = count;
                    lock (_pointsLock)
                    {
                        if (_pointCount < _points.Length)
                        {
                            _points[_pointCount++] = new LagPoint((timestamp - originTicks) / frequency, journalled, persisted);
                        }
                        else
                        {
                            _pointsDropped++;
                        }
                    }
                }
            }
            while (!_stop.Wait(wake));

            long from = Interlocked.Read(ref _allocatedFrom);
            if (from >= 0)
            {
                Interlocked.Exchange(ref _allocated, GC.GetAllocatedBytesForCurrentThread() - from);
            }
        }) { IsBackground = true, Name = "measure-persister-lag" };
        _poller.Start();
    }

    /// <summary>
    /// Waits up to <paramref name="timeout"/> for PostgreSQL to hold every journalled input (the persister's
    /// catch-up after the last send); returns the seconds it took, or null when it did not catch up. Allocates
    /// nothing (the driver's measured phase ends after it).
    /// </summary>
    public double? WaitCaughtUp(Func<long> journalled, TimeSpan timeout)
    {
        long start = Stopwatch.GetTimestamp();
        long limit = start + (long)(timeout.TotalSeconds * Stopwatch.Frequency);
        while (Stopwatch.GetTimestamp() < limit && !_process.HasExited)
        {
            LagPoint last = default;
            int count;
            lock (_pointsLock)
            {
                count = _pointCount;
                if (count > 0)
                {
                    last = _points[count - 1];
                }
            }

            long now = journalled();
            if (count > 0 && last.Persisted >= now && last.Journalled >= now)
            {
                return (Stopwatch.GetTimestamp() - start) / (double)Stopwatch.Frequency;
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
        StopLagReader();
        int exit = ServiceProcess.Terminate(_process, timeout);
        _output?.WaitForEnd(TimeSpan.FromSeconds(10));
        return exit;
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
        StopLagReader();
        _process.Dispose();
        _cluster.Dispose();
        _stop.Dispose();
    }

    // Its standard input closed, the reader ends; killed if it does not within 10 s.
    private void StopLagReader()
    {
        if (_lagReader is { } reader)
        {
            _lagReader = null;
            try
            {
                reader.StandardInput.Close();
                if (!reader.WaitForExit(10_000))
                {
                    reader.Kill(entireProcessTree: true);
                    reader.WaitForExit();
                }
            }
            catch (Exception e) when (e is InvalidOperationException or IOException)
            {
                // it had ended
            }

            reader.Dispose();
        }

        _lagFile?.Dispose();
        _lagFile = null;
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
    private static string? BuildPersister(TextWriter output, string why)
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

        output.WriteLine($"PostgreSQL persister: building tools/Persister ({why})");
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
