using System.CommandLine;
using System.Globalization;
using Npgsql;
using RapidFix.Persistence;
using RapidFix.Persister;

// tools/Persister: writes the matching service's journals to PostgreSQL, exactly once, across a federation of
// databases (docs/persistence.md). Exit codes: 0 success, 1 a check failed (fault runs), 2 a usage or environment
// error (the message says which; never a password).
var dbs = new Option<string[]>("--db")
{
    Description = "a database server's connection string, once per server (server i owns TradePartition.Of(manager, broker, N) == i); " +
                  "no Password= here: PGPASSWORD or a pgpass file",
    Required = true,
    AllowMultipleArgumentsPerToken = false,
};
var admin = new Option<string[]>("--admin") { Description = "a connection string that may create schemas and roles, once per database", Required = true };
var dataDir = new Option<DirectoryInfo>("--data-dir") { Description = "the matching service's data directory (input journal and session stores)", Required = true };
var batch = new Option<int>("--batch") { Description = "journal records per transaction, at most", DefaultValueFactory = _ => 20_000 };
var streams = new Option<int>("--streams")
{
    Description = "COPY streams per server (connections, each with its share of the journals: the input journal on stream 0, the stores on the others)",
    DefaultValueFactory = _ => 2,
};
var untilDrained = new Option<bool>("--until-drained") { Description = "stop once every journal is written to its end (default: tail until Ctrl+C or SIGTERM)" };

var migrate = new Command("migrate", "create or migrate the schema and the roles on every database (RAPIDFIX_WRITER_PASSWORD, RAPIDFIX_READER_PASSWORD set their passwords)")
{
    admin,
};
migrate.SetAction(parse => Guarded(() =>
{
    foreach (var connection in NoPasswords(parse.GetValue(admin)!))
    {
        int applied = Schema.Migrate(connection, Environment.GetEnvironmentVariable("RAPIDFIX_WRITER_PASSWORD"),
            Environment.GetEnvironmentVariable("RAPIDFIX_READER_PASSWORD"));
        Console.WriteLine($"{Persister.Describe(connection)}: schema version {Schema.LatestVersion} ({applied} migrations applied now)");
    }

    return 0;
}));

var run = new Command("run", "tail the service's journals and write them to the databases") { dataDir, dbs, batch, streams, untilDrained };
run.Validators.Add(PositiveBatchAndStreams);
run.SetAction(parse => Guarded(() =>
{
    var servers = NoPasswords(parse.GetValue(dbs)!);
    using var persister = new Persister(new PersisterOptions
    {
        DataDirectory = parse.GetValue(dataDir)!.FullName,
        Servers = servers,
        BatchRecords = parse.GetValue(batch),
        Streams = parse.GetValue(streams),
        Log = Console.Out,
    });
    Console.WriteLine($"persister: {servers.Count} servers: {string.Join(", ", servers.Select(Persister.Describe))}");
    persister.Start();
    if (parse.GetValue(untilDrained))
    {
        persister.Drain();
    }
    else
    {
        var stop = new ManualResetEventSlim();
        Console.CancelKeyPress += (_, e) =>
        {
            e.Cancel = true;
            stop.Set();
        };
        using var sigterm = System.Runtime.InteropServices.PosixSignalRegistration.Create(System.Runtime.InteropServices.PosixSignal.SIGTERM, c =>
        {
            c.Cancel = true;
            stop.Set();
        });
        WaitHandle.WaitAny([stop.WaitHandle, persister.FatalHandle]);
        persister.Stop();
    }

    for (int i = 0; i < servers.Count; i++)
    {
        var c = persister.Counters[i];
        Console.WriteLine($"server {i}: {c.Records} records, {c.Rows} rows, {c.Quarantined} quarantined, {c.Batches} transactions, {c.Failures} failed attempts");
    }

    if (persister.Fatal is { } fatal)
    {
        Console.Error.WriteLine($"persister: {fatal}");
        return 2;
    }

    return 0;
}));

