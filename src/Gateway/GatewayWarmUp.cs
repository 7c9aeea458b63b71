using System.Diagnostics;
using System.Globalization;
using System.Text;
using RapidFix.Engine.Codec;
using RapidFix.Engine.Configuration;
using RapidFix.Engine.Fields;
using RapidFix.Engine.Hosting;
using RapidFix.Engine.Sessions;
using RapidFix.Matching;

namespace RapidFix.Gateway;

/// <summary>
/// The gateway's warm-up over its real paths (startup), as the matching service's session warm-up does for the
/// service: a scratch gateway (the same participants, partitions, ownership, stores and batching; its stores in a
/// scratch folder deleted afterwards; a small forward ring and hold so that refusals happen), one scratch stand-in
/// service per real service (an in-process acceptor on a port of its own, answering as a service does: an ack per
/// trade message, BusinessMessageReject with the gateway's RefSeqNum for some, one whose RefSeqNum the gateway cannot
/// translate, an unsolicited Confirmation), and one in-process initiator per participant, all over loopback, every
/// listening port bound as port 0 and read back. Each <see cref="Round"/> sends trade messages of the four kinds
/// between every pair of participants (every service gets some) in paced chunks, a burst (the ring fills: refusals),
/// an unsupported message type, and (twice) takes the first stand-in service down and up (held messages, refusals past
/// the hold, the resend after the reconnect): the participants' connection threads, the ring, the forwarder thread, the
/// service sessions' sends and store appends, the answers' read, RefSeqNum rewrite and batched flush all run, on
/// threads of the scratch gateway, so that the JIT has compiled them (tier 1) before the live gateway's continuous
/// phase. The live gateway, its stores, its services and its participants never see any of it.
/// </summary>
/// <remarks>
/// Not the matching service's code: the gateway references the engine, the pools and the matching library, not the
/// service (an executable with its journal, matcher and dispatcher). What both warm-ups share is in the engine
/// (<see cref="EngineHost.WarmUp"/>: rounds until the JIT count is flat; loopback FIX sessions).
/// </remarks>
internal sealed class GatewayWarmUp : IDisposable
{
    /// <summary>The scratch gateway's engine name in the trace (the live one is "gateway").</summary>
    public const string HostName = "gateway-warm-up";

    /// <summary>Messages of one participant the scratch gateway holds for a service that is down (then refusals).</summary>
    public const int Hold = 4;

    private const int Chunk = 16;

    private readonly string _directory;
    private readonly StandInService[] _services;
    private readonly GatewayServer _gateway;
    private readonly FixEngine _participants;
    private readonly Counter _answers;
    private readonly List<(int Sender, byte[] MsgType, byte[] Body, int Service)> _messages;

    private GatewayWarmUp(string directory, StandInService[] services, GatewayServer gateway, FixEngine participants, Counter answers,
        List<(int, byte[], byte[], int)> messages)
    {
        _directory = directory;
        _services = services;
        _gateway = gateway;
        _participants = participants;
        _answers = answers;
        _messages = messages;
    }

    /// <summary>The scratch gateway's counters (for the warm-up's report and the tests).</summary>
    public GatewayCounters Counters => _gateway.Counters;

    /// <summary>Answers the scratch participants received (acks, rejects, refusals).</summary>
    public long Answers => _answers.Value;

    /// <summary>Times a stand-in service went down and came back.</summary>
    public int Outages { get; private set; }

