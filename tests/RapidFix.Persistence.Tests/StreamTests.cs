using Npgsql;
using RapidFix.Persister;

namespace RapidFix.Persistence.Tests;

/// <summary>
/// Several COPY streams per server: each journal belongs to one stream, which commits that journal's position with
/// its rows, so exactly once holds per journal whatever the streams' number, now or at the next start.
/// </summary>
[Collection(nameof(PersisterProcesses))]
public sealed class StreamTests
{
    [Fact]
    public void The_input_journal_has_stream_0_to_itself_and_the_stores_are_spread_over_the_others_by_name()
    {
        var input = new JournalSource("matching-input", "matching-input.journal", IsInput: true);
        var stores = Enumerable.Range(1, 20).Select(i => new JournalSource($"FIX.4.4-MATCH-P{i}", $"FIX.4.4-MATCH-P{i}.journal", IsInput: false)).ToList();

        Assert.Equal(0, input.StreamOf(3));
        Assert.All(stores, s => Assert.InRange(s.StreamOf(3), 1, 2));
        Assert.Equal([1, 2], stores.Select(s => s.StreamOf(3)).Distinct().Order());
        Assert.All(stores, s => Assert.Equal(0, s.StreamOf(1))); // one stream: everything on it
        // The same in every process (not string.GetHashCode, which is randomised per process): a fixed value.
        Assert.Equal(stores.Select(s => s.StreamOf(3)), stores.Select(s => new JournalSource(s.Name, "elsewhere", false).StreamOf(3)));
        Assert.Equal(1 + (int)(Fnv("FIX.4.4-MATCH-P1") % 2), stores[0].StreamOf(3));
    }

    private static uint Fnv(string name)
    {
        uint hash = 2166136261;
        foreach (char c in name)
        {
            hash = (hash ^ c) * 16777619;
        }

        return hash;
    }

    [Fact]
    public void Fewer_than_one_stream_is_refused_at_startup()
    {
        using var dir = new TempDir();
        var e = Assert.Throws<ArgumentException>(() => new Persistence.Persister(new PersisterOptions
        {
            DataDirectory = dir.Path, Servers = ["Host=127.0.0.1;Database=rapidfix;Username=rapidfix_writer"], Streams = 0,
        }));
        Assert.Contains("streams per server must be at least 1", e.Message, StringComparison.Ordinal);
    }

    [PostgresFact]
    public void Three_streams_write_every_record_once_and_a_restart_on_one_stream_writes_nothing_again()
    {
        using var rig = Rig.Create(1);
        using var dir = new TempDir();
        int records = Bench.WriteJournals(dir.Path, 20);
        var log = new LogBuffer();
        using (var persister = new Persistence.Persister(new PersisterOptions { DataDirectory = dir.Path, Servers = rig.Writers, Streams = 3, BatchRecords = 37, Log = log }))
        {
            persister.Start();
            persister.Drain();
            Assert.Equal(0, persister.Counters[0].Quarantined);
            Assert.Equal(records, persister.Counters[0].Records - 1); // and the input journal's business-date record
        }

        using var c = new NpgsqlConnection(rig.Admins[0]);
        c.Open();
        Assert.Equal(records, TestJournals.Count(c, "SELECT count(*) FROM rapidfix.fix_message"));
        Assert.Equal(records, TestJournals.Count(c, "SELECT count(DISTINCT (source, generation, seq)) FROM rapidfix.audit_trail"));
        Assert.Equal(5, TestJournals.Count(c, "SELECT count(*) FROM rapidfix.journal_position")); // the input journal and the 4 stores
        Assert.Equal(40, TestJournals.Count(c, "SELECT count(*) FROM rapidfix.cls")); // 20 trades, 2 CLS rows each

        // Another number of streams at the next start: every journal's position is read back, nothing is written again.
        using (var again = new Persistence.Persister(new PersisterOptions { DataDirectory = dir.Path, Servers = rig.Writers, Streams = 1, Log = log }))
        {
            again.Start();
            again.Drain();
            Assert.Equal(0, again.Counters[0].Records);
            Assert.Equal(0, again.Counters[0].Quarantined);
        }

        Assert.Equal(records, TestJournals.Count(c, "SELECT count(*) FROM rapidfix.fix_message"));
        Assert.Contains("server 0 stream 2", log.ToString(), StringComparison.Ordinal);
    }
}
