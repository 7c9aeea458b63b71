using System.Text;
using RapidFix.Engine.Codec;
using RapidFix.Engine.Configuration;
using RapidFix.Engine.Diagnostics;
using RapidFix.Engine.Dictionary;
using RapidFix.Engine.Fields;
using RapidFix.Engine.Sessions;
using RapidFix.Engine.Store;
using RapidFix.Engine.Time;
using RapidFix.Engine.Transport;
using Xunit;

namespace RapidFix.Engine.Tests.Sessions;

/// <summary>
/// The session protocol's timed behaviour between a RapidFix initiator and acceptor over an in-memory connection,
/// with a manual clock: heartbeats, TestRequests, the heartbeat, logon and logout timeouts, gap recovery and the
/// transport's routing of the first Logon. No socket, no thread, no sleep: time moves only when
/// the test advances the clock, so each test runs in milliseconds on any machine.
/// </summary>
public sealed class InMemorySessionTests
{
    private static readonly DataDictionary Fix44 = StandardDictionaries.Load("FIX44");

    private readonly EngineClock _clock = EngineClock.Manual(DateTime.UtcNow);
    private readonly Recorder _client = new();
    private readonly Recorder _exec = new();
    private readonly FixSession _initiator;
    private readonly FixSession _acceptor;

    public InMemorySessionTests()
    {
        _initiator = new FixSession(Options("CLIENT", "EXEC", initiator: true), Store(), _client, clock: _clock);
        _acceptor = new FixSession(Options("EXEC", "CLIENT", initiator: false), Store(), _exec, clock: _clock);
    }

    [Fact]
    public void The_acceptor_end_is_routed_by_the_logon_and_both_sides_log_on()
    {
        var (ours, theirs) = Connect();
        Assert.Null(theirs.Session);
        theirs.Exchange();
        Assert.Same(_acceptor, theirs.Session);
        Assert.True(_initiator.IsLoggedOn && _acceptor.IsLoggedOn);
        Assert.Equal(30, _acceptor.HeartBtInt);
        Assert.False(ours.IsClosed);
    }

    [Fact]
    public void A_logon_for_an_unknown_session_is_refused_and_logged()
    {
        var stranger = new FixSession(Options("OTHER", "EXEC", initiator: true), Store(), new Recorder(), clock: _clock);
        using var logBytes = new MemoryStream();
        using (var log = new EngineLog(logBytes, 4096, LogLevel.Debug))
        {
            var (ours, theirs) = InMemoryConnection.Connect(stranger, [_acceptor], log: log);
            ours.Exchange();
            Assert.True(theirs.IsClosed);
            Assert.Equal(DisconnectReason.UnknownSession, theirs.CloseReason);
            Assert.Equal(DisconnectReason.PeerClosed, ours.CloseReason);
            Assert.False(stranger.IsConnected);
            Assert.False(_acceptor.IsConnected);
            log.Flush();
        }

        Assert.Contains("logon for an unknown session refused", Encoding.UTF8.GetString(logBytes.ToArray()), StringComparison.OrdinalIgnoreCase);
    }

    [Fact]
    public void Each_side_sends_a_heartbeat_when_it_has_sent_nothing_for_the_interval()
    {
        var (ours, theirs) = LoggedOn();
        _clock.Advance(TimeSpan.FromSeconds(29));
        Tick(ours, theirs);
        Assert.Empty(_client.Admin);
        Assert.Empty(_exec.Admin);

        _clock.Advance(TimeSpan.FromSeconds(1));
        Tick(ours, theirs);
        Assert.Equal(["0"], _client.Admin);
        Assert.Equal(["0"], _exec.Admin);
        Assert.True(_initiator.IsLoggedOn && _acceptor.IsLoggedOn);
    }

    [Fact]
    public void A_silent_counterparty_gets_a_test_request_at_1_2_intervals_and_is_disconnected_at_2_4()
    {
        var (ours, theirs) = LoggedOn();

        // The acceptor's bytes stop reaching us (nothing is delivered at our end): we only send.
        _clock.Advance(TimeSpan.FromSeconds(30));
        ours.RunTimer();
        theirs.Deliver();
        Assert.Equal(["0"], _exec.Admin); // our heartbeat; we received nothing yet, so no TestRequest

        _clock.Advance(TimeSpan.FromSeconds(6)); // 36 s = 1.2 intervals without receiving
        ours.RunTimer();
        theirs.Deliver();
        Assert.Equal(["0", "1"], _exec.Admin);
        Assert.True(_initiator.IsLoggedOn);

        _clock.Advance(TimeSpan.FromSeconds(36)); // 72 s = 2.4 intervals
        ours.RunTimer();
        ours.Deliver(); // tells the session its connection ended
        Assert.True(ours.IsClosed);
        Assert.Equal(DisconnectReason.HeartbeatTimeout, ours.CloseReason);
        Assert.False(_initiator.IsConnected);
    }

    [Fact]
    public void A_test_request_is_answered_with_a_heartbeat_carrying_its_id()
    {
        var (ours, theirs) = LoggedOn();
        _clock.Advance(TimeSpan.FromSeconds(36));
        ours.RunTimer(); // 1.2 intervals without receiving: a TestRequest
        theirs.Exchange();
        Assert.Contains("1", _exec.Admin);
        Assert.Contains("0", _client.Admin);
        Assert.Equal(_exec.TestReqIds.Single(), _client.HeartbeatTestReqIds.Single());
        Assert.True(_initiator.IsLoggedOn);
    }

