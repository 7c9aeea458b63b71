using RapidFix.Engine.Sessions;

namespace RapidFix.Engine.Tests.Sessions;

/// <summary>
/// NextExpectedMsgSeqNum(789) between a RapidFix initiator and acceptor: after a reconnection each side resends what
/// the other says it missed, unasked, and neither sends a ResendRequest. (The wire format is checked by the
/// acceptance-style scripts in the AcceptanceRunner tests.)
/// </summary>
[Collection(nameof(SessionEndToEnd))]
public sealed class NextExpectedMsgSeqNumTests
{
    private const string Enabled = "EnableNextExpectedMsgSeqNum=Y";

    [Fact]
    public void Both_sides_resend_what_the_other_missed_without_a_resend_request()
    {
        using var pair = new EnginePair(Enabled);
        var (executor, client, ours, theirs) = (pair.Executor, pair.Client, pair.Ours, pair.Theirs);
        SessionHarness.WaitUntil(() => ours.IsLoggedOn && theirs.IsLoggedOn, "logon");
        for (int i = 1; i <= 3; i++)
        {
            client.SendOrder(ours, i);
        }

        SessionHarness.WaitUntil(() => client.Executions == 3, "3 executions");
        ours.Logout();
        SessionHarness.WaitUntil(() => !ours.IsConnected && !theirs.IsConnected, "logout on both sides");
        Assert.Equal(6, ours.NextSenderMsgSeqNum);  // Logon, 3 orders, Logout
        Assert.Equal(6, theirs.NextSenderMsgSeqNum); // Logon, 3 executions, Logout

        // Each side "lost" the end of what it received: the initiator the last two executions (3, 4) and the Logout,
        // the acceptor the last order (4) and the Logout.
        ours.Store.SetNextTargetMsgSeqNum(3);
        theirs.Store.SetNextTargetMsgSeqNum(4);
        ours.Enable();

        // The acceptor resends executions 3 and 4 (and gap-fills its Logout); the initiator resends order 4, which
        // the acceptor executes again: 3 + 2 resent + 1 new executions, 3 + 1 resent orders.
        SessionHarness.WaitUntil(() => ours.IsLoggedOn && client.Executions == 6, "the resent executions", 30);
        SessionHarness.WaitUntil(() => executor.Orders == 4, "the resent order");
        Assert.Equal(0, ours.Counters.ResendRequestsSent);
        Assert.Equal(0, theirs.Counters.ResendRequestsSent);
        Assert.Equal(0, theirs.Counters.ResendRequestsReceived);
        Assert.Equal(2, theirs.Counters.MessagesResent);
        Assert.Equal(1, ours.Counters.MessagesResent);
        SessionHarness.WaitUntil(() => ours.NextTargetMsgSeqNum == theirs.NextSenderMsgSeqNum && theirs.NextTargetMsgSeqNum == ours.NextSenderMsgSeqNum,
            "sequence numbers in step");
        Assert.Equal(8, ours.NextTargetMsgSeqNum); // their Logon (6) and the new execution (7) processed
        Assert.Equal(7, theirs.NextTargetMsgSeqNum); // our Logon (6) processed after the gap was filled

        // And the flow goes on normally.
        client.SendOrder(ours, 4);
        SessionHarness.WaitUntil(() => client.Executions == 7, "a new execution");
    }

    [Fact]
    public void A_logon_expecting_more_than_was_sent_gets_a_logout_with_the_reason()
    {
        using var pair = new EnginePair(Enabled);
        var (executor, client, ours, theirs) = (pair.Executor, pair.Client, pair.Ours, pair.Theirs);
        SessionHarness.WaitUntil(() => ours.IsLoggedOn, "logon");
        ours.Logout();
        SessionHarness.WaitUntil(() => !ours.IsConnected && !theirs.IsConnected, "logout on both sides");

        ours.Store.SetNextTargetMsgSeqNum(50); // claims messages the acceptor never sent
        ours.Enable();
        SessionHarness.WaitUntil(() => client.LogoutText is not null && client.LogoutText.StartsWith("NextExpectedMsgSeqNum", StringComparison.Ordinal), "the logout");
        Assert.Equal("NextExpectedMsgSeqNum(789) 50 is higher than the next MsgSeqNum we send, 3", client.LogoutText);
        Assert.Equal(1, executor.Logons); // only the first one
        Assert.False(theirs.IsLoggedOn);
    }

    /// <summary>A RapidFix acceptor (executing orders) and initiator (sending them) with the same extra settings.</summary>
    private sealed class EnginePair : IDisposable
    {
        private readonly RapidFix.Engine.Hosting.FixEngine _acceptor;
        private readonly RapidFix.Engine.Hosting.FixEngine _initiator;

        public EnginePair(string extra)
        {
            _acceptor = SessionHarness.Acceptor(Executor, extra: extra);
            _initiator = SessionHarness.Initiator(Client, SessionHarness.Endpoint(_acceptor.Acceptors[0].LocalEndPoint.Port), extra);
        }

        public ExecutingApplication Executor { get; } = new();

        public OrderingApplication Client { get; } = new();

        public FixSession Ours => _initiator.Sessions[0];

        public FixSession Theirs => _acceptor.Sessions[0];

        public void Dispose()
        {
            _initiator.Dispose();
            _acceptor.Dispose();
        }
    }
}