var report = new Argument<string>("report") { Description = "open-exceptions | cls-per-day | cls-per-participant | trade" };
var key = new Argument<string?>("key") { Description = "for trade: a trade key (IM|EB|side|ISIN|YYYYMMDD) or any participant's message ID, or a CLS ID", Arity = ArgumentArity.ZeroOrOne };
var query = new Command("query", "a report across every server (connect as rapidfix_reader)") { report, key, dbs };
query.SetAction(parse => Guarded(() =>
{
    var servers = NoPasswords(parse.GetValue(dbs)!);
    switch (parse.GetValue(report))
    {
        case "open-exceptions":
            foreach (var e in Queries.OpenExceptions(servers))
            {
                Console.WriteLine($"{e.TradeDate:yyyy-MM-dd} server {e.Server} {e.Participant} {e.Kind} {e.RefMsgType} {e.RefId} code {e.Code} {e.TradeKey}: {e.Text}");
            }

            return 0;
        case "cls-per-day" or "cls-per-participant":
            foreach (var ((day, participant), count) in Queries.ClsPerDay(servers, parse.GetValue(report) == "cls-per-participant"))
            {
                Console.WriteLine($"{day:yyyy-MM-dd} {participant} {count}".Replace("  ", " ", StringComparison.Ordinal));
            }

            return 0;
        case "trade" when parse.GetValue(key) is { } k:
            foreach (var h in Queries.TradeHistory(servers, k))
            {
                Console.WriteLine($"{h.SendingTime:yyyy-MM-dd HH:mm:ss.fff} server {h.Server} {(h.Direction == 'I' ? "in " : "out")} {h.Participant} {h.MsgType} {h.MessageId ?? h.RefId}");
            }

            return 0;
        default:
            Console.Error.WriteLine("persister: query open-exceptions | cls-per-day | cls-per-participant | trade <key or ID>");
            return 2;
    }
}));

var before = new Option<string>("--before") { Description = "detach every day partition older than this trade date (YYYYMMDD)", Required = true };
var detach = new Command("detach", "detach old day partitions (they stay as plain tables, to archive or drop)") { admin, before };
detach.SetAction(parse => Guarded(() =>
{
    if (!DateOnly.TryParseExact(parse.GetValue(before), "yyyyMMdd", CultureInfo.InvariantCulture, DateTimeStyles.None, out var day))
    {
        Console.Error.WriteLine("persister: --before is a date YYYYMMDD");
        return 2;
    }

    foreach (var connection in NoPasswords(parse.GetValue(admin)!))
    {
        var detached = Schema.DetachBefore(connection, day);
        Console.WriteLine($"{Persister.Describe(connection)}: {detached.Count} partitions detached{(detached.Count > 0 ? ": " + string.Join(", ", detached) : "")}");
    }

    return 0;
}));

var trades = new Option<int>("--trades") { Description = "trades in the run", DefaultValueFactory = _ => 100_000 };
var bench = new Command("bench", "the persister alone: rows/s into one throwaway PostgreSQL with COPY, and the share of time waiting on it") { trades, batch, streams };
bench.Validators.Add(PositiveBatchAndStreams);
bench.SetAction(parse => Guarded(() => Bench.Run(parse.GetValue(trades), parse.GetValue(batch), parse.GetValue(streams), Console.Out)));

var pathTrades = new Option<int>("--trades") { Description = "trades in the run (default: --rate x --seconds / 7, about 7 messages a trade)" };
var pathRate = new Option<int>("--rate") { Description = "messages a second offered by the driver (0: as fast as it can: the degradation run)", DefaultValueFactory = _ => 10_000 };
var pathSeconds = new Option<int>("--seconds") { Description = "how long to offer --rate (sets the trades when --trades is not given)", DefaultValueFactory = _ => 600 };
var databases = new Option<int>("--databases") { Description = "PostgreSQL servers (clusters) the rows are federated across", DefaultValueFactory = _ => 1 };
var plot = new Option<string?>("--plot") { Description = "write the throughput-against-stored-rows curve here (SVG)" };
var samplesCsv = new Option<string?>("--csv") { Description = "write the per-second samples here (seconds, journalled, persisted, rows)" };
var path = new Command("path", "the whole path, FIX in to PostgreSQL: driver, service, journals, persister, one or more databases; reports whether the journal backlog stays bounded")
{
    pathTrades, pathRate, pathSeconds, databases, streams, plot, samplesCsv,
};
path.Validators.Add(r =>
{
    // Only what was given is checked (defaults are applied after validation).
    bool Given(Option<int> option, int least) => r.GetResult(option) is { Implicit: false } && r.GetValue(option) < least;
    if (Given(pathRate, 0) || Given(pathSeconds, 1) || Given(databases, 1) || Given(pathTrades, 1) || Given(streams, 1))
    {
        r.AddError("--rate must be 0 or positive, --seconds, --databases, --streams and --trades positive");
    }

    if (r.GetResult(pathRate) is { Implicit: false } && r.GetValue(pathRate) == 0 && r.GetResult(pathTrades) is not { Implicit: false })
    {
        r.AddError("--rate 0 (unpaced) needs --trades");
    }
});
path.SetAction(parse => Guarded(() =>
{
    int rate = parse.GetValue(pathRate);
    int n = parse.GetValue(pathTrades) is > 0 and var given ? given : (int)Math.Max(10, (long)rate * parse.GetValue(pathSeconds) / 7);
    return WholePath.Run(n, rate, parse.GetValue(databases), parse.GetValue(streams), parse.GetValue(plot), parse.GetValue(samplesCsv), Console.Out);
}));

