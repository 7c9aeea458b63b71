using Npgsql;
using RapidFix.Persister;

namespace RapidFix.Persistence.Tests;

/// <summary>Migrations, the writer's least privilege, day partitions and their detachment, on a throwaway cluster.</summary>
[Collection(nameof(PersisterProcesses))]
public sealed class SchemaTests
{
    [PostgresFact]
    public void Migrating_again_changes_nothing_and_the_writer_may_only_write_its_tables()
    {
        using var rig = Rig.Create(1);
        string admin = rig.Admins[0];
        Assert.Equal(0, Schema.Migrate(admin, null, null)); // already current: idempotent

        using var writer = new NpgsqlConnection(rig.Writers[0]);
        writer.Open();
        Assert.Equal(Schema.LatestVersion, Schema.Version(writer));
        foreach (var forbidden in new[]
                 {
                     "DELETE FROM rapidfix.fix_message",
                     "UPDATE rapidfix.cls SET quantity = 0",
                     "SELECT count(*) FROM rapidfix.fix_message",
                     "DROP TABLE rapidfix.audit",
                     // Migration 6: the audit trail is columns of fix_message; the writer no longer writes the old table.
                     "INSERT INTO rapidfix.audit (trade_date, source, generation, seq, actor, counterparty, action, msg_type, outcome) " +
                     "VALUES ('2026-11-23', 's', 1, 1, 'a', 'b', 'sent', 'AE', 'received')",
                     "CREATE TABLE rapidfix.mine (x int)",
                     "CREATE TABLE public.mine (x int)",
                 })
        {
            using var command = new NpgsqlCommand(forbidden, writer);
            var e = Assert.Throws<PostgresException>(() => command.ExecuteNonQuery());
            Assert.True(e.SqlState is "42501" or "42P01", $"{forbidden}: {e.SqlState} {e.MessageText}"); // insufficient privilege
        }
    }

    [PostgresFact]
    public void Rows_of_a_new_day_get_their_partition_and_old_days_can_be_detached()
    {
        using var rig = Rig.Create(1);
        using var dir = new TempDir();
        TestJournals.Persist(rig, dir.Path, trades: 3);

        using var admin = new NpgsqlConnection(rig.Admins[0]);
        admin.Open();
        var partitions = Names(admin, "SELECT c.relname FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid WHERE i.inhparent = 'rapidfix.cls'::regclass");
        Assert.Equal(["cls_20261123", "cls_20261124"], partitions.Order()); // the trade date and one day ahead

        var detached = Schema.DetachBefore(rig.Admins[0], new DateOnly(2026, 11, 24));
        Assert.Equal(3, detached.Count); // fix_message, cls, match_exception: audit has no new days since migration 6
        Assert.Contains("fix_message_20261123", detached);
        using var count = new NpgsqlCommand("SELECT (SELECT count(*) FROM rapidfix.fix_message), (SELECT count(*) FROM rapidfix.fix_message_20261123)", admin);
        using var reader = count.ExecuteReader();
        Assert.True(reader.Read());
        Assert.Equal(0, reader.GetInt64(0)); // no longer part of the table
        Assert.Equal(3 * 16, reader.GetInt64(1)); // kept as a plain table
    }

