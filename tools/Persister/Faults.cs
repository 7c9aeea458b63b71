using System.Diagnostics;
using Npgsql;
using RapidFix.Persistence;

namespace RapidFix.Persister;

/// <summary>
/// Throwaway databases for a run: one PostgreSQL cluster per server (so one can be stopped alone), each with a
/// <c>rapidfix</c> database migrated by the tool, and the writer role's password from a random value handed to the
/// persister through the environment.
/// </summary>
internal sealed class Rig : IDisposable
{
    public const string Database = "rapidfix";

    private Rig(List<PgCluster> clusters, string writerPassword)
    {
        Clusters = clusters;
        WriterPassword = writerPassword;
    }

    public List<PgCluster> Clusters { get; }

    public string WriterPassword { get; }

    /// <summary>The writer's connection strings, with the password (in-process use only: never printed).</summary>
    public List<string> Writers => Clusters.Select(c => c.ConnectionString(Database, Schema.WriterRole, WriterPassword)).ToList();

    /// <summary>The writer's connection strings without a password (the password goes in PGPASSWORD).</summary>
    public List<string> WritersWithoutPassword => Clusters.Select(c => new NpgsqlConnectionStringBuilder(c.ConnectionString(Database, Schema.WriterRole)) { Password = null }.ConnectionString).ToList();

    public List<string> Admins => Clusters.Select(c => c.ConnectionString(Database)).ToList();

    public static Rig Create(int servers, bool durable = false)
    {
        string password = Convert.ToHexString(System.Security.Cryptography.RandomNumberGenerator.GetBytes(12));
        var clusters = new List<PgCluster>();
        try
        {
            for (int i = 0; i < servers; i++)
            {
                var cluster = PgCluster.Create(durable);
                clusters.Add(cluster);
                cluster.CreateDatabase(Database);
                Schema.Migrate(cluster.ConnectionString(Database), password, password);
            }

            return new Rig(clusters, password);
        }
        catch
        {
            clusters.ForEach(c => c.Dispose());
            throw;
        }
    }

    public void Dispose() => Clusters.ForEach(c => c.Dispose());
}

/// <summary>
/// The fault runs of issue 11 (docs/persistence.md): each drives a real service run (generated set, service, FIX
/// sessions), persists it while the fault happens, and checks the databases against the journals and the
/// generator's expectations. The CI tests run them small; the commands run them at full size.
/// </summary>
internal static class Faults
{
    /// <summary>PostgreSQL stopped for <paramref name="outage"/> in the middle of a run; the persister retries, catches up, exactly once.</summary>
    public static CheckResult DatabaseOutage(string work, int trades, TimeSpan outage, TextWriter log)
    {
        using var scenario = ServiceScenario.Generate(work, trades, seed: 11, log);
        using var rig = Rig.Create(1);
        int port = scenario.StartService(log);
        using var persister = new Persistence.Persister(Options(scenario, rig.Writers, log, batch: 100));
        persister.Start();
        // Paced so that the set takes about four outages to send: the service keeps journalling while PostgreSQL is down
        // whatever the machine's speed (unpaced, a fast machine sent the whole set before the stop and the persister
        // had nothing to write during the outage).
        int pace = Math.Max(7, (int)(scenario.Messages / (4 * outage.TotalSeconds)));
        var drive = Task.Run(() => scenario.Drive(port, log, pace));
        // Stop it while rows flow: a quarter of the set's inputs written, the driver still sending.
        Wait(() => Interlocked.Read(ref persister.Counters[0].Records) >= scenario.Messages / 4, "a quarter of the inputs written", 300);
        log.WriteLine($"fault: stopping PostgreSQL for {outage.TotalSeconds:F0} s after {persister.Counters[0].Records} records ({pace} messages/s offered)");
        bool sendingAtStop = !drive.IsCompleted;
        rig.Clusters[0].Stop();
        Thread.Sleep(outage);
        // The outage lasts until the persister has met it (a failed attempt), at most a minute more.
        var longest = DateTime.UtcNow.AddSeconds(60);
        while (Interlocked.Read(ref persister.Counters[0].Failures) == 0 && DateTime.UtcNow < longest)
        {
            Thread.Sleep(50);
        }

        rig.Clusters[0].Start();
        log.WriteLine("fault: PostgreSQL started again");
        drive.Wait();
        scenario.StopService();
        persister.Drain();
        var result = Checker.Check(rig.Admins, scenario.DataDirectory, scenario.Expected, scenario.Messages);
        if (!sendingAtStop)
        {
            result.Mismatches.Add("the driver had sent the whole set before PostgreSQL stopped (the fault came too late to test anything)");
        }

        if (persister.Counters[0].Failures == 0)
        {
            result.Mismatches.Add("the persister never saw the outage (no failed attempt)");
        }

        log.WriteLine($"outage: {persister.Counters[0].Failures} failed attempts, then caught up; {result}");
        return result;
    }

