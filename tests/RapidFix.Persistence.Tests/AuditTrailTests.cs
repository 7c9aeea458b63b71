using Npgsql;
using RapidFix.Engine.Store;
using RapidFix.Persister;

namespace RapidFix.Persistence.Tests;

/// <summary>
/// Migration 6: the audit trail is two columns of <c>fix_message</c> (the message's other party and the outcome) read
/// through the view <c>audit_trail</c>, instead of a row of its own in <c>audit</c>. Every audit question must keep
/// its answer: who sent what to whom, when, and what the utility answered, for every record that had an audit row
/// (the reference, <see cref="RowBuilder"/>'s audit rows of before), none for a record that had none (a session
/// message), and the days written before the migration (rows of the <c>audit</c> table) still read through the view.
/// </summary>
[Collection(nameof(PersisterProcesses))]
public sealed class AuditTrailTests
{
    [PostgresFact]
    public void The_audit_trail_holds_every_audit_row_of_before_and_the_old_days_too()
    {
        using var rig = Rig.Create(1);
        using var dir = new TempDir();
        Bench.WriteJournals(dir.Path, trades: 5);
        RowEncoderTests.WriteOddAnswers(Path.Combine(dir.Path, "FIX.4.4-MATCH-ODD.journal"));
        using (var persister = new Persistence.Persister(new PersisterOptions { DataDirectory = dir.Path, Servers = rig.Writers }))
        {
            persister.Start();
            persister.Drain();
            Assert.Equal(0, persister.Counters[0].Quarantined);
        }

        // What the audit table held before migration 6: the reference's audit row of each record.
        var expected = new List<string>();
        using (var index = new TradeIndex(Path.Combine(dir.Path, JournalSource.InputJournalFile)))
        {
            index.CatchUp();
            var builder = new RowBuilder(index, 1);
            foreach (var source in JournalSource.Discover(dir.Path))
            {
                using var tail = new JournalTail(source.Path);
                var records = new List<JournalRecord>();
                while (tail.Poll(records, 100_000) > 0)
                {
                }

                foreach (var record in records)
                {
                    var rows = builder.Build(source, record);
                    if (rows.Audit is { } a)
                    {
                        expected.Add(Line(rows.Message!.TradeDate, source.Name, record.Generation, record.Seq, a.At, a.Actor, a.Counterparty, a.Action, a.MsgType, a.MessageId, a.Outcome));
                    }
                }
            }
        }

        using var c = new NpgsqlConnection(rig.Admins[0]);
        c.Open();
        Assert.Equal(0, TestJournals.Count(c, "SELECT count(*) FROM rapidfix.audit")); // no row of its own any more
        Assert.Equal(0, TestJournals.Count(c, "SELECT count(*) FROM pg_inherits WHERE inhparent = 'rapidfix.audit'::regclass")); // nor its days
        // No audit entry for what answers nothing: the odd store's heartbeat, its record with no MsgType, its CLS that did not clear.
        Assert.Equal(3, TestJournals.Count(c, "SELECT count(*) FROM rapidfix.fix_message WHERE outcome IS NULL"));
        Assert.Equal(5 * 16 + 13, expected.Count); // every record of the trades, and the odd store's 16 but those 3
        Assert.Equal(expected.Order(StringComparer.Ordinal), Read(c).Order(StringComparer.Ordinal));

        // A day written before migration 6 (its audit rows in the audit table) reads through the same view.
        Schema.Execute(c, "CREATE TABLE rapidfix.audit_20261101 PARTITION OF rapidfix.audit FOR VALUES FROM ('2026-11-01') TO ('2026-11-02')");
        Schema.Execute(c, "INSERT INTO rapidfix.audit (trade_date, source, generation, seq, at, actor, counterparty, action, msg_type, message_id, outcome) " +
                          "VALUES ('2026-11-01', 'old', 1, 7, '2026-11-01 10:00:00', 'EB1', 'MATCH', 'sent', 'AE', 'NOE-old', 'received')");
        expected.Add(Line(new DateOnly(2026, 11, 1), "old", 1, 7, new DateTime(2026, 11, 1, 10, 0, 0), "EB1", "MATCH", "sent", "AE", "NOE-old", "received"));
        Assert.Equal(expected.Order(StringComparer.Ordinal), Read(c).Order(StringComparer.Ordinal));

        // The auditor's questions: who sent what and what the utility answered (an ALC of trade 2 and its ack).
        var alc = Read(c, "WHERE message_id = 'ALC-2-1' ORDER BY action DESC");
        Assert.Equal(2, alc.Count);
        Assert.Contains("|sent|J|ALC-2-1|received", alc[0], StringComparison.Ordinal);
        Assert.Contains("|MATCH|", alc[1], StringComparison.Ordinal);
        Assert.EndsWith("|answered|P|ALC-2-1|accepted", alc[1], StringComparison.Ordinal);
    }

    private static List<string> Read(NpgsqlConnection c, string where = "")
    {
        using var command = new NpgsqlCommand(
            "SELECT trade_date, source, generation, seq, at, actor, counterparty, action, msg_type, message_id, outcome FROM rapidfix.audit_trail " + where, c);
        using var r = command.ExecuteReader();
        var lines = new List<string>();
        while (r.Read())
        {
            lines.Add(Line(r.GetFieldValue<DateOnly>(0), r.GetString(1), r.GetInt64(2), r.GetInt32(3), r.IsDBNull(4) ? null : r.GetDateTime(4),
                r.GetString(5), r.GetString(6), r.GetString(7), r.GetString(8), r.IsDBNull(9) ? null : r.GetString(9), r.GetString(10)));
        }

        return lines;
    }

    private static string Line(DateOnly day, string source, long generation, int seq, DateTime? at, string actor, string counterparty, string action,
        string msgType, string? messageId, string outcome) =>
        string.Join('|', day.ToString("yyyyMMdd", System.Globalization.CultureInfo.InvariantCulture), source, generation, seq,
            at?.ToString("yyyy-MM-dd HH:mm:ss.ffffff", System.Globalization.CultureInfo.InvariantCulture) ?? "-", actor, counterparty, action, msgType, messageId ?? "-", outcome);
}