    /// <summary>
    /// Starts the stand-in services, the scratch gateway and its participants and waits for every logon; null (with
    /// the reason in <paramref name="why"/>) when one of them could not start or log on within 30 s.
    /// </summary>
    public static GatewayWarmUp? Start(GatewayOptions live, out string why)
    {
        // Beside the live stores (the same file system), never among what a restart reads; a stale one is removed.
        string directory = Path.Combine(live.DataDirectory, "warm-up.scratch");
        DeleteDirectory(directory);
        Directory.CreateDirectory(directory);
        var services = new List<StandInService>();
        GatewayServer? gateway = null;
        FixEngine? participants = null;
        try
        {
            var endpoints = new ServiceEndpoint[live.Services.Count];
            for (int k = 0; k < endpoints.Length; k++)
            {
                var service = new StandInService(live.CompId, live.Participants);
                services.Add(service);
                endpoints[k] = new ServiceEndpoint("127.0.0.1", service.Port, live.Services[k].Partitions);
            }

            gateway = GatewayServer.Start(live with
            {
                Services = endpoints,
                AcceptHost = "127.0.0.1",
                AcceptPort = 0,                   // bound by its own acceptor and read back: no port chosen first
                DataDirectory = Path.Combine(directory, "gateway"),
                LogPath = Path.Combine(directory, "gateway.log"),
                StoreMaxMessages = 200_000,
                StoreMaxBytes = 64 << 20,
                HoldPerParticipant = Hold,        // a down service's hold fills: refusals
                ForwardRingBytes = 16 << 10,      // a burst overflows it (a paced chunk does not): refusals
                ReconnectSeconds = 1,
                HostName = HostName,
            });
            var answers = new Counter();
            participants = FixEngine.Create(ParticipantSettings(live, gateway.Port), _ => answers);
            participants.Start();
            long deadline = Stopwatch.GetTimestamp() + (30 * Stopwatch.Frequency);
            while (!AllLoggedOn(participants) || !AllLoggedOn(gateway.Host.Engine))
            {
                if (Stopwatch.GetTimestamp() > deadline)
                {
                    throw new TimeoutException("the warm-up's participants and services did not all log on to the scratch gateway within 30 s");
                }

                Thread.Sleep(5);
            }

            why = "";
            return new GatewayWarmUp(directory, [.. services], gateway, participants, answers, Messages(live));
        }
        catch (Exception ex) when (ex is ConfigurationException or IOException or System.Net.Sockets.SocketException or TimeoutException
                                       or UnauthorizedAccessException or RapidFix.Engine.Store.StoreException)
        {
            participants?.Dispose();
            gateway?.Dispose();
            foreach (var service in services)
            {
                service.Dispose();
            }

            DeleteDirectory(directory);
            why = ex.Message;
            return null;
        }
    }

    /// <summary>
    /// One round: every message in paced chunks (each chunk's first answer awaited), the first ones again in a burst
    /// of four (refusals once the scratch ring is full), a message type the utility does not take, and in rounds 1 and
    /// 3 the first stand-in service down (held messages, then refusals) and up again (its resend request delivers what
    /// was held).
    /// </summary>
    public void Round(int round)
    {
        for (int start = 0; start < _messages.Count; start += Chunk)
        {
            long before = _answers.Value;
            Send(start, Math.Min(_messages.Count, start + Chunk), -1);
            WaitForAnswers(before + 1);
        }

        long beforeBurst = _answers.Value;
        int burst = Math.Min(_messages.Count, 4 * Chunk);
        for (int i = 0; i < 4; i++)
        {
            Send(0, burst, -1);
        }

        WaitForAnswers(beforeBurst + burst);
        _participants.Sessions[round % _participants.Sessions.Count].Send("B"u8, "148=warm-up\u000133=1\u000158=warm-up\u0001"u8);
        WaitForAnswers(_answers.Value + 1);
        if (round is 1 or 3)
        {
            // Twice, not every round: the hold and refusal paths are compiled, but a reconnect allocates in any phase
            // (connection set-up), and tiering its once-per-outage methods up took some 15 outages of a second each.
            Outage();
        }
    }

    public void Dispose()
    {
        _participants.Dispose();
        _gateway.Dispose();
        foreach (var service in _services)
        {
            service.Dispose();
        }

        DeleteDirectory(_directory);
    }

    // The first stand-in service drops its connections; while the scratch gateway reconnects (ReconnectSeconds), each
    // participant sends it up to three times its hold (held in the gateway's stores, then refused); after the logons
    // the stand-in's resend requests get what was held.
    private void Outage()
    {
        var down = _gateway.Host.Engine;
        _services[0].DropConnections();
        if (!WaitUntil(() => NoneLoggedOn(0), TimeSpan.FromSeconds(2)))
        {
            return;
        }

        // Paced, so that the forwarder has counted what it held before the next ones are offered (the hold is counted
        // when a message is stored, after the participant's thread took it): past the hold they are refused.
        for (int i = 0; i < 3 * Hold && NoneLoggedOn(0); i++)
        {
            Send(0, _messages.Count, 0, onePerSender: true);
            Thread.Sleep(20);
        }

        Outages++;
        WaitUntil(() => AllLoggedOn(down), TimeSpan.FromSeconds(5));
        WaitForAnswers(_answers.Value + 1);
    }