    /// <summary>
    /// kill -9 of the persister (a child process) at <paramref name="points"/> random moments while the service runs;
    /// restarted each time; at the end it drains, and the databases must hold every record exactly once.
    /// </summary>
    public static CheckResult KillPersister(string work, int trades, int points, int seed, TextWriter log)
    {
        using var scenario = ServiceScenario.Generate(work, trades, seed: 13, log);
        using var rig = Rig.Create(1);
        int port = scenario.StartService(log);
        var drive = Task.Run(() => scenario.Drive(port, log));
        var random = new Random(seed);
        log.WriteLine($"kill campaign: {points} points, seed {seed}");
        for (int point = 0; point < points; point++)
        {
            using var child = StartPersister(scenario, rig, drain: false, log);
            // Kill once this incarnation is writing: after its first commit (not during its start-up, which takes longer
            // than the random delay on a loaded machine), plus a random 0-400 ms.
            long before = Committed(rig.Admins[0]);
            var deadline = DateTime.UtcNow.AddSeconds(60);
            while (Committed(rig.Admins[0]) == before && DateTime.UtcNow < deadline && !child.HasExited)
            {
                Thread.Sleep(20);
            }

            Thread.Sleep(random.Next(400));
            child.Kill(entireProcessTree: true);
            child.WaitForExit();
            log.WriteLine($"kill {point + 1}: persister killed, journal positions at {Committed(rig.Admins[0])} (sum of the committed MsgSeqNums)");
        }

        drive.Wait();
        scenario.StopService();
        using (var last = StartPersister(scenario, rig, drain: true, log))
        {
            if (!last.WaitForExit(600_000) || last.ExitCode != 0)
            {
                throw new InvalidOperationException("the last persister run did not drain the journals");
            }
        }

        var result = Checker.Check(rig.Admins, scenario.DataDirectory, scenario.Expected, scenario.Messages);
        log.WriteLine($"kill campaign: {result}");
        return result;
    }

    /// <summary>
    /// kill -9 of the matching service at <paramref name="points"/> random moments while the driver sends (paced, so
    /// traffic flows through every kill), restarted each time on the same port and data directory: the service
    /// rebuilds itself from its input journal, the driver's sessions reconnect and resend what the service had not
    /// journalled (sequence gap, ResendRequest), and the driver checks every answer against expected.csv (no
    /// acknowledged message lost, no CLS twice, exit 1 otherwise). The persister, writing all along, must then hold
    /// every record of the journals exactly once: the restarts compact the journals under its tails.
    /// </summary>
    public static CheckResult KillService(string work, int trades, int points, int seed, TextWriter log)
    {
        using var scenario = ServiceScenario.Generate(work, trades, seed: 19, log);
        using var rig = Rig.Create(1);
        int port = scenario.StartService(log);
        using var persister = new Persistence.Persister(Options(scenario, rig.Writers, log, batch: 100));
        persister.Start();
        // About four seconds of traffic between two kills, whatever the set's size.
        int pace = Math.Max(7, scenario.Messages / (4 * (points + 1)));
        Exception? driveFailure = null;
        var drive = Task.Run(() =>
        {
            try
            {
                scenario.Drive(port, log, pace);
            }
            catch (Exception e)
            {
                driveFailure = e;
            }
        });
        var random = new Random(seed);
        log.WriteLine($"service kill campaign: {points} points, seed {seed}, {pace} messages/s offered");
        int killed = 0;
        long atRestart = 0;
        for (int point = 0; point < points && !drive.IsCompleted; point++)
        {
            // Kill once this incarnation is taking traffic (the persister has read records it journalled since the
            // last restart: the driver is logged on again), plus a random 0-1000 ms; never during its start-up.
            var deadline = DateTime.UtcNow.AddSeconds(120);
            while (Interlocked.Read(ref persister.Counters[0].Records) <= atRestart + 1 && !drive.IsCompleted && DateTime.UtcNow < deadline)
            {
                Thread.Sleep(20);
            }

            Thread.Sleep(random.Next(1000));
            if (drive.IsCompleted)
            {
                break;
            }

            long records = Interlocked.Read(ref persister.Counters[0].Records);
            scenario.KillService();
            killed++;
            log.WriteLine($"kill {point + 1}: service killed (kill -9) with {records} records persisted; restarting it");
            scenario.StartService(log, port);
            atRestart = Interlocked.Read(ref persister.Counters[0].Records);
        }

        drive.Wait();
        scenario.StopService();
        persister.Drain();
        var result = Checker.Check(rig.Admins, scenario.DataDirectory, scenario.Expected, scenario.Messages);
        if (driveFailure is not null)
        {
            result.Mismatches.Add("the driver's own check failed (an acknowledged message lost, a CLS twice or a wrong answer): " + driveFailure.Message);
        }

        if (killed < points)
        {
            result.Mismatches.Add($"the driver finished after {killed} of {points} kills (the faults came too late to test anything)");
        }

        log.WriteLine($"service kill campaign: {killed} kills; {result}");
        return result;
    }

