using System.Text;
using BenchmarkDotNet.Attributes;
using RapidFix.Persistence;

namespace RapidFix.Benchmarks.Persistence;

/// <summary>
/// The persister's per-record CPU outside PostgreSQL (issue 11): parsing a journalled FIX message into the columns it
/// keeps (<see cref="FixFields"/>), and encoding rows in binary COPY format (<see cref="BinaryCopyWriter"/>) into a
/// stream that only counts. Each invocation handles <see cref="Batch"/> messages or rows, so results are per item.
/// The persister runs in its own process with Npgsql (which allocates); these show what the persister's own code costs a row.
/// </summary>
[MemoryDiagnoser]
public class PersisterBenchmarks
{
    private const int Batch = 1000;

    // The CLS to the manager, as the bench journals hold it (tools/Persister/Bench.cs).
    private readonly byte[] _cls = Encoding.ASCII.GetBytes(
        "8=FIX.4.4\u00019=0\u000135=AK\u000149=MATCH\u000156=IM1\u000152=20261123-10:00:00.002\u0001664=CLS-17-1\u0001666=0\u0001773=1\u0001665=4\u000175=20261123" +
        "\u000164=20261126\u0001453=2\u0001448=EB1\u0001447=D\u0001452=1\u0001448=IM1\u0001447=D\u0001452=13\u000148=SG0000000017\u000180=5000\u000154=1\u000115=SGD" +
        "\u000179=ACC-1\u0001118=12525.00\u000170=ALC-17-1\u000110=000\u0001");

    private readonly BinaryCopyWriter _writer = new();
    private readonly NullStream _sink = new();
    private readonly DateTime _sent = new(2026, 11, 23, 10, 0, 0, 2);

    [Benchmark(OperationsPerInvoke = Batch)]
    public int ParseClsMessage()
    {
        int n = 0;
        for (int i = 0; i < Batch; i++)
        {
            n += FixFields.Parse(_cls).MsgSeqNum;
        }

        return n;
    }

    /// <summary>A <c>fix_message</c> row of the CLS (14 fields, the 290-byte body).</summary>
    [Benchmark(OperationsPerInvoke = Batch)]
    public long EncodeMessageRow()
    {
        var w = _writer;
        w.Begin(_sink);
        for (int i = 0; i < Batch; i++)
        {
            w.StartRow(14);
            w.Date(new DateOnly(2026, 11, 23));
            w.Text("FIX.4.4-MATCH-IM1");
            w.Int64(1);
            w.Int32(i);
            w.Char('O');
            w.Text("IM1");
            w.Text("AK");
            w.Int32(i);
            w.Timestamp(_sent);
            w.Int32(0);
            w.Text("IM1|EB1|1|SG0000000017|20261123");
            w.Text("CLS-17-1");
            w.Null();
            w.Bytes(_cls);
        }

        w.End();
        return _sink.Written;
    }

    /// <summary>A <c>cls</c> row (15 fields, two numerics).</summary>
    [Benchmark(OperationsPerInvoke = Batch)]
    public long EncodeClsRow()
    {
        var w = _writer;
        w.Begin(_sink);
        for (int i = 0; i < Batch; i++)
        {
            w.StartRow(15);
            w.Date(new DateOnly(2026, 11, 23));
            w.Text("CLS-17-1");
            w.Text("IM1");
            w.Text("EB1");
            w.Text("ACC-1");
            w.Text("SG0000000017");
            w.Char('1');
            w.Numeric(5000m);
            w.Numeric(12525.00m);
            w.Text("SGD");
            w.Date(new DateOnly(2026, 11, 26));
            w.Text("ALC-17-1");
            w.Timestamp(_sent);
            w.Int32(0);
            w.Text("IM1|EB1|1|SG0000000017|20261123");
        }

        w.End();
        return _sink.Written;
    }

    // One cleared trade's 16 journal records as the bench journals hold them (tools/Persister/Bench.cs): the 7 inputs
    // (sender record layout) and the 9 answers, with the journal each comes from.
    private static readonly (JournalSource Source, byte[] Payload)[] Trade = MakeTrade();

    private readonly EncodedBatch _batch = new(64);
    private RowEncoder _encoder = null!;
    private RowBuilder _builder = null!;
    private TradeIndex _tradeIndex = null!;
    private byte[][] _names = null!;

    [GlobalSetup]
    public void Setup()
    {
        // The new encoder's index of inputs, filled with the trade's inputs; the reference builder's index is filled
        // from no journal, so its answers go unresolved (it then does less than in the persister, never more).
        var index = new InputIndex(null);
        for (int i = 0; i < Trade.Length; i++)
        {
            if (Trade[i].Source.IsInput)
            {
                index.AddInput(Trade[i].Payload, i + 2);
            }
        }

        _encoder = new RowEncoder(index, 1);
        _tradeIndex = new TradeIndex(null);
        _builder = new RowBuilder(_tradeIndex, 1);
        _names = Trade.Select(t => Encoding.UTF8.GetBytes(t.Source.Name)).ToArray();
    }