    [Fact]
    public void An_unanswered_logon_times_out()
    {
        var (ours, _) = Connect(); // the acceptor's end never delivers our Logon
        _clock.Advance(TimeSpan.FromSeconds(9));
        ours.RunTimer();
        Assert.False(ours.IsClosed);

        _clock.Advance(TimeSpan.FromSeconds(1)); // LogonTimeout 10 s
        ours.RunTimer();
        Assert.True(ours.IsClosed);
        Assert.Equal(DisconnectReason.LogonTimeout, ours.CloseReason);
    }

    [Fact]
    public void An_unanswered_logout_times_out()
    {
        var (ours, _) = LoggedOn();
        _initiator.Logout(); // the acceptor's end never delivers it
        _clock.Advance(TimeSpan.FromSeconds(1));
        ours.RunTimer();
        Assert.False(ours.IsClosed);

        _clock.Advance(TimeSpan.FromSeconds(1)); // LogoutTimeout 2 s
        ours.RunTimer();
        Assert.Equal(DisconnectReason.LogoutTimeout, ours.CloseReason);
    }

    [Fact]
    public void A_logout_handshake_closes_both_ends()
    {
        var (ours, theirs) = LoggedOn();
        _initiator.Logout();
        ours.Exchange();
        Assert.True(ours.IsClosed && theirs.IsClosed);
        Assert.False(_initiator.IsConnected || _acceptor.IsConnected);
        Assert.Equal(1, _client.Logouts);
        Assert.Equal(1, _exec.Logouts);
    }

    [Fact]
    public void A_lost_message_is_asked_for_again_and_delivered_in_order()
    {
        var (ours, theirs) = LoggedOn();
        theirs.DiscardNext(); // the first order is lost on the way
        for (int i = 1; i <= 3; i++)
        {
            Assert.Equal(SendResult.Sent, _initiator.Send("D"u8, Order(i)));
        }

        theirs.Exchange();
        Assert.Equal([1, 2, 3], _exec.Orders);
        Assert.Equal([true, false, false], _exec.OrderPossDup); // the resent one is PossDup; the two held behind the gap are not
        Assert.Contains("2", _client.Admin); // the ResendRequest
        Assert.Equal(_initiator.NextSenderMsgSeqNum, _acceptor.NextTargetMsgSeqNum);
    }

    private (InMemoryConnection Ours, InMemoryConnection Theirs) Connect() => InMemoryConnection.Connect(_initiator, [_acceptor]);

    private (InMemoryConnection Ours, InMemoryConnection Theirs) LoggedOn()
    {
        var pair = Connect();
        pair.Ours.Exchange();
        Assert.True(_initiator.IsLoggedOn && _acceptor.IsLoggedOn);
        _client.Admin.Clear();
        _exec.Admin.Clear();
        return pair;
    }

    /// <summary>What both connection threads would do at this moment: timers, then whatever that sent.</summary>
    private static void Tick(InMemoryConnection ours, InMemoryConnection theirs)
    {
        ours.RunTimer();
        theirs.RunTimer();
        ours.Exchange();
    }

    private static byte[] Order(int id) => Encoding.ASCII.GetBytes(
        $"11={id}\u000121=1\u000138=100\u000140=1\u000154=1\u000155=MSFT\u000160=20260101-00:00:00.000\u0001");

    private static MemoryMessageStore Store() => new(10_000, 1 << 22, DateTime.UtcNow);

    private static FixSessionOptions Options(string sender, string target, bool initiator) => new(new SessionId("FIX.4.4", sender, target))
    {
        IsInitiator = initiator,
        Dictionary = Fix44,
        HeartBtInt = 30,
        LogonTimeout = TimeSpan.FromSeconds(10),
        LogoutTimeout = TimeSpan.FromSeconds(2),
    };

    /// <summary>Records session messages received (MsgType), orders and logouts.</summary>
    private sealed class Recorder : FixApplicationBase
    {
        public List<string> Admin { get; } = [];

        public List<string> TestReqIds { get; } = [];

        public List<string> HeartbeatTestReqIds { get; } = [];

        public List<int> Orders { get; } = [];

        public List<bool> OrderPossDup { get; } = [];

        public int Logouts { get; private set; }

        public override void FromAdmin(FixSession session, FixMessage message)
        {
            string type = Encoding.ASCII.GetString(message.MsgType);
            if (type is "A" or "5")
            {
                return;
            }

            Admin.Add(type);
            if (message.TryGetValue(Tags.TestReqID, out var id))
            {
                (type == "1" ? TestReqIds : HeartbeatTestReqIds).Add(Encoding.ASCII.GetString(id));
            }
        }

        public override void OnLogout(FixSession session) => Logouts++;

        public override MessageDisposition FromApp(FixSession session, FixMessage message)
        {
            Orders.Add(message.TryGetInt(Tags.ClOrdID, out int id) ? id : -1);
            OrderPossDup.Add(message.TryGetValue(Tags.PossDupFlag, out var p) && p.Length == 1 && p[0] == (byte)'Y');
            return MessageDisposition.Accept;
        }
    }
}
