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
/// A session that keeps nothing it sends (PersistMessages=N, the trade driver's initiators) sending a turn of eight
/// application messages: one transport write each (<see cref="FixSession.Send"/>) against one write for the eight
/// (<see cref="FixSession.SendDeferred"/> then <see cref="FixSession.FlushDeferred"/>). Per message; the transport
/// counts and discards, so a socket's system call a write (what the batch saves on loopback) is not in the figures.
/// </summary>
[MemoryDiagnoser]
public class SessionSendBenchmarks
{
    private const int Turn = 8;
    private static readonly byte[] Body = "571=T1-N\u0001487=0\u0001856=0\u0001150=F\u000155=[N/A]\u000148=GB00B03MLX29\u000122=4\u0001"u8.ToArray();
    private readonly FixEncoder _encoder = new();
    private readonly byte[] _buffer = new byte[1024];
    private readonly FixMessage _view = new(new FixMessageOptions { MaxMessageSize = 1024 });
    private FixSession _session = null!;
    private CountingTransport _transport = null!;

    [GlobalSetup]
    public void Setup()
    {
        var dictionary = StandardDictionaries.Load("FIX.4.4");
        var options = new FixSessionOptions(new SessionId("FIX.4.4", "EXEC", "CLIENT")) { Dictionary = dictionary, PersistMessages = false };
        var store = new MemoryMessageStore(1024, 1 << 20, DateTime.UtcNow);
        _session = new FixSession(options, store, new FixApplicationBase());
        _transport = new CountingTransport();
        _session.TryAttach(_transport);
        var logon = FixSampleEncoding.WriteCounterpartyAdmin(_encoder, _buffer, "A"u8, 1, false, EngineClock.Shared.UtcNowNanos);
        _view.Parse(logon.Buffer, logon.Offset, logon.Length, dictionary);
        _session.OnMessage(_view);
        if (!_session.IsLoggedOn)
        {
            throw new InvalidOperationException("the benchmark session did not log on");
        }
    }

    [Benchmark(Baseline = true, OperationsPerInvoke = Turn)]
    public long SendEach()
    {
        for (int i = 0; i < Turn; i++)
        {
            _session.Send("AE"u8, Body);
        }

        return _transport.Writes;
    }

    [Benchmark(OperationsPerInvoke = Turn)]
    public long SendDeferredThenFlush()
    {
        for (int i = 0; i < Turn; i++)
        {
            _session.SendDeferred("AE"u8, Body);
        }

        _session.FlushDeferred();
        return _transport.Writes;
    }

    /// <summary>Counts the writes and keeps nothing.</summary>
    private sealed class CountingTransport : ISessionTransport
    {
        public long Writes { get; private set; }

        public System.Net.EndPoint? RemoteEndPoint => null;

        public bool Send(ReadOnlySpan<byte> message)
        {
            Writes++;
            return true;
        }

        public void Disconnect(DisconnectReason reason)
        {
        }
    }
}