    private bool NoneLoggedOn(int service)
    {
        for (int p = 0; p < _participants.Sessions.Count; p++)
        {
            if (_gateway.ServiceSession(service, p).IsLoggedOn)
            {
                return false;
            }
        }

        return true;
    }

    // The messages start..end (those for service `only`, when not -1; one per sender, when onePerSender), deferred per
    // participant session and flushed once each.
    private void Send(int start, int end, int only, bool onePerSender = false)
    {
        var sessions = _participants.Sessions;
        Span<bool> sent = stackalloc bool[sessions.Count];
        for (int i = start; i < end; i++)
        {
            var (sender, type, body, service) = _messages[i];
            if ((only >= 0 && service != only) || (onePerSender && sent[sender]))
            {
                continue;
            }

            sent[sender] = true;
            sessions[sender].SendDeferred(type, body);
        }

        for (int i = 0; i < sessions.Count; i++)
        {
            sessions[i].StartFlushDeferred();
        }

        for (int i = 0; i < sessions.Count; i++)
        {
            sessions[i].FlushDeferred();
        }
    }

    // Until the participants received this many answers, at most two seconds (a round never waits longer: what did
    // not come back is answered during the next one).
    private void WaitForAnswers(long count) => WaitUntil(() => _answers.Value >= count, TimeSpan.FromSeconds(2));

    private static bool WaitUntil(Func<bool> done, TimeSpan timeout)
    {
        long deadline = Stopwatch.GetTimestamp() + (long)(timeout.TotalSeconds * Stopwatch.Frequency);
        while (!done())
        {
            if (Stopwatch.GetTimestamp() > deadline)
            {
                return false;
            }

            Thread.Sleep(1);
        }

        return true;
    }

    // A trade's four kinds of message (NOE, ALC, NPR, SET in the tag contract of docs/matching.md) between every
    // ordered pair of participants, each sent by the party that sends it (the gateway reads the two parties, not the
    // roles the CompIDs have), in an order that mixes senders and services.
    private static List<(int, byte[], byte[], int)> Messages(GatewayOptions live)
    {
        var owner = new int[live.Partitions];
        for (int k = 0; k < live.Services.Count; k++)
        {
            foreach (int p in live.Services[k].Partitions)
            {
                owner[p] = k;
            }
        }

        var list = new List<(int, byte[], byte[], int)>();
        var ids = live.Participants;
        int n = 0;
        for (int a = 0; a < ids.Count; a++)
        {
            for (int b = 0; b < ids.Count; b++)
            {
                if (a == b && ids.Count > 1)
                {
                    continue;
                }

                string im = ids[a], eb = ids[b];
                int service = owner[TradePartition.Of(Encoding.ASCII.GetBytes(im), Encoding.ASCII.GetBytes(eb), live.Partitions)];
                string key = "WU" + (n++).ToString(CultureInfo.InvariantCulture);
                foreach (var (sender, type, body) in Trade(key, im, eb))
                {
                    list.Add((sender == im ? a : b, Encoding.ASCII.GetBytes(type), Encoding.ASCII.GetBytes(body), service));
                }
            }
        }

        // Interleaved: the k-th message of every trade, then the (k+1)-th...
        var mixed = new List<(int, byte[], byte[], int)>(list.Count);
        for (int k = 0; k < 4; k++)
        {
            for (int i = k; i < list.Count; i += 4)
            {
                mixed.Add(list[i]);
            }
        }

        return mixed;
    }

