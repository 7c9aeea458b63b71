using System.Text;
using RapidFix.Engine.Store;
using RapidFix.Matching;
using RapidFix.Persister;

namespace RapidFix.Persistence.Tests;

/// <summary>The federation: each trade on the server its partition names, and the query command's reports merged across servers.</summary>
[Collection(nameof(PersisterProcesses))]
public sealed class QueryTests
{
    private const int Trades = 12;

    [PostgresFact]
    public void Each_trade_lives_on_its_partitions_server_and_reports_fan_out_across_both()
    {
        using var rig = Rig.Create(2);
        using var dir = new TempDir();
        Bench.WriteJournals(dir.Path, Trades);
        // Two exceptions: a rejecting ack of trade 1's NOE (trade 1 clears later: not open), and a notice about an
        // ID no input carries (no trade key, no server of its own: the home server; open).
        using (var store = JournalMessageStore.Open(new JournalOptions
               {
                   FilePath = Path.Combine(dir.Path, "FIX.4.4-MATCH-X.journal"), FlushPolicy = FlushPolicy.OsOnly, MaxMessages = 100, MaxBytes = 1 << 16,
               }, DateTime.UtcNow))
        {
            Assert.Equal(StoreWriteStatus.Ok, store.Append(1, Encoding.ASCII.GetBytes(
                "8=FIX.4.4\u00019=0\u000135=AR\u000134=1\u000149=MATCH\u000152=20261123-09:00:00.000\u000156=EB1\u0001571=NOE-1\u0001939=1\u0001751=4\u000158=late\u000110=000\u0001")));
            Assert.Equal(StoreWriteStatus.Ok, store.Append(2, Encoding.ASCII.GetBytes(
                "8=FIX.4.4\u00019=0\u000135=j\u000134=2\u000149=MATCH\u000152=20261123-09:00:01.000\u000156=IM1\u0001372=J\u0001379=ALC-404\u0001380=0\u000158=mismatch\u000110=000\u0001")));
            Assert.True(store.Flush());
        }

        using (var persister = new Persistence.Persister(new PersisterOptions { DataDirectory = dir.Path, Servers = rig.Writers }))
        {
            persister.Start();
            persister.Drain();
            Assert.True(persister.Counters.All(c => c.Records > 0), "both servers got trades");
        }

        Assert.True(Checker.Check(rig.Admins, dir.Path, null).Ok, Checker.Check(rig.Admins, dir.Path, null).ToString());

        var perDay = Queries.ClsPerDay(rig.Admins, byParticipant: false);
        Assert.Equal(Trades * 2, perDay[(new DateOnly(2026, 11, 23), "")]);
        var perManager = Queries.ClsPerDay(rig.Admins, byParticipant: true);
        Assert.Equal(Trades, perManager[(new DateOnly(2026, 11, 23), "IM1")]); // trades alternate IM2, IM1
        Assert.Equal(Trades * 2, perManager.Values.Sum());

        // Trade 5 (IM2, EB1, as Bench writes it): its NOE, ALCs and NPRs, five acks, four CLS copies, all on its
        // partition's server. Its SETs carry no ISIN and no trade date, hence no trade key: not in the history.
        int owner = TradePartition.Of("IM2"u8, "EB1"u8, 2);
        foreach (var id in new[] { "NOE-5", "ALC-5-2", "CLS-5-1", "IM2|EB1|1|SG0000000005|20261123" })
        {
            var history = Queries.TradeHistory(rig.Admins, id);
            Assert.Equal(14, history.Count);
            Assert.All(history, h => Assert.Equal(owner, h.Server));
            Assert.Equal(5, history.Count(h => h.Direction == 'I'));
        }

        var open = Queries.OpenExceptions(rig.Admins);
        var only = Assert.Single(open);
        Assert.Equal(("IM1", "notice", "ALC-404", 0), (only.Participant, only.Kind, only.RefId, only.Server));
    }
}
