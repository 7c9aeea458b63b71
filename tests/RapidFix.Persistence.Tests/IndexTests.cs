using Npgsql;
using RapidFix.Persister;

namespace RapidFix.Persistence.Tests;

/// <summary>
/// Migration 2 (fewer index entries per row): audit lost its own primary key and the lookup columns got partial
/// indexes. What must still hold: a record written twice is refused whole (audit row included), and the lookups a
/// back office makes still find their rows.
/// </summary>
[Collection(nameof(PersisterProcesses))]
public sealed class IndexTests
{
    [PostgresFact]
    public void A_record_written_twice_is_refused_with_its_audit_row_by_the_message_key()
    {
        using var rig = Rig.Create(1);
        using var dir = new TempDir();
        int records = TestJournals.Persist(rig, dir.Path, trades: 3);

        using var c = new NpgsqlConnection(rig.Admins[0]);
        c.Open();
        long messages = TestJournals.Count(c, "SELECT count(*) FROM rapidfix.fix_message");
        long audits = TestJournals.Count(c, "SELECT count(*) FROM rapidfix.audit");
        Assert.Equal(records, messages);

        // The positions lost: a second persister writes every record again, and every one is refused and quarantined.
        Schema.Execute(c, "DELETE FROM rapidfix.journal_position");
        var log = new LogBuffer();
        using (var again = new Persistence.Persister(new PersisterOptions { DataDirectory = dir.Path, Servers = rig.Writers, Log = log }))
        {
            again.Start();
            again.Drain();
            Assert.Equal(records, again.Counters[0].Quarantined);
        }

        Assert.Equal(messages, TestJournals.Count(c, "SELECT count(*) FROM rapidfix.fix_message"));
        Assert.Equal(audits, TestJournals.Count(c, "SELECT count(*) FROM rapidfix.audit")); // no audit row twice, with no key of its own
        Assert.Equal(records, TestJournals.Count(c, "SELECT count(*) FROM rapidfix.quarantine WHERE sql_state = '23505'"));
    }

    [PostgresFact]
    public void The_lookup_indexes_hold_only_rows_that_have_the_value_and_the_lookups_still_find_them()
    {
        using var rig = Rig.Create(1);
        using var dir = new TempDir();
        TestJournals.Persist(rig, dir.Path, trades: 3);

        using var c = new NpgsqlConnection(rig.Admins[0]);
        c.Open();
        foreach (var index in new[] { "fix_message_trade_key", "fix_message_message_id", "fix_message_ref_id", "cls_alloc_id", "match_exception_trade_key" })
        {
            using var command = new NpgsqlCommand("SELECT pg_get_indexdef(to_regclass('rapidfix.' || $1))", c);
            command.Parameters.Add(new NpgsqlParameter { Value = index });
            Assert.Contains("IS NOT NULL", (string)command.ExecuteScalar()!);
        }

        Assert.Equal(0, TestJournals.Count(c, "SELECT count(*) FROM pg_constraint WHERE conname = 'audit_pkey'"));
        // Migration 3: no index on audit at all (none of the back office's questions reads it by a column).
        Assert.Equal(0, TestJournals.Count(c, "SELECT count(*) FROM pg_indexes WHERE schemaname = 'rapidfix' AND tablename LIKE 'audit%'"));
        var history = Queries.TradeHistory(rig.Admins, "ALC-2-1");
        Assert.Contains(history, h => h.MessageId == "ALC-2-1");
        Assert.Contains(history, h => h.RefId == "ALC-2-1"); // its ack, found through the ref_id index
        Assert.Equal(14, history.Count); // NOE, 2 ALC, 2 NPR, their 5 acks, 4 CLS copies (the SETs carry no trade key)
    }
}
