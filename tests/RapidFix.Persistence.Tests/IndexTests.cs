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
        long audits = TestJournals.Count(c, "SELECT count(*) FROM rapidfix.audit_trail");
        Assert.Equal(records, messages);
        Assert.Equal(records, audits); // every record of the bench's trades is an input or an answer: one audit entry each

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
        Assert.Equal(audits, TestJournals.Count(c, "SELECT count(*) FROM rapidfix.audit_trail")); // no audit entry twice: it is the message row's
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
        foreach (var index in new[] { "fix_message_key_hash", "fix_message_input_id", "fix_message_keyless_ref_id", "match_exception_trade_key" })
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
        Assert.Contains(history, h => h.RefId == "ALC-2-1"); // its ack, found through its trade's key
        Assert.Equal(14, history.Count); // NOE, 2 ALC, 2 NPR, their 5 acks, 4 CLS copies (the SETs carry no trade key)
        // Migration 5: the answers' ref_id is indexed only when they have no key, the IDs only of inputs (and of outputs
        // with no key), cls.alloc_id not at all: in the bench's trades no answer is key-less, and no output.
        Assert.Equal(0, TestJournals.Count(c, "SELECT count(*) FROM rapidfix.fix_message WHERE ref_id IS NOT NULL AND trade_key IS NULL"));
        Assert.Equal(0, TestJournals.Count(c, "SELECT count(*) FROM pg_indexes WHERE schemaname = 'rapidfix' AND indexname LIKE 'cls%alloc%'"));
    }

    /// <summary>
    /// Every back-office question is answered through an index (migration 5 changed them): with sequential scans
    /// priced out (<c>enable_seqscan = off</c>), a plan that still scans a daily table of the question whole has no
    /// index to use. The history by key, by an input's ID, by a CLS ID and by a key-less answer's ID; whether an
    /// exception's trade has a CLS; CLS by participant and date.
    /// </summary>
    [PostgresFact]
    public void The_back_office_questions_are_served_by_indexes()
    {
        using var rig = Rig.Create(1);
        using var dir = new TempDir();
        TestJournals.Persist(rig, dir.Path, trades: 3);

        using var c = new NpgsqlConnection(rig.Admins[0]);
        c.Open();
        Schema.Execute(c, "SET enable_seqscan = off");
        foreach (var keyOrId in new[] { "IM2|EB1|1|SG0000000001|20261123", "ALC-2-1", "CLS-2-1", "SET-1-1" })
        {
            string plan = Explain(c, Queries.TradeHistorySql, keyOrId);
            Assert.DoesNotContain("Seq Scan on fix_message", plan);
            Assert.DoesNotContain("Seq Scan on cls", plan);
            Assert.Contains("fix_message_20261123_hashtextextended_idx", plan); // the key's hash
        }

        Assert.Contains(Queries.TradeHistory(rig.Admins, "CLS-2-1"), h => h.MessageId == "CLS-2-1" && h.Direction == 'O');
        string exceptions = Explain(c, "SELECT 1 FROM rapidfix.match_exception e WHERE e.trade_key = $1 AND EXISTS (SELECT 1 FROM rapidfix.cls x WHERE x.trade_key = e.trade_key)", "K");
        Assert.DoesNotContain("Seq Scan", exceptions);
        string cls = Explain(c, "SELECT count(*) FROM rapidfix.cls WHERE investment_manager = $1 AND trade_date = '2026-11-23'", "IM1");
        Assert.DoesNotContain("Seq Scan", cls);
    }

    private static string Explain(NpgsqlConnection c, string sql, string parameter)
    {
        using var command = new NpgsqlCommand("EXPLAIN " + sql, c);
        command.Parameters.Add(new NpgsqlParameter { Value = parameter });
        using var reader = command.ExecuteReader();
        var plan = new System.Text.StringBuilder();
        while (reader.Read())
        {
            plan.AppendLine(reader.GetString(0));
        }

        return plan.ToString();
    }
}