    private static (string Sender, string MsgType, string Body)[] Trade(string key, string im, string eb)
    {
        const string Date = "20261120";
        const string Time = "20261120-10:00:00.000";
        string Parties(string? account) =>
            "453=" + (account is null ? "2" : "4") + "\u0001448=" + eb + "\u0001447=D\u0001452=1\u0001448=" + im + "\u0001447=D\u0001452=13\u0001" +
            (account is null ? "" : "448=" + account + "\u0001447=D\u0001452=24\u0001448=PLACE\u0001447=D\u0001452=10\u0001");
        string Fields(params (int Tag, string Value)[] fields) => string.Concat(fields.Select(f => f.Tag.ToString(CultureInfo.InvariantCulture) + "=" + f.Value + "\u0001"));
        string noe = Fields((571, key + "-NOE"), (487, "0"), (856, "0"), (570, "N"), (55, "[N/A]"), (48, "GB0002634946"), (22, "4"), (32, "1000"), (31, "10"),
                         (75, Date), (753, "0"), (60, Time), (768, "1"), (769, Time), (770, "1"), (64, "20261124"), (552, "1"), (54, "1"), (37, key + "-ORD"))
                     + Parties(null) + Fields((15, "GBP"));
        string alc = Fields((70, key + "-ALC1"), (71, "0"), (626, "2"), (857, "0"), (54, "1"), (55, "[N/A]"), (48, "GB0002634946"), (22, "4"), (53, "1000"), (6, "10"),
                         (15, "GBP"), (75, Date), (60, Time), (64, "20261124"))
                     + Parties(null) + Fields((78, "1"), (79, "ACC1"), (80, "1000"));
        string npr = Fields((664, key + "-NPR1"), (666, "0"), (773, "2"), (665, "1"), (60, Time), (75, Date), (64, "20261124"))
                     + Parties(null)
                     + Fields((55, "[N/A]"), (48, "GB0002634946"), (22, "4"), (711, "0"), (555, "0"), (768, "1"), (769, Time), (770, "1"), (80, "1000"), (54, "1"),
                         (15, "GBP"), (862, "1"), (528, "A"), (863, "1000"), (79, "ACC1"), (6, "10"), (381, "10000.00"), (118, "10020.00"), (119, "10020.00"),
                         (120, "GBP"), (12, "20.00"), (13, "3"));
        string set = Fields((777, key + "-SET1-M"), (160, "1"), (60, Time), (778, "1"), (162, key + "-SET1"), (163, "N")) + Parties("ACC1") + Fields((54, "1"));
        return [(eb, "AE", noe), (im, "J", alc), (eb, "AK", npr), (im, "T", set)];
    }

    private static bool AllLoggedOn(FixEngine engine)
    {
        foreach (var session in engine.Sessions)
        {
            if (!session.IsLoggedOn)
            {
                return false;
            }
        }

        return true;
    }

    private static SettingsFile ParticipantSettings(GatewayOptions live, int port)
    {
        var text = new StringBuilder();
        text.AppendLine("[DEFAULT]");
        text.AppendLine("ConnectionType=initiator");
        text.AppendLine("SocketConnectHost=127.0.0.1");
        text.AppendLine("SocketConnectPort=" + port.ToString(CultureInfo.InvariantCulture));
        text.AppendLine("ReconnectInterval=1");
        text.AppendLine("HeartBtInt=30");
        text.AppendLine("StartTime=00:00:00");
        text.AppendLine("EndTime=00:00:00");
        text.AppendLine("OutboundQueueDepth=4096");
        text.AppendLine("StoreType=express");
        text.AppendLine("StoreMaxMessages=200000");
        text.AppendLine("StoreMaxBytes=" + (64 << 20).ToString(CultureInfo.InvariantCulture));
        text.AppendLine("MaxMessageSize=" + GatewayServer.MaxMessageSize.ToString(CultureInfo.InvariantCulture));
        foreach (var id in live.Participants)
        {
            text.AppendLine("[SESSION]");
            text.AppendLine("BeginString=FIX.4.4");
            text.AppendLine("SenderCompID=" + id);
            text.AppendLine("TargetCompID=" + live.CompId);
        }

        return SettingsFile.Parse(text.ToString(), "gateway warm-up participants");
    }

    private static void DeleteDirectory(string directory)
    {
        if (Directory.Exists(directory))
        {
            Directory.Delete(directory, recursive: true);
        }
    }

    // Counts the application messages the participants receive (startup only: allocation does not matter here).
    private sealed class Counter : FixApplicationBase
    {
        private long _value;

        public long Value => Interlocked.Read(ref _value);

        public override MessageDisposition FromApp(FixSession session, FixMessage message)
        {
            Interlocked.Increment(ref _value);
            return MessageDisposition.Accept;
        }
    }