    /// <summary>
    /// A trade's 16 records (34 rows) encoded straight from their bytes into a batch's COPY arenas
    /// (<see cref="RowEncoder"/>), as the persister does now; per record.
    /// </summary>
    [Benchmark(OperationsPerInvoke = 16)]
    public int EncodeTradeFromBytes()
    {
        _batch.Clear();
        for (int i = 0; i < Trade.Length; i++)
        {
            var (source, payload) = Trade[i];
            _encoder.Encode(_batch, source, _names[i], 1, i + 2, payload, 0);
            _batch.EndRecord(source.Name, 1, i + 2, payload);
        }

        return _batch.Rows[0].Length;
    }

    /// <summary>The same 16 records through the row objects (<see cref="RowBuilder"/>, <see cref="FixFields"/>), then encoded: the persister before; per record.</summary>
    [Benchmark(OperationsPerInvoke = 16, Baseline = true)]
    public int EncodeTradeThroughRowObjects()
    {
        _batch.Clear();
        for (int i = 0; i < Trade.Length; i++)
        {
            var (source, payload) = Trade[i];
            var rows = _builder.Build(source, new JournalRecord(1, i + 2, payload));
            BatchWriter.Encode(_batch, rows);
        }

        return _batch.Rows[0].Length;
    }

    private static (JournalSource, byte[])[] MakeTrade()
    {
        const int t = 17;
        var input = new JournalSource("matching-input", "/nonexistent/matching-input.journal", IsInput: true);
        var ims = new JournalSource("FIX.4.4-MATCH-IM1", "/nonexistent/im.journal", IsInput: false);
        var ebs = new JournalSource("FIX.4.4-MATCH-EB1", "/nonexistent/eb.journal", IsInput: false);
        string im = "IM1", eb = "EB1", date = "20261123", isin = $"SG{t:D10}";
        string parties = $"453=2\u0001448={eb}\u0001447=D\u0001452=1\u0001448={im}\u0001447=D\u0001452=13";
        string Head(string type, string from) => $"8=FIX.4.4\u00019=0\u000135={type}\u000134={t}\u000149={from}\u000152=20261123-10:00:00.000\u000156=MATCH";
        var records = new List<(JournalSource, byte[])>();
        void In(string from, string message)
        {
            var payload = new List<byte> { (byte)from.Length };
            payload.AddRange(Encoding.ASCII.GetBytes(from));
            payload.AddRange(new byte[8]);
            payload.AddRange(Encoding.ASCII.GetBytes(message + "\u000110=000\u0001"));
            records.Add((input, payload.ToArray()));
        }

        void Out(JournalSource to, string body) => records.Add((to, Encoding.ASCII.GetBytes($"8=FIX.4.4\u00019=0\u000135={body}\u000110=000\u0001")));

        In(eb, $"{Head("AE", eb)}\u0001571=NOE-{t}\u0001487=0\u000148={isin}\u000175={date}\u0001552=1\u000154=1\u0001{parties}");
        for (int a = 1; a <= 2; a++)
        {
            In(im, $"{Head("J", im)}\u000170=ALC-{t}-{a}\u000171=0\u000154=1\u000148={isin}\u000175={date}\u0001{parties}\u000179=ACC-{a}\u000180=5000");
            In(eb, $"{Head("AK", eb)}\u0001664=NPR-{t}-{a}\u0001773=2\u000175={date}\u0001{parties}\u000148={isin}\u000180=5000\u000154=1\u000179=ACC-{a}\u0001118=12525.00");
            In(im, $"{Head("T", im)}\u0001777=SET-{t}-{a}\u0001160=1\u0001778=1\u0001{parties}\u000154=1");
        }

        Out(ebs, $"AR\u000134={t}\u000149=MATCH\u000156={eb}\u000152=20261123-10:00:00.001\u0001571=NOE-{t}\u0001487=0\u0001150=F\u0001939=0");
        for (int a = 1; a <= 2; a++)
        {
            Out(ims, $"P\u000149=MATCH\u000156={im}\u000152=20261123-10:00:00.001\u000170=ALC-{t}-{a}\u000187=0");
            Out(ebs, $"AU\u000149=MATCH\u000156={eb}\u000152=20261123-10:00:00.001\u0001664=NPR-{t}-{a}\u000175={date}\u0001940=1");
            string cls = $"664=CLS-{t}-{a}\u0001666=0\u0001773=1\u0001665=4\u000175={date}\u000164=20261126\u0001{parties}\u000148={isin}\u000180=5000\u000154=1\u000115=SGD\u000179=ACC-{a}\u0001118=12525.00\u000170=ALC-{t}-{a}";
            Out(ims, $"AK\u000149=MATCH\u000156={im}\u000152=20261123-10:00:00.002\u0001{cls}");
            Out(ebs, $"AK\u000149=MATCH\u000156={eb}\u000152=20261123-10:00:00.002\u0001{cls}");
        }

        return records.ToArray();
    }

    private sealed class NullStream : Stream
    {
        public long Written;

        public override bool CanRead => false;
        public override bool CanSeek => false;
        public override bool CanWrite => true;
        public override long Length => Written;
        public override long Position { get => Written; set => throw new NotSupportedException(); }
        public override void Flush() { }
        public override int Read(byte[] buffer, int offset, int count) => throw new NotSupportedException();
        public override long Seek(long offset, SeekOrigin origin) => throw new NotSupportedException();
        public override void SetLength(long value) => throw new NotSupportedException();
        public override void Write(byte[] buffer, int offset, int count) => Written += count;
    }
}