var fault = new Argument<string>("fault") { Description = "db-outage | kill (the persister) | kill-service (the matching service) | one-down" };
var seconds = new Option<int>("--seconds") { Description = "db-outage: how long PostgreSQL stays down", DefaultValueFactory = _ => 60 };
var points = new Option<int>("--points") { Description = "kill, kill-service: kill -9 points", DefaultValueFactory = _ => 10 };
var seed = new Option<int>("--seed") { Description = "kill, kill-service: random seed of the kill points (printed)", DefaultValueFactory = _ => Environment.TickCount & 0xFFFF };
var faultTrades = new Option<int>("--trades") { Description = "trades in the run", DefaultValueFactory = _ => 2_000 };
var faults = new Command("fault", "a fault run against a real service run and throwaway databases, checked against the generator's expected outcomes")
{
    fault, faultTrades, seconds, points, seed,
};
faults.SetAction(parse => Guarded(() =>
{
    string work = Path.Combine(Path.GetTempPath(), "rapidfix-persister-fault-" + Guid.NewGuid().ToString("N")[..8]);
    try
    {
        int n = parse.GetValue(faultTrades);
        bool ok = parse.GetValue(fault) switch
        {
            "db-outage" => Faults.DatabaseOutage(work, n, TimeSpan.FromSeconds(parse.GetValue(seconds)), Console.Out).Ok,
            "kill" => Faults.KillPersister(work, n, parse.GetValue(points), parse.GetValue(seed), Console.Out).Ok,
            "kill-service" => Faults.KillService(work, n, parse.GetValue(points), parse.GetValue(seed), Console.Out).Ok,
            "one-down" => Faults.OneOfTwoDown(work, n, Console.Out) is var (down, end) && down.Ok && end.Ok,
            var other => throw new ArgumentException($"unknown fault {other}: db-outage | kill | kill-service | one-down"),
        };
        Console.WriteLine(ok ? "PASS" : "FAIL");
        return ok ? 0 : 1;
    }
    finally
    {
        if (Directory.Exists(work))
        {
            Directory.Delete(work, recursive: true);
        }
    }
}));

var cluster = new Command("cluster", "start a throwaway PostgreSQL cluster with a migrated rapidfix database; print how to reach it; stop and delete it on Ctrl+C");
cluster.SetAction(_ => Guarded(() =>
{
    using var rig = Rig.Create(1);
    var c = rig.Clusters[0];
    Console.WriteLine($"cluster: 127.0.0.1:{c.Port}, database {Rig.Database}, folder {c.Root}");
    Console.WriteLine($"  persister run --db \"Host=127.0.0.1;Port={c.Port};Database={Rig.Database};Username={Schema.WriterRole}\" (the writer's password is in {Path.Combine(c.Root, "writer.password")})");
    File.WriteAllText(Path.Combine(c.Root, "writer.password"), rig.WriterPassword);
    var stop = new ManualResetEventSlim();
    Console.CancelKeyPress += (_, e) =>
    {
        e.Cancel = true;
        stop.Set();
    };
    stop.Wait();
    return 0;
}));

var root = new RootCommand("RapidFix persister: the matching service's journals into PostgreSQL, exactly once, across a federation of databases.")
{
    migrate, run, query, detach, bench, path, faults, cluster,
};
return root.Parse(args).Invoke();

// Only what was given is checked (defaults come after validation).
void PositiveBatchAndStreams(System.CommandLine.Parsing.CommandResult r)
{
    if (r.GetResult(batch) is { Implicit: false } && r.GetValue(batch) < 1 || r.GetResult(streams) is { Implicit: false } && r.GetValue(streams) < 1)
    {
        r.AddError("--batch and --streams must be positive");
    }
}

// Passwords come from PGPASSWORD or a pgpass file (Npgsql reads both), never from a command line that ps shows.
static List<string> NoPasswords(string[] connections)
{
    foreach (var connection in connections)
    {
        if (!string.IsNullOrEmpty(new NpgsqlConnectionStringBuilder(connection).Password))
        {
            throw new ArgumentException("a connection string carries a password: put it in PGPASSWORD or a pgpass file instead");
        }
    }

    return connections.ToList();
}

// A user's or the environment's mistake gets its message and exit code 2, not a stack trace.
static int Guarded(Func<int> action)
{
    try
    {
        return action();
    }
    catch (Exception e) when (e is NpgsqlException or ArgumentException or IOException or InvalidOperationException or TimeoutException or UnauthorizedAccessException)
    {
        Console.Error.WriteLine($"persister: {(e is PostgresException p ? $"{p.SqlState} {p.MessageText}" : e.Message)}");
        return 2;
    }
}
