using System.Net;
using System.Text;
using RapidFix.Engine.Codec;
using RapidFix.Engine.Configuration;
using RapidFix.Engine.Diagnostics;
using RapidFix.Engine.Fields;
using RapidFix.Engine.Sessions;
using RapidFix.Engine.Store;

namespace RapidFix.Engine.Tests.Sessions;

/// <summary>
/// A FIX.4.4 acceptor session (EXEC, counterparty CLIENT) over an in-memory transport: the test plays the
/// counterparty message by message and reads what the session sent. No socket, no thread.
/// </summary>
internal sealed class ProtocolHarness : IDisposable
{
    private readonly MemoryStream _logBytes = new();

    /// <param name="sessionStore">The session's store instead of <see cref="Store"/> (a journal, for durability tests).</param>
    /// <param name="clock">The session's clock (a manual one moves only when the test says), else the shared clock.</param>
    public ProtocolHarness(string extraSettings = "", EndPoint? peer = null, IMessageStore? sessionStore = null,
        RecordingApplication? application = null, RapidFix.Engine.Time.EngineClock? clock = null)
    {
        Application = application ?? new RecordingApplication();
        var settings = SettingsFile.Parse($"""
            [DEFAULT]
            ConnectionType=acceptor
            SocketAcceptPort=0
            {(extraSettings.Contains("StartTime=", StringComparison.Ordinal) ? "" : "StartTime=00:00:00\nEndTime=00:00:00")}
            StoreType=express
            {extraSettings}
            [SESSION]
            BeginString=FIX.4.4
            SenderCompID=EXEC
            TargetCompID=CLIENT
            """, "protocol.cfg");
        Options = FixSessionOptions.FromSettings(settings.Sessions[0]);
        Store = new MemoryMessageStore(100_000, 1 << 26, DateTime.UtcNow);
        Log = new EngineLog(_logBytes, 4096, LogLevel.Debug);
        Session = new FixSession(Options, sessionStore ?? Store, Application, Log, clock);
        Peer = peer ?? new IPEndPoint(IPAddress.Parse("192.0.2.10"), 40001);
        Connect();
    }

    public FixSessionOptions Options { get; }

    public MemoryMessageStore Store { get; }

    public EngineLog Log { get; }

    public FixSession Session { get; }

    public RecordingApplication Application { get; }

    public EndPoint Peer { get; }

    public MemoryTransport Transport { get; private set; } = null!;

    /// <summary>A new connection from <see cref="Peer"/> (the previous one must be closed).</summary>
    public void Connect()
    {
        Transport = new MemoryTransport(Peer);
        if (!Session.TryAttach(Transport))
        {
            throw new InvalidOperationException("the session refused the connection");
        }
    }

    /// <summary>Closes the connection as the counterparty would.</summary>
    public void PeerCloses() => Session.OnDisconnected(Transport, DisconnectReason.PeerClosed);

    /// <summary>
    /// The counterparty sends <paramref name="msgType"/> with MsgSeqNum <paramref name="seq"/> (null: no MsgSeqNum
    /// field at all; a string so that values an int cannot hold can be sent) and <paramref name="body"/>
    /// ("tag=value|tag=value"). The header is completed with CompIDs and a current SendingTime unless
    /// <paramref name="header"/> gives it.
    /// </summary>
    public void Receive(string msgType, string? seq, string body = "", string header = "")
    {
        var fields = new StringBuilder();
        fields.Append("35=").Append(msgType).Append('|');
        if (seq is not null)
        {
            fields.Append("34=").Append(seq).Append('|');
        }

        fields.Append("49=CLIENT|");
        if (!header.Contains("52=", StringComparison.Ordinal))
        {
            fields.Append("52=").Append(DateTime.UtcNow.ToString("yyyyMMdd-HH:mm:ss.fff", System.Globalization.CultureInfo.InvariantCulture)).Append('|');
        }

        fields.Append("56=EXEC|");
        if (header.Length > 0)
        {
            fields.Append(header).Append('|');
        }

        if (body.Length > 0)
        {
            fields.Append(body).Append('|');
        }

        byte[] bytes = Frame(fields.ToString());
        var message = new FixMessage(new FixMessageOptions { MaxMessageSize = 8192 });
        var error = message.Parse(bytes, 0, bytes.Length, Options.DictionaryFor(Encoding.ASCII.GetBytes(msgType)));
        Assert.Equal(FixParseError.None, error);
        Session.OnMessage(message);
    }

    /// <summary>A Logon with HeartBtInt 30 and the extra body fields given.</summary>
    public void Logon(int seq = 1, string body = "") =>
        Receive("A", seq.ToString(System.Globalization.CultureInfo.InvariantCulture), "98=0|108=30" + (body.Length > 0 ? "|" + body : ""));

