using System.Text;
using RapidFix.Engine.Store;
using RapidFix.Persister;
using RapidFix.Tests.Shared;

namespace RapidFix.Persistence.Tests;

/// <summary>
/// The persister encodes its COPY rows straight from the journals' bytes (<see cref="RowEncoder"/>, with the inputs
/// indexed as bytes by <see cref="InputIndex"/>). The rules are <see cref="RowBuilder"/>'s, which is kept as the
/// reference: both read the same journals (the bench's trades, and a store of answers of every kind: rejections,
/// exception notices, answers to unknown or key-less inputs, a CLS to the broker, malformed values, non-ASCII text)
/// and must give the same COPY bytes for every table, the same records, payloads and days, for each server of a
/// federation of one and of two.
/// </summary>
public sealed class RowEncoderTests
{
    [Fact]
    public void The_encoder_writes_the_same_copy_rows_as_the_row_builder()
    {
        using var dir = new TempDir();
        Bench.WriteJournals(dir.Path, trades: 40);
        WriteOddAnswers(Path.Combine(dir.Path, "FIX.4.4-MATCH-ODD.journal"));

        foreach (int servers in new[] { 1, 2 })
        {
            for (int server = 0; server < servers; server++)
            {
                var expected = ByRowBuilder(dir.Path, servers, server);
                var actual = ByEncoder(dir.Path, servers, server);
                Assert.True(expected.Count > 0);
                Assert.Equal(expected.Count, actual.Count);
                for (int t = 0; t < EncodedBatch.Tables; t++)
                {
                    var e = expected.Rows[t].Written;
                    var a = actual.Rows[t].Written;
                    int diff = e.CommonPrefixLength(a);
                    Assert.True(e.SequenceEqual(a), $"servers {servers}, server {server}, table {t}: {e.Length} and {a.Length} bytes, first difference at {diff}");
                    Assert.Equal(expected.Rows[t].Rows, actual.Rows[t].Rows);
                }

                for (int i = 0; i < expected.Count; i++)
                {
                    Assert.Equal((expected.Source(i), expected.Generation(i), expected.Seq(i)), (actual.Source(i), actual.Generation(i), actual.Seq(i)));
                    Assert.True(expected.Payload(i).SequenceEqual(actual.Payload(i)));
                    for (int t = 0; t < EncodedBatch.Tables; t++)
                    {
                        Assert.True(expected.Range(t, i, 1, out int er).SequenceEqual(actual.Range(t, i, 1, out int ar)));
                        Assert.Equal(er, ar);
                    }
                }

                Assert.Equal(expected.Days.Order(), actual.Days.Order());
            }
        }
    }

    [Fact]
    public void Encoding_a_trade_allocates_nothing_after_warm_up()
    {
        using var dir = new TempDir();
        Bench.WriteJournals(dir.Path, trades: 4);
        using var index = new InputIndex(Path.Combine(dir.Path, JournalSource.InputJournalFile));
        index.CatchUp();
        var encoder = new RowEncoder(index, 2);
        var records = new List<(JournalSource Source, JournalRecord Record)>();
        foreach (var source in JournalSource.Discover(dir.Path))
        {
            using var tail = new JournalTail(source.Path);
            var read = new List<JournalRecord>();
            tail.Poll(read, 1000);
            records.AddRange(read.Select(r => (source, r)));
        }

        var batch = new EncodedBatch(records.Count);
        var names = records.Select(r => Encoding.UTF8.GetBytes(r.Source.Name)).ToArray();
        var state = (Encoder: encoder, Batch: batch, Records: records, Names: names);
        long bytes = Allocations.Measure(state, static s =>
        {
            s.Batch.Clear();
            for (int i = 0; i < s.Records.Count; i++)
            {
                var (source, record) = s.Records[i];
                for (int server = 0; server < 2; server++)
                {
                    s.Encoder.Encode(s.Batch, source, s.Names[i], record.Generation, record.Seq, record.Payload.Span, server);
                }
            }
        }, iterations: 200, warmup: 50);
        Assert.Equal(0, bytes);
        Assert.Equal(4 * 16, batch.Rows[0].Rows); // every message row of the 4 trades, each for its one server
    }

    private static EncodedBatch ByRowBuilder(string dir, int servers, int server)
    {
        using var index = new TradeIndex(Path.Combine(dir, JournalSource.InputJournalFile));
        index.CatchUp();
        var builder = new RowBuilder(index, servers);
        var batch = new EncodedBatch(16);
        foreach (var source in Sources(dir))
        {
            using var tail = new JournalTail(source.Path);
            var records = new List<JournalRecord>();
            while (tail.Poll(records, 100_000) > 0)
            {
            }

            foreach (var record in records)
            {
                var rows = builder.Build(source, record);
                if (rows.Server == server)
                {
                    BatchWriter.Encode(batch, rows);
                }
            }
        }

        return batch;
    }

