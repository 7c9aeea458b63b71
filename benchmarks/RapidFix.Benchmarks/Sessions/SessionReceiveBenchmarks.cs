using BenchmarkDotNet.Attributes;
using RapidFix.Engine.Codec;
using RapidFix.Engine.Configuration;
using RapidFix.Engine.Dictionary;
using RapidFix.Engine.Sessions;
using RapidFix.Engine.Store;
using RapidFix.Engine.Time;
using RapidFix.Tests.Shared;

namespace RapidFix.Benchmarks.Sessions;

/// <summary>
/// A FIX.4.4 acceptor session's receive side without a socket: a counterparty's Heartbeat encoded, parsed and
/// processed in sequence (sequence-field checks included), and one gap recovered through a full queue ahead of it
/// (queue, ResendRequest, drop, resend, drain: nine messages). <see cref="EncodeAndParse"/> is the part of each
/// message that is the counterparty's and the transport's, to subtract.
/// </summary>
[MemoryDiagnoser]
public class SessionReceiveBenchmarks
{
    private readonly FixEncoder _encoder = new();
    private readonly byte[] _buffer = new byte[1024];
    private readonly FixMessage _view = new(new FixMessageOptions { MaxMessageSize = 1024 });
    private FixSession _session = null!;
    private DataDictionary _dictionary = null!;
    private int _next;

    [GlobalSetup]
    public void Setup()
    {
        _dictionary = StandardDictionaries.Load("FIX.4.4");
        var options = new FixSessionOptions(new SessionId("FIX.4.4", "EXEC", "CLIENT")) { Dictionary = _dictionary, InboundQueueCapacity = 2 };
        var store = new MemoryMessageStore(1024, 1 << 20, DateTime.UtcNow);
        _session = new FixSession(options, store, new FixApplicationBase());
        _session.TryAttach(new DiscardingTransport());
        _next = 1;
        Receive("A"u8, _next++, false);
        if (!_session.IsLoggedOn)
        {
            throw new InvalidOperationException("the benchmark session did not log on");
        }
    }

    [Benchmark(Baseline = true)]
    public int EncodeAndParse()
    {
        Encode("0"u8, _next, false);
        return _view.FieldCount;
    }

    [Benchmark]
    public int HeartbeatInSequence()
    {
        Receive("0"u8, _next++, false);
        return _session.NextTargetMsgSeqNum;
    }

    [Benchmark(OperationsPerInvoke = 9)]
    public int GapRecoveredThroughAFullQueue()
    {
        int n = _next;
        Receive("0"u8, n + 1, false);
        Receive("0"u8, n + 2, false);
        Receive("0"u8, n + 3, false); // the queue holds two: dropped, covered by the ResendRequest
        for (int seq = n; seq <= n + 3; seq++)
        {
            Receive("0"u8, seq, true);
        }

        Receive("0"u8, n + 4, false);
        Receive("0"u8, n + 5, false);
        _next = n + 6;
        return _session.NextTargetMsgSeqNum;
    }

    private void Receive(ReadOnlySpan<byte> msgType, int seq, bool possDup)
    {
        Encode(msgType, seq, possDup);
        _session.OnMessage(_view);
    }

    private void Encode(ReadOnlySpan<byte> msgType, int seq, bool possDup)
    {
        var message = FixSampleEncoding.WriteCounterpartyAdmin(_encoder, _buffer, msgType, seq, possDup, EngineClock.Shared.UtcNowNanos);
        _view.Parse(message.Buffer, message.Offset, message.Length, _dictionary);
    }

    /// <summary>Takes every message and keeps none.</summary>
    private sealed class DiscardingTransport : ISessionTransport
    {
        public System.Net.EndPoint? RemoteEndPoint => null;

        public bool Send(ReadOnlySpan<byte> message) => true;

        public void Disconnect(DisconnectReason reason)
        {
        }
    }
}
