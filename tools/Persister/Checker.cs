using Npgsql;
using RapidFix.Persistence;

namespace RapidFix.Persister;

/// <summary>What the databases hold, summed over the servers, and how it compares with the journals and the generator's expectations.</summary>
internal sealed record CheckResult(long Inputs, long Outputs, long Cls, long Rejections, long Acks, long Quarantined, long Duplicates, long Misplaced, List<string> Mismatches)
{
    public bool Ok => Mismatches.Count == 0;

    public override string ToString() =>
        $"inputs {Inputs}, outputs {Outputs}, CLS {Cls}, rejections {Rejections}, acks {Acks}, quarantined {Quarantined}, duplicates {Duplicates}, " +
        $"misplaced {Misplaced}, mismatches {Mismatches.Count}" + (Ok ? "" : ": " + string.Join("; ", Mismatches));
}

/// <summary>
/// Checks a federation after a run: every journal record exactly once across the servers (none missing, none twice,
/// each on the server its trade's partition names), and the counts the generator expects (CLS, rejecting acks, acks).
/// </summary>
internal static class Checker
{
    public static CheckResult Check(IReadOnlyList<string> servers, string dataDirectory, IReadOnlyList<Expectation>? expected, long expectedInputs = -1, long expectedQuarantined = 0)
    {
        // What the journals hold, read independently of the persister's own pass.
        long journalInputs = 0, journalOutputs = 0;
        foreach (var source in JournalSource.Discover(dataDirectory))
        {
            using var tail = new JournalTail(source.Path);
            var records = new List<JournalRecord>();
            while (tail.Poll(records, 100_000) > 0)
            {
            }

            if (source.IsInput)
            {
                journalInputs += records.Count(r => r.Seq > 1);
            }
            else
            {
                journalOutputs += records.Count;
            }
        }

        long inputs = 0, outputs = 0, cls = 0, rejections = 0, acks = 0, quarantined = 0, duplicates = 0, misplaced = 0, clsTrades = 0;
        for (int server = 0; server < servers.Count; server++)
        {
            using var c = new NpgsqlConnection(servers[server]);
            c.Open();
            inputs += Count(c, "SELECT count(*) FROM rapidfix.fix_message WHERE direction = 'I'");
            outputs += Count(c, "SELECT count(*) FROM rapidfix.fix_message WHERE direction = 'O'");
            cls += Count(c, "SELECT count(*) FROM rapidfix.cls");
            clsTrades += Count(c, "SELECT count(DISTINCT trade_key) FROM rapidfix.cls");
            rejections += Count(c, "SELECT count(*) FROM rapidfix.match_exception WHERE kind = 'rejected'");
            acks += Count(c, "SELECT count(*) FROM rapidfix.audit_trail WHERE action = 'answered' AND msg_type <> 'AK' AND outcome <> 'exception notice'");
            quarantined += Count(c, "SELECT count(*) FROM rapidfix.quarantine");
            duplicates += Count(c, "SELECT count(*) - count(DISTINCT (source, generation, seq)) FROM rapidfix.fix_message");
            misplaced += Count(c, $"SELECT count(*) FROM rapidfix.fix_message WHERE trade_partition <> {server} AND NOT (trade_partition = -1 AND {server} = 0)");
        }

        var mismatches = new List<string>();
        if (inputs + outputs + quarantined != journalInputs + journalOutputs)
        {
            mismatches.Add($"the journals hold {journalInputs} inputs and {journalOutputs} outputs, the databases {inputs} and {outputs} (+{quarantined} quarantined)");
        }

        if (expectedInputs >= 0 && inputs + quarantined != expectedInputs)
        {
            mismatches.Add($"{inputs} inputs stored, the set has {expectedInputs} messages");
        }

        if (duplicates != 0)
        {
            mismatches.Add($"{duplicates} journal records stored twice");
        }

        if (misplaced != 0)
        {
            mismatches.Add($"{misplaced} rows on a server that does not own their partition");
        }

        if (quarantined != expectedQuarantined)
        {
            mismatches.Add($"{quarantined} records quarantined, {expectedQuarantined} expected");
        }

        if (expected is not null)
        {
            // expected.csv counts CLS messages (to the manager and to the broker); the database keeps one CLS row each.
            long expectedCls = expected.Sum(e => (long)e.Cls) / 2, expectedRejections = expected.Sum(e => (long)e.Exceptions);
            long expectedAcks = expected.Sum(e => (long)e.Acks), expectedTrades = expected.Count(e => e.Cls > 0);
            if (cls != expectedCls || clsTrades != expectedTrades)
            {
                mismatches.Add($"CLS rows {cls} for {clsTrades} trades, expected {expectedCls} for {expectedTrades}");
            }

            if (rejections != expectedRejections)
            {
                mismatches.Add($"rejecting acks {rejections}, expected {expectedRejections}");
            }

            if (acks != expectedAcks)
            {
                mismatches.Add($"acks {acks}, expected {expectedAcks}");
            }
        }

        return new CheckResult(inputs, outputs, cls, rejections, acks, quarantined, duplicates, misplaced, mismatches);
    }

    private static long Count(NpgsqlConnection c, string sql)
    {
        using var command = new NpgsqlCommand(sql, c);
        return Convert.ToInt64(command.ExecuteScalar(), System.Globalization.CultureInfo.InvariantCulture);
    }
}