    private static EncodedBatch ByEncoder(string dir, int servers, int server)
    {
        using var index = new InputIndex(Path.Combine(dir, JournalSource.InputJournalFile));
        index.CatchUp();
        var encoder = new RowEncoder(index, servers);
        var batch = new EncodedBatch(16);
        foreach (var source in Sources(dir))
        {
            using var tail = new JournalTail(source.Path);
            encoder.Begin(batch, source, server);
            while (tail.Poll(encoder, 7) > 0)
            {
            }
        }

        return batch;
    }

    private static IEnumerable<JournalSource> Sources(string dir) => JournalSource.Discover(dir).OrderByDescending(s => s.IsInput);

    /// <summary>A store of answers of every kind the rules tell apart (the bench's trade 1: manager IM2, broker EB1).</summary>
    internal static void WriteOddAnswers(string path)
    {
        string[] bodies =
        [
            "35=AR|34=1|49=MATCH|56=EB1|52=20261123-10:00:00.001|571=NOE-1|939=1|751=7|58=bad ISIN",         // rejected NOE
            "35=P|34=2|49=MATCH|56=IM2|52=20261123-10:00:00.001|70=ALC-1-1|87=1|88=3|58=no",                  // rejected ALC
            "35=AU|34=3|49=MATCH|56=EB1|52=20261123-10:00:00.001|664=NPR-1-1|940=2|774=5",                   // rejected NPR, no text
            "35=AU|34=4|49=MATCH|56=EB1|52=20261123-10:00:00.001|664=NPR-1-2|940=1",                          // accepted
            "35=j|34=5|49=MATCH|56=EB1|52=20261123-10:00:00.001|372=AK|379=NPR-1-1|380=2|58=Zürich € notice", // exception notice
            "35=j|34=6|49=MATCH|56=IM2|52=20261123-10:00:00.001|45=4|372=T|379=SET-1-1|380=1",               // rejected SET: no trade key
            "35=AR|34=7|49=MATCH|56=EB1|52=20261123-10:00:00.001|571=NOE-999|939=0",                         // answers no known input
            "35=AR|34=8|49=MATCH|52=bad|571=NOE-2|939=1",                                                     // no 56, bad time, no code
            "35=AR|34=9|49=MATCH|56=|52=20261123-10:00:00|571=NOE-3|939=1|751=",                              // empty 56 and code
            "35=AK|34=10|49=MATCH|56=EB1|52=20261123-10:00:00.002|664=CLS-1-1|773=1|75=20261123|453=2|448=EB1|452=1|448=IM2|452=13|48=SGX|54=1", // CLS to the broker
            "35=AK|34=11|49=MATCH|56=IM2|52=20261123-10:00:00.002|664=CLS-1-9|773=1|75=20261123|453=2|448=EB1|452=1|448=IM2|452=13|48=SGX|54=12|80=abc|64=2026|15=",   // CLS, odd values
            "35=AK|34=12|49=MATCH|56=IM2|52=20261123-10:00:00.002|664=CLS-1-8|773=1|75=2026112X|453=2|448=EB1|452=1|448=IM2|452=13|48=SGX|54=1|80=-0.50|118=1e5", // bad date
            "35=0|34=13|34=99|49=MATCH|56=IM2|52=20261123-10:00:00.123456789",                                // heartbeat, 34 twice, nine decimals
            "35=AK|34=14|49=MATCH|56=IM2|664=CLS-1-7|773=2|448=IM2|452=13|448=EB1|452=1|448=X|452=1",        // not cleared; a second broker ignored
            "garbage|=1|x=2|99999999999=3|35",                                                                // nothing parses
            "35=j|34=16|49=MATCH|56=EB1|52=20261123-10:00:00.001|45=3|372=AK|379=NPR-1-2|380=\u00e9|58=Latin-1 \u00e9t\u00e9 \u00ff", // not UTF-8
        ];
        using var store = TestJournals.OpenStore(path);
        for (int i = 0; i < bodies.Length; i++)
        {
            // The last body is Latin-1 (its é and ÿ single bytes, not UTF-8); the others UTF-8.
            var encoding = i == bodies.Length - 1 ? Encoding.Latin1 : Encoding.UTF8;
            var status = store.Append(i + 1, encoding.GetBytes("8=FIX.4.4|9=0|" + bodies[i] + "|10=000|").Select(b => b == '|' ? (byte)1 : b).ToArray());
            Assert.Equal(StoreWriteStatus.Ok, status);
        }
    }
}