    /// <summary>Two databases, the second down for the run: the first gets all its partitions' rows; the second catches up when it returns.</summary>
    public static (CheckResult WhileDown, CheckResult AtEnd) OneOfTwoDown(string work, int trades, TextWriter log)
    {
        using var scenario = ServiceScenario.Generate(work, trades, seed: 17, log);
        using var rig = Rig.Create(2);
        rig.Clusters[1].Stop();
        int port = scenario.StartService(log);
        using var persister = new Persistence.Persister(Options(scenario, rig.Writers, log, batch: 200));
        persister.Start();
        scenario.Drive(port, log);
        scenario.StopService();

        // Server 0 must get every record it owns while server 1 is down.
        int owned = OwnedRecords(scenario.DataDirectory, servers: 2, server: 0);
        Wait(() => Records(rig.Admins[0]) >= owned, $"server 0's {owned} records while server 1 is down", 300);
        var whileDown = Checker.Check([rig.Admins[0]], scenario.DataDirectory, null);
        whileDown.Mismatches.RemoveAll(m => m.StartsWith("the journals hold", StringComparison.Ordinal)); // server 1's part is missing on purpose
        if (Records(rig.Admins[0]) != owned)
        {
            whileDown.Mismatches.Add($"server 0 holds {Records(rig.Admins[0])} records, it owns {owned}");
        }

        if (persister.Counters[1].Failures == 0)
        {
            whileDown.Mismatches.Add("server 1 was never tried");
        }

        log.WriteLine($"one of two down: server 0 has its {owned} records, server 1 failed {persister.Counters[1].Failures} attempts");
        rig.Clusters[1].Start();
        persister.Drain();
        var atEnd = Checker.Check(rig.Admins, scenario.DataDirectory, scenario.Expected, scenario.Messages);
        log.WriteLine($"one of two down, after server 1 returned: {atEnd}");
        return (whileDown, atEnd);
    }

    internal static PersisterOptions Options(ServiceScenario scenario, List<string> servers, TextWriter log, int batch) => new()
    {
        DataDirectory = scenario.DataDirectory,
        Servers = servers,
        BatchRecords = batch,
        Log = log,
        MinBackoff = TimeSpan.FromMilliseconds(50),
        MaxBackoff = TimeSpan.FromSeconds(1),
    };

    /// <summary>The journal records a server owns (the persister's own routing rule, computed offline).</summary>
    internal static int OwnedRecords(string dataDirectory, int servers, int server)
    {
        using var index = new TradeIndex(Path.Combine(dataDirectory, JournalSource.InputJournalFile));
        index.CatchUp();
        var builder = new RowBuilder(index, servers);
        int owned = 0;
        foreach (var source in JournalSource.Discover(dataDirectory))
        {
            using var tail = new JournalTail(source.Path);
            var records = new List<JournalRecord>();
            while (tail.Poll(records, 100_000) > 0)
            {
            }

            owned += records.Select(r => builder.Build(source, r)).Count(r => r.Server == server && r.Message is not null);
        }

        return owned;
    }

    private static Process StartPersister(ServiceScenario scenario, Rig rig, bool drain, TextWriter log)
    {
        var args = new List<string> { "run", "--data-dir", scenario.DataDirectory, "--batch", "25" };
        foreach (var db in rig.WritersWithoutPassword)
        {
            args.Add("--db");
            args.Add(db);
        }

        if (drain)
        {
            args.Add("--until-drained");
        }

        var start = ServiceScenario.DotnetStart("RapidFix.Persister.dll", scenario.Work, args.ToArray());
        start.Environment["PGPASSWORD"] = rig.WriterPassword;
        var process = Process.Start(start)!;
        process.OutputDataReceived += (_, e) =>
        {
            if (e.Data is { } line)
            {
                log.WriteLine(line);
            }
        };
        process.ErrorDataReceived += (_, e) =>
        {
            if (e.Data is { } line)
            {
                log.WriteLine(line);
            }
        };
        process.BeginOutputReadLine();
        process.BeginErrorReadLine();
        return process;
    }

    private static long Committed(string server)
    {
        using var c = new NpgsqlConnection(server);
        c.Open();
        using var command = new NpgsqlCommand("SELECT coalesce(sum(seq), 0) FROM rapidfix.journal_position", c);
        return Convert.ToInt64(command.ExecuteScalar(), System.Globalization.CultureInfo.InvariantCulture);
    }

    private static long Records(string server)
    {
        using var c = new NpgsqlConnection(server);
        c.Open();
        using var command = new NpgsqlCommand("SELECT count(*) FROM rapidfix.fix_message", c);
        return Convert.ToInt64(command.ExecuteScalar(), System.Globalization.CultureInfo.InvariantCulture);
    }

    private static void Wait(Func<bool> condition, string what, int seconds)
    {
        var deadline = DateTime.UtcNow.AddSeconds(seconds);
        while (!condition())
        {
            if (DateTime.UtcNow > deadline)
            {
                throw new TimeoutException($"waited {seconds} s for {what}");
            }

            Thread.Sleep(50);
        }
    }
}
