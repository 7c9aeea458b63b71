using System.Text;
using Npgsql;
using RapidFix.Engine.Store;
using RapidFix.Persister;

namespace RapidFix.Persistence.Tests;

/// <summary>A row PostgreSQL refuses is quarantined with its reason; the rest of its batch goes in, exactly once.</summary>
[Collection(nameof(PersisterProcesses))]
public sealed class QuarantineTests
{
    [PostgresFact]
    public void A_refused_row_is_quarantined_with_its_reason_and_the_rest_of_the_batch_goes_in()
    {
        using var rig = Rig.Create(1);
        using var dir = new TempDir();
        int records = Bench.WriteJournals(dir.Path, trades: 20);

        // One more outbound store whose middle message names a participant with a NUL byte: PostgreSQL's text
        // refuses it (22021), the bytes are fine for the journal.
        using (var store = JournalMessageStore.Open(new JournalOptions
               {
                   FilePath = Path.Combine(dir.Path, "FIX.4.4-MATCH-IM9.journal"), FlushPolicy = FlushPolicy.OsOnly, MaxMessages = 100, MaxBytes = 1 << 16,
               }, DateTime.UtcNow))
        {
            Assert.Equal(StoreWriteStatus.Ok, store.Append(1, Encoding.ASCII.GetBytes("8=FIX.4.4\u00019=0\u000135=0\u000149=MATCH\u000156=IM9\u000134=1\u000110=000\u0001")));
            Assert.Equal(StoreWriteStatus.Ok, store.Append(2, Encoding.ASCII.GetBytes("8=FIX.4.4\u00019=0\u000135=0\u000149=MATCH\u000156=IM\09\u000134=2\u000110=000\u0001")));
            Assert.Equal(StoreWriteStatus.Ok, store.Append(3, Encoding.ASCII.GetBytes("8=FIX.4.4\u00019=0\u000135=0\u000149=MATCH\u000156=IM9\u000134=3\u000110=000\u0001")));
            Assert.True(store.Flush());
        }

        var log = new LogBuffer();
        using (var persister = new Persistence.Persister(new PersisterOptions { DataDirectory = dir.Path, Servers = rig.Writers, Log = log }))
        {
            persister.Start();
            persister.Drain();
            Assert.Equal(1, persister.Counters[0].Quarantined);
            Assert.Equal(0, persister.Counters[0].Failures);
        }

        var result = Checker.Check(rig.Admins, dir.Path, null, expectedQuarantined: 1);
        Assert.True(result.Ok, result + "\n" + log);
        Assert.Equal(records + 3 - 1, result.Inputs + result.Outputs);

        using var c = new NpgsqlConnection(rig.Admins[0]);
        c.Open();
        using var command = new NpgsqlCommand("SELECT source, seq, sql_state, reason, payload FROM rapidfix.quarantine", c);
        using var reader = command.ExecuteReader();
        Assert.True(reader.Read());
        Assert.Equal("FIX.4.4-MATCH-IM9", reader.GetString(0));
        Assert.Equal(2, reader.GetInt32(1));
        Assert.Equal("22021", reader.GetString(2));
        Assert.Contains("0x00", reader.GetString(3));
        Assert.Contains("56=IM\09", Encoding.ASCII.GetString((byte[])reader[4]));

        // Written once: a second persister finds nothing left to do.
        using var again = new Persistence.Persister(new PersisterOptions { DataDirectory = dir.Path, Servers = rig.Writers });
        again.Start();
        again.Drain();
        Assert.True(Checker.Check(rig.Admins, dir.Path, null, expectedQuarantined: 1).Ok);
    }
}