    /// <summary>An order (ClOrdID = its MsgSeqNum unless given), optionally as a resend (PossDupFlag=Y).</summary>
    public void Order(int seq, bool possDup = false)
    {
        string s = seq.ToString(System.Globalization.CultureInfo.InvariantCulture);
        string header = possDup ? "43=Y|122=" + DateTime.UtcNow.AddSeconds(-1).ToString("yyyyMMdd-HH:mm:ss.fff", System.Globalization.CultureInfo.InvariantCulture) : "";
        Receive("D", s, $"11={s}|21=1|38=100|40=1|54=1|55=MSFT|60={DateTime.UtcNow:yyyyMMdd-HH:mm:ss.fff}", header);
    }

    /// <summary>What the session sent since the last call (each parsed into its own view).</summary>
    public List<FixMessage> TakeSent() => Transport.Take();

    /// <summary>The log's text so far.</summary>
    public string LogText()
    {
        Log.Flush();
        lock (_logBytes)
        {
            return Encoding.UTF8.GetString(_logBytes.ToArray());
        }
    }

    public void Dispose() => Log.Dispose();

    private static byte[] Frame(string fields)
    {
        string body = fields.Replace('|', '\u0001');
        string head = $"8=FIX.4.4\u00019={Encoding.ASCII.GetByteCount(body)}\u0001";
        int sum = 0;
        foreach (byte b in Encoding.ASCII.GetBytes(head + body))
        {
            sum += b;
        }

        return Encoding.ASCII.GetBytes($"{head}{body}10={sum % 256:000}\u0001");
    }
}

/// <summary>A transport that keeps what is sent; closing it records the reason.</summary>
internal sealed class MemoryTransport : ISessionTransport
{
    private readonly List<byte[]> _sent = [];

    public MemoryTransport(EndPoint? remoteEndPoint) => RemoteEndPoint = remoteEndPoint;

    public EndPoint? RemoteEndPoint { get; }

    public bool Closed { get; private set; }

    public DisconnectReason ClosedFor { get; private set; }

    /// <summary>False: sends are only counted (allocation tests).</summary>
    public bool Keep { get; set; } = true;

    public long SendCount { get; private set; }

    /// <summary>Runs as each message reaches the transport, before it is taken (what the session shows at that moment).</summary>
    public Action? OnSend { get; set; }

    /// <summary>False: every send fails as a dead socket's would.</summary>
    public bool Accepts { get; set; } = true;

    public bool Send(ReadOnlySpan<byte> message)
    {
        OnSend?.Invoke();
        if (Closed || !Accepts)
        {
            return false;
        }

        SendCount++;
        if (Keep)
        {
            _sent.Add(message.ToArray());
        }

        return true;
    }

    public void Disconnect(DisconnectReason reason)
    {
        Closed = true;
        ClosedFor = reason;
    }

    public List<FixMessage> Take()
    {
        var views = new List<FixMessage>();
        foreach (byte[] bytes in _sent)
        {
            var view = new FixMessage(new FixMessageOptions { MaxMessageSize = 8192 });
            Assert.Equal(FixParseError.None, view.ParseCopy(bytes));
            views.Add(view);
        }

        _sent.Clear();
        return views;
    }
}

/// <summary>Records what the application sees: logons, the peer's address at logon, the orders in order.</summary>
internal class RecordingApplication : FixApplicationBase
{
    public int LogonRequests { get; private set; }

    public int Logons { get; private set; }

    public EndPoint? PeerAtLogon { get; private set; }

    public List<int> Orders { get; } = [];

    public Func<FixMessage, LogonDecision>? LogonPolicy { get; set; }

    public override LogonDecision OnLogonRequest(FixSession session, FixMessage logon)
    {
        LogonRequests++;
        PeerAtLogon = session.RemoteEndPoint;
        return LogonPolicy?.Invoke(logon) ?? LogonDecision.Accept;
    }

    public override void OnLogon(FixSession session) => Logons++;

    public int Logouts { get; private set; }

    public override void OnLogout(FixSession session) => Logouts++;

    public override MessageDisposition FromApp(FixSession session, FixMessage message)
    {
        Orders.Add(message.TryGetInt(Tags.ClOrdID, out int id) ? id : -1);
        return MessageDisposition.Accept;
    }
}

/// <summary>Reading sent messages in assertions.</summary>
internal static class SentMessage
{
    public static string Type(this FixMessage m) => Encoding.ASCII.GetString(m.MsgType);

    public static string Field(this FixMessage m, int tag) => m.TryGetValue(tag, out var v) ? Encoding.ASCII.GetString(v) : "<absent>";

    public static int Seq(this FixMessage m) => m.TryGetInt(Tags.MsgSeqNum, out int s) ? s : -1;

    public static string Describe(this List<FixMessage> messages) =>
        string.Join(" ; ", messages.Select(m => Encoding.ASCII.GetString(m.Buffer, m.Offset, m.Length).Replace('\u0001', '|')));
}
