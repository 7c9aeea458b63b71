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