    /// <summary>
    /// A scratch matching service as the gateway sees one: an acceptor (port 0, read back) with a session per
    /// participant (SenderCompID the utility's), answering each trade message as the service does in shape: AR, P, AU
    /// acks (T has none), every fifth a BusinessMessageReject naming the gateway's MsgSeqNum (translated back), every
    /// seventh one naming a number the gateway never sent (passed on untranslated), and after each NPR an unsolicited
    /// Confirmation (a CLS: the NPR's own body). Memory stores; startup only, so it allocates freely.
    /// </summary>
    private sealed class StandInService : FixApplicationBase, IDisposable
    {
        private readonly FixEngine _engine;
        private long _count;

        public StandInService(string compId, IReadOnlyList<string> participants)
        {
            var text = new StringBuilder();
            text.AppendLine("[DEFAULT]");
            text.AppendLine("ConnectionType=acceptor");
            text.AppendLine("SocketAcceptHost=127.0.0.1");
            text.AppendLine("SocketAcceptPort=0");
            text.AppendLine("StartTime=00:00:00");
            text.AppendLine("EndTime=00:00:00");
            text.AppendLine("OutboundQueueDepth=4096");
            text.AppendLine("StoreType=express");
            text.AppendLine("StoreMaxMessages=200000");
            text.AppendLine("StoreMaxBytes=" + (64 << 20).ToString(CultureInfo.InvariantCulture));
            text.AppendLine("MaxMessageSize=" + GatewayServer.MaxMessageSize.ToString(CultureInfo.InvariantCulture));
            foreach (var id in participants)
            {
                text.AppendLine("[SESSION]");
                text.AppendLine("BeginString=FIX.4.4");
                text.AppendLine("SenderCompID=" + compId);
                text.AppendLine("TargetCompID=" + id);
            }

            _engine = FixEngine.Create(SettingsFile.Parse(text.ToString(), "gateway warm-up service"), _ => this);
            try
            {
                _engine.Start();
            }
            catch
            {
                _engine.Dispose();
                throw;
            }
        }

        public int Port => _engine.Acceptors[0].LocalEndPoint.Port;

        public void DropConnections()
        {
            foreach (var session in _engine.Sessions)
            {
                session.Disconnect();
            }
        }

        public override MessageDisposition FromApp(FixSession session, FixMessage message)
        {
            long n = Interlocked.Increment(ref _count);
            message.TryGetInt(Tags.MsgSeqNum, out int seq);
            var kind = MessageReader.KindOf(message.MsgType);
            var buffer = new byte[1024];
            var w = new FixBodyWriter(buffer);
            if (n % 5 == 0 || n % 7 == 0)
            {
                w.Add(45, n % 5 == 0 ? seq : seq + (1 << 20));
                w.Add(372, message.MsgType);
                w.AddChar(380, (byte)'0');
                w.Add(58, "warm-up refusal"u8);
                session.Send("j"u8, w.Written);
                return MessageDisposition.Accept;
            }

            ReadOnlySpan<byte> type = kind switch { MessageKind.Noe => "AR"u8, MessageKind.Alc => "P"u8, MessageKind.Npr => "AU"u8, _ => default };
            if (type.IsEmpty)
            {
                return MessageDisposition.Accept;
            }

            if (kind == MessageKind.Noe)
            {
                w.Add(571, "WU-NOE"u8);
                w.AddChar(487, (byte)'0');
                w.AddChar(150, (byte)'F');
                w.AddChar(939, (byte)'0');
                w.Add(Tags.Symbol, "[N/A]"u8);
            }
            else if (kind == MessageKind.Alc)
            {
                w.Add(70, "WU-ALC"u8);
                w.Add(60, "20261120-10:00:00.000"u8);
                w.AddChar(87, (byte)'0');
            }
            else
            {
                w.Add(664, "WU-NPR"u8);
                w.Add(75, 20261120);
                w.Add(60, "20261120-10:00:00.000"u8);
                w.AddChar(940, (byte)'1');
            }

            session.Send(type, w.Written);
            if (kind == MessageKind.Npr)
            {
                var cls = new FixBodyWriter(new byte[GatewayServer.MaxMessageSize]);
                cls.AddBodyOf(message); // a Confirmation of the trade's size and shape
                session.Send("AK"u8, cls.Written);
            }

            return MessageDisposition.Accept;
        }

        public void Dispose() => _engine.Dispose();
    }
}
