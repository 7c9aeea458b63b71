using BenchmarkDotNet.Attributes;
using RapidFix.Engine.Configuration;
using RapidFix.Engine.Diagnostics;

namespace RapidFix.Benchmarks.Diagnostics;

/// <summary>
/// What the message log (FileLogPath) costs the session's thread: copying one message into the session's ring while
/// the writer thread drains it into the file. The writer's own cost (formatting, the file write) is off this thread.
/// </summary>
[MemoryDiagnoser]
public class MessageLogBenchmarks
{
    private readonly byte[] _message = System.Text.Encoding.ASCII.GetBytes(
        "8=FIX.4.4\u00019=178\u000135=8\u000134=1234\u000149=SELL\u000152=20261124-01:02:03.456\u000156=BUY\u0001" +
        "6=0\u000111=1234\u000114=0\u000117=E1234\u000120=0\u000131=0\u000132=0\u000137=O1234\u000138=100\u000139=0\u0001" +
        "54=1\u000155=MSFT\u0001150=0\u0001151=100\u000110=123\u0001");
    private string _directory = "";
    private MessageFileLog _writer = null!;
    private SessionMessageLog _log = null!;

    [GlobalSetup]
    public void Setup()
    {
        _directory = Directory.CreateTempSubdirectory("rapidfix-bench-msglog-").FullName;
        _writer = new MessageFileLog(_directory);
        _log = _writer.Open(new SessionId("FIX.4.4", "SELL", "BUY"), 64 << 20, 4096);
    }

    [GlobalCleanup]
    public void Cleanup()
    {
        _writer.Dispose();
        Directory.Delete(_directory, recursive: true);
    }

    /// <summary>One message copied into the ring (dropped and counted when the writer falls behind).</summary>
    [Benchmark]
    public bool Outgoing() => _log.Outgoing(_message);
}