    [PostgresFact]
    public void A_day_partition_is_made_while_another_stream_copies_or_makes_another_day_and_gets_its_indexes_once()
    {
        using var rig = Rig.Create(1);
        using var copying = new NpgsqlConnection(rig.Writers[0]);
        copying.Open();
        Schema.Execute(copying, "SELECT rapidfix.ensure_day('2026-11-23')");
        using var tx = copying.BeginTransaction();
        // Another stream's batch in progress: it holds its rows' table (ROW EXCLUSIVE on the parent) until it commits.
        Schema.Execute(copying, "INSERT INTO rapidfix.fix_message (trade_date, source, generation, seq, direction, participant, msg_type, trade_partition, body) " +
                                "VALUES ('2026-11-23', 'test', 1, 1, 'I', 'IM1', 'J', 0, '\\x00')", tx);
        // And a stream in the middle of making another day (holding that day's lock until its commit).
        using var other = new NpgsqlConnection(rig.Admins[0]);
        other.Open();
        using var otherDay = other.BeginTransaction();
        Schema.Execute(other, "SELECT pg_advisory_xact_lock(hashtext('rapidfix.ensure_day'), date '2026-12-05' - date '2000-01-01')", otherDay);

        using var making = new NpgsqlConnection(rig.Writers[0]);
        making.Open();
        // Before migration 4 both waited here: CREATE TABLE .. PARTITION OF for the batch (ACCESS EXCLUSIVE on the
        // parent), and one advisory lock for every day for the other day.
        Schema.Execute(making, "SET lock_timeout = '5s'");
        Schema.Execute(making, "SELECT rapidfix.ensure_day('2026-12-01')");
        Schema.Execute(making, "SELECT rapidfix.ensure_day('2026-12-01')"); // made: returns at once
        tx.Commit();
        otherDay.Commit();

        using var admin = new NpgsqlConnection(rig.Admins[0]);
        admin.Open();
        foreach (var table in Schema.DailyTables)
        {
            // Every index of the parent, attached to the partition's own (made LIKE the parent): none built twice, none missing.
            long parent = TestJournals.Count(admin, $"SELECT count(*) FROM pg_index WHERE indrelid = 'rapidfix.{table}'::regclass");
            long child = TestJournals.Count(admin, $"SELECT count(*) FROM pg_index WHERE indrelid = 'rapidfix.{table}_20261201'::regclass");
            long attached = TestJournals.Count(admin, $"SELECT count(*) FROM pg_index x JOIN pg_inherits i ON i.inhrelid = x.indexrelid WHERE x.indrelid = 'rapidfix.{table}_20261201'::regclass");
            Assert.True(parent > 0, table);
            Assert.Equal(parent, child);
            Assert.Equal(parent, attached);
            Assert.Equal(1, TestJournals.Count(admin, $"SELECT count(*) FROM pg_inherits WHERE inhrelid = 'rapidfix.{table}_20261201'::regclass AND inhparent = 'rapidfix.{table}'::regclass"));
        }

        // The made day takes rows through the parent, as a day made by PARTITION OF did.
        Schema.Execute(making, "INSERT INTO rapidfix.fix_message (trade_date, source, generation, seq, direction, participant, msg_type, trade_partition, body) " +
                               "VALUES ('2026-12-01', 'test', 1, 2, 'I', 'IM1', 'J', 0, '\\x00')");
        Assert.Equal(1, TestJournals.Count(admin, "SELECT count(*) FROM rapidfix.fix_message_20261201"));
    }

    [PostgresFact]
    public void A_database_without_the_schema_or_a_refused_password_stops_the_worker_with_the_reason_instead_of_retrying()
    {
        using var cluster = PgCluster.Create();
        cluster.CreateDatabase("empty");
        using var dir = new TempDir();
        Bench.WriteJournals(dir.Path, trades: 1);
        foreach (var (server, reason) in new[]
                 {
                     (cluster.ConnectionString("empty"), $"schema version 0, this persister needs {Schema.LatestVersion}: run the migrate command"),
                     (cluster.ConnectionString("empty", "postgres", "wrong"), "28P01"),
                 })
        {
            var log = new LogBuffer();
            using var persister = new Persistence.Persister(new PersisterOptions { DataDirectory = dir.Path, Servers = [server], Log = log });
            persister.Start();
            Assert.True(persister.FatalHandle.WaitOne(TimeSpan.FromSeconds(60)), log.ToString());
            persister.Drain();
            Assert.Contains(reason, persister.Fatal);
            Assert.Equal(0, persister.Counters[0].Failures); // not retried
            Assert.DoesNotContain(cluster.SuperuserPassword, log.ToString());
        }
    }

    private static List<string> Names(NpgsqlConnection c, string sql)
    {
        using var command = new NpgsqlCommand(sql, c);
        using var reader = command.ExecuteReader();
        var names = new List<string>();
        while (reader.Read())
        {
            names.Add(reader.GetString(0));
        }

        return names;
    }
}
