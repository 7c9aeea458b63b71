using System.Collections.Concurrent;
using System.Net;
using System.Net.Sockets;
using RapidFix.Engine.Codec;
using RapidFix.Engine.Configuration;
using RapidFix.Engine.Diagnostics;
using RapidFix.Engine.Hosting;
using RapidFix.Engine.Sessions;

namespace RapidFix.TradeDriver;

/// <summary>
/// The participants' side: one RapidFix initiator session per participant to the matching service, and what came
/// back on each (<see cref="AnswerCollector"/>). Settings are written here (QuickFIX style), with journal stores in
/// <paramref name="storeDirectory"/> when given so that a driver can reconnect to a service that remembers its
/// sequence numbers.
/// </summary>
internal sealed class Participants : IDisposable
{
    private readonly FixEngine _engine;
    private readonly Dictionary<string, FixSession> _byId = [];

    public Participants(IReadOnlyList<string> participantIds, string serviceCompId, string host, int port, AnswerCollector collector,
        string? storeDirectory = null, EngineLog? log = null, int expectedMessages = 1_000_000)
    {
        long storeMessages = Math.Max(100_000, 2L * expectedMessages);
        long storeBytes = Math.Min(Array.MaxLength, storeMessages * 600);
        var text = new System.Text.StringBuilder();
        text.AppendLine("[DEFAULT]");
        text.AppendLine("ConnectionType=initiator");
        text.AppendLine($"SocketConnectHost={host}");
        text.AppendLine($"SocketConnectPort={port}");
        text.AppendLine("ReconnectInterval=1");
        text.AppendLine("HeartBtInt=30");
        text.AppendLine("StartTime=00:00:00");
        text.AppendLine("EndTime=00:00:00");
        // The answers of a large set wait in the socket while the driver sends: room for a burst.
        text.AppendLine("OutboundQueueDepth=65536");
        text.AppendLine(storeDirectory is null ? "StoreType=express" : $"FileStorePath={storeDirectory}");
        text.AppendLine($"StoreMaxMessages={storeMessages}");
        text.AppendLine($"StoreMaxBytes={storeBytes}");

        foreach (var id in participantIds)
        {
            text.AppendLine("[SESSION]");
            text.AppendLine("BeginString=FIX.4.4");
            text.AppendLine($"SenderCompID={id}");
            text.AppendLine($"TargetCompID={serviceCompId}");
        }

        var settings = SettingsFile.Parse(text.ToString(), "trade-driver initiators");
        _engine = FixEngine.Create(settings, _ => collector, log);
        foreach (var session in _engine.Sessions)
        {
            _byId[session.Id.SenderCompId] = session;
        }

        _engine.Start();
    }

    public IReadOnlyList<FixSession> Sessions => _engine.Sessions;

    public FixSession this[string participant] => _byId[participant];

    /// <summary>Waits until every session is logged on; false on timeout.</summary>
    public bool WaitForLogons(TimeSpan timeout)
    {
        var deadline = DateTime.UtcNow + timeout;
        while (DateTime.UtcNow < deadline)
        {
            if (_engine.Sessions.All(s => s.IsLoggedOn))
            {
                return true;
            }

            Thread.Sleep(10);
        }

        return false;
    }

    /// <summary>Writes what <see cref="FixSession.SendDeferred(ReadOnlySpan{byte}, ReadOnlySpan{byte})"/> stored on every session.</summary>
    public void FlushAll()
    {
        foreach (var session in _engine.Sessions)
        {
            session.StartFlushDeferred(); // the stores' flushes run together (journal stores with --host)
        }

        foreach (var session in _engine.Sessions)
        {
            session.FlushDeferred();
        }
    }

    public void Dispose() => _engine.Dispose();

    /// <summary>A free loopback port.</summary>
    public static int FreePort()
    {
        using var probe = new TcpListener(IPAddress.Loopback, 0);
        probe.Start();
        return ((IPEndPoint)probe.LocalEndpoint).Port;
    }
}

/// <summary>
/// Everything the service sent back, by participant: each application message is copied (the driver is not the
/// measured engine) and classified by <see cref="Answers"/>.
/// </summary>
internal sealed class AnswerCollector : FixApplicationBase
{
    private readonly ConcurrentQueue<(string Participant, Answer Answer)> _answers = new();
    private readonly ConcurrentQueue<string> _texts = new();
    private long _count;
    private long _acks;
    private long _cls;
    private long _refusals;

    /// <summary>Application messages received.</summary>
    public long Count => Interlocked.Read(ref _count);

    /// <summary>Acks received (one per message sent, when all went well).</summary>
    public long Acks => Interlocked.Read(ref _acks);

    /// <summary>CLS messages received.</summary>
    public long Cls => Interlocked.Read(ref _cls);

    /// <summary>
    /// Acks that refused a message before the matcher saw it: BusinessMessageRejects without BusinessRejectRefID (379),
    /// which the matcher's own rejections always carry (back-pressure 4, wrong partition 6, unsupported type 3).
    /// Counted in <see cref="Acks"/> too: each answers one message sent.
    /// </summary>
    public long Refusals => Interlocked.Read(ref _refusals);

    /// <summary>Keep every answer's text ('|' for SOH), for tests that compare messages.</summary>
    public bool KeepText { get; init; }

    /// <summary>Print every rejecting ack (verify --show-rejections).</summary>
    public bool ShowRejections { get; init; }

    /// <summary>The texts kept (<see cref="KeepText"/>), in arrival order.</summary>
    public IReadOnlyCollection<string> Texts => _texts;

    /// <summary>Keep each answer (verify) or only count them (throughput).</summary>
    public bool Keep { get; init; } = true;

    public override MessageDisposition FromApp(FixSession session, FixMessage message)
    {
        var answer = Answers.Read(message);
        if (KeepText || (ShowRejections && answer.Rejected))
        {
            string text = System.Text.Encoding.ASCII.GetString(message.Bytes).Replace('\u0001', '|');
            if (KeepText)
            {
                _texts.Enqueue(text);
            }
            else
            {
                Console.WriteLine(text);
            }
        }
        if (answer.Kind == AnswerKind.Ack)
        {
            Interlocked.Increment(ref _acks);
            if (answer.Rejected && message.MsgType.SequenceEqual("j"u8) && !message.Contains(379))
            {
                Interlocked.Increment(ref _refusals);
            }
        }
        else if (answer.Kind == AnswerKind.Cls)
        {
            Interlocked.Increment(ref _cls);
        }

        if (Keep)
        {
            _answers.Enqueue((session.Id.SenderCompId, answer));
        }

        Interlocked.Increment(ref _count);
        return MessageDisposition.Accept;
    }

    /// <summary>Everything received so far, in arrival order per participant.</summary>
    public List<(string Participant, Answer Answer)> Drain()
    {
        var list = new List<(string, Answer)>();
        while (_answers.TryDequeue(out var item))
        {
            list.Add(item);
        }

        return list;
    }
}
