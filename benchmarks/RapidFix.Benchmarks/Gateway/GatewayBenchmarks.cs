using System.Text;
using BenchmarkDotNet.Attributes;
using RapidFix.Engine.Codec;
using RapidFix.Engine.Dictionary;
using RapidFix.Gateway;
using RapidFix.Matching;

namespace RapidFix.Benchmarks.Gateway;

/// <summary>
/// The gateway's per-message work without sockets: a participant's NOE routed (partition read through the field
/// view, body found in place, copied into the forward ring, read back and released), and a service's
/// BusinessMessageReject with its RefSeqNum turned back into the participant's.
/// </summary>
[MemoryDiagnoser]
public class GatewayBenchmarks
{
    private readonly FixMessage _noe = new();
    private readonly FixMessage _reject = new();
    private readonly ForwardRing _ring = new(1 << 20);
    private readonly byte[] _body = new byte[1024];

    [GlobalSetup]
    public void Setup()
    {
        var dictionary = StandardDictionaries.Load("FIX44");
        Parse(_noe, "35=AE|34=2|49=EB1|52=20261123-10:00:00.000|56=MATCH|571=NOE-1001|487=0|856=0|570=N|55=[N/A]|48=SG1T75931496|22=4|32=10000|" +
                    "31=2.505|75=20261123|60=20261123-09:59:58.000|64=20261126|552=1|54=1|37=ORD-77|453=2|448=EB1|447=D|452=1|448=IM1|447=D|452=13|15=SGD|", dictionary);
        Parse(_reject, "35=j|34=9|49=MATCH|52=20261123-10:00:00.000|56=EB1|45=17|372=T|379=SET-1|380=0|58=EXC 1 NO TRADE|", dictionary);
    }

    /// <summary>Partition, body, into the ring and out (what the participant's thread and the forwarder do besides Send).</summary>
    [Benchmark]
    public int Route()
    {
        int partition = TradePartition.Of(_noe, 2);
        _ring.TryWrite(partition, 2, 2, _noe.MsgType, MessageBody.Of(_noe));
        _ring.TryPeek(out var record);
        _ring.Release(record.Size);
        return partition;
    }

    /// <summary>A service's BusinessMessageReject rewritten with the participant's MsgSeqNum.</summary>
    [Benchmark]
    public int RewriteRefSeqNum() => MessageBody.WithRefSeqNum(_reject, 4, _body);

    private static void Parse(FixMessage message, string fields, DataDictionary dictionary)
    {
        var body = Encoding.ASCII.GetBytes(fields.Replace('|', '\u0001'));
        var all = Encoding.ASCII.GetBytes($"8=FIX.4.4\u00019={body.Length}\u0001").Concat(body).ToArray();
        int sum = all.Sum(b => (int)b) % 256;
        message.ParseCopy([.. all, .. Encoding.ASCII.GetBytes($"10={sum:D3}\u0001")], dictionary);
    }
}
