using System.Diagnostics;
using RapidFix.Engine.Codec;
using RapidFix.Engine.Fields;
using RapidFix.Engine.Sessions;

namespace RapidFix.Engine.Tests.Sessions;

/// <summary>
/// An acceptor with a journal store (group commit, StoreSyncBeforeSend=Y) runs in a child process and is killed
/// with SIGKILL in the middle of an order stream. Restarted on the same journal, it must resume its sequence numbers
/// (the initiator never sees them go backwards: nothing it was told is lost), and the ResendRequest / gap-fill
/// exchange must recover every order the crash interrupted.
/// </summary>
/// <remarks>
/// Delivery to the application is at least once, as in QuickFIX: the target sequence number advances after the
/// application has handled a message, so an order handled just before the kill is asked for again, and arrives with
/// PossDupFlag=Y for the application to recognise. The test checks exactly that: orders before the point the
/// restarted acceptor asked to resend from are executed once; orders from that point at most twice; every order at
/// least once.
/// </remarks>
[Collection(nameof(SessionEndToEnd))]
public sealed class SessionCrashTests : IDisposable
{
    private const int Orders = 3_000;
    private readonly string _journal = Path.Combine(Path.GetTempPath(), "rapidfix-crash-" + Guid.NewGuid().ToString("N"));

    private const int SigStop = 19; // Linux

    [System.Runtime.InteropServices.DllImport("libc", EntryPoint = "kill", SetLastError = true)]
    private static extern int Signal(int pid, int signal);

    public void Dispose()
    {
        if (Directory.Exists(_journal))
        {
            Directory.Delete(_journal, recursive: true);
        }
    }

    [Fact]
    public void A_killed_acceptor_recovers_from_its_journal_and_gap_fill_recovers_the_rest()
    {
        int port = SessionHarness.FreePort();
        var child = StartAcceptor(port);
        var client = new RecordingApplication(Orders);
        using var initiator = SessionHarness.Initiator(client, SessionHarness.Endpoint(port));
        var session = initiator.Sessions[0];
        try
        {
            SessionHarness.WaitUntil(() => session.IsLoggedOn, "logon");

            // Stream orders; kill the acceptor once a third of them is executed, while orders are still in flight.
            int sent = 0;
            bool killed = false;
            int acknowledgedBeforeKill = 0;
            var deadline = DateTime.UtcNow.AddSeconds(120);
            while (sent < Orders)
            {
                Assert.True(DateTime.UtcNow < deadline, $"stuck after {sent} orders (logged on: {session.IsLoggedOn})");
                // At most 200 orders in flight, so that the kill lands in the middle of the stream.
                if (session.IsLoggedOn && sent - client.Executed < 200 && client.Send(session, sent + 1, session.NextSenderMsgSeqNum) == SendResult.Sent)
                {
                    sent++;
                }

                if (!killed && client.Executed >= Orders / 3)
                {
                    // Freeze the acceptor, then send orders it will never process: the kill always lands with orders
                    // in flight, whatever the timing, so the restarted acceptor must ask for them again.
                    Assert.Equal(0, Signal(child.Id, SigStop));
                    for (int i = 0; i < 20 && sent < Orders; i++)
                    {
                        Assert.Equal(SendResult.Sent, client.Send(session, sent + 1, session.NextSenderMsgSeqNum));
                        sent++;
                    }

                    acknowledgedBeforeKill = client.Executed;
                    child.Kill(entireProcessTree: true);
                    child.WaitForExit();
                    killed = true;
                    SessionHarness.WaitUntil(() => !session.IsLoggedOn, "the initiator to notice");
                    child.Dispose();
                    child = StartAcceptor(port); // the same journal
                }

                if (sent % 50 == 0)
                {
                    Thread.Sleep(1);
                }
            }

            Assert.True(killed);
            SessionHarness.WaitUntil(() => client.Executed == Orders, $"all {Orders} orders executed (now {client.Executed})", 60);

            // Nothing acknowledged was lost: the restarted acceptor never sent a sequence number lower than one the
            // initiator had already seen (that would have logged it out with "MsgSeqNum too low").
            Assert.Null(client.LogoutText);
            Assert.True(session.IsLoggedOn);
            Assert.True(acknowledgedBeforeKill >= Orders / 3);
            int resendFrom = client.ResendFrom;
            Assert.True(resendFrom > 1 && resendFrom < int.MaxValue, $"the restarted acceptor asked for a resend from {resendFrom}");
            int reexecuted = 0;
            for (int id = 1; id <= Orders; id++)
            {
                int executions = client.NewExecutions(id);
                string what = $"order {id} (MsgSeqNum {client.SeqNumOf(id)}): {executions} new executions, {client.PossDupExecutions(id)} possible duplicates";
                Assert.True(executions + client.PossDupExecutions(id) >= 1, what);
                if (client.SeqNumOf(id) < resendFrom)
                {
                    Assert.True(executions <= 1, what); // acknowledged before the crash: never handled again
                }
                else
                {
                    Assert.True(executions <= 2, what);
                    reexecuted += executions - 1;
                }
            }

            Assert.True(reexecuted <= 200, $"{reexecuted} orders handled twice: no more than were in flight");

        }
        finally
        {
            if (!child.HasExited)
            {
                child.Kill(entireProcessTree: true);
            }

            child.Dispose();
        }
    }

    private Process StartAcceptor(int port) =>
        CrashHost.Start(port.ToString(System.Globalization.CultureInfo.InvariantCulture), _journal);

    /// <summary>Records, per order, the executions received as new messages and as possible duplicates.</summary>
    private sealed class RecordingApplication(int orders) : FixApplicationBase
    {
        private readonly int[] _new = new int[orders + 1];
        private readonly int[] _possDup = new int[orders + 1];
        private readonly int[] _seqNums = new int[orders + 1];
        private int _resendFrom = int.MaxValue;
        private readonly byte[] _body = new byte[512];
        private readonly byte[] _id = new byte[16];
        private int _executed;
        private int _possDupTotal;

        public int Executed => Volatile.Read(ref _executed);

        public int PossDupTotal => Volatile.Read(ref _possDupTotal);

        public string? LogoutText { get; private set; }

        public int NewExecutions(int id) => Volatile.Read(ref _new[id]);

        public int PossDupExecutions(int id) => Volatile.Read(ref _possDup[id]);

        /// <summary>The MsgSeqNum order <paramref name="id"/> was sent with.</summary>
        public int SeqNumOf(int id) => _seqNums[id];

        /// <summary>The lowest BeginSeqNo of the ResendRequests received.</summary>
        public int ResendFrom => Volatile.Read(ref _resendFrom);

        public override void FromAdmin(FixSession session, FixMessage message)
        {
            if (message.MsgType.SequenceEqual("5"u8) && message.TryGetValue(Tags.Text, out var text))
            {
                LogoutText = System.Text.Encoding.ASCII.GetString(text);
            }

            if (message.MsgType.SequenceEqual("2"u8) && message.TryGetInt(Tags.BeginSeqNo, out int begin) && begin < _resendFrom)
            {
                Volatile.Write(ref _resendFrom, begin);
            }
        }

        public override MessageDisposition FromApp(FixSession session, FixMessage message)
        {
            if (!message.TryGetInt(Tags.ClOrdID, out int id) || id < 1 || id >= _new.Length)
            {
                return MessageDisposition.Reject(RapidFix.Engine.Validation.SessionRejectReason.ValueIsIncorrect, Tags.ClOrdID);
            }

            // One connection thread delivers messages: no two calls run at once.
            bool possDup = message.TryGetBool(Tags.PossDupFlag, out bool pd) && pd;
            if (possDup)
            {
                _possDup[id]++;
                _possDupTotal++;
            }
            else
            {
                _new[id]++;
            }

            if (_new[id] + _possDup[id] == 1)
            {
                Interlocked.Increment(ref _executed);
            }

            return MessageDisposition.Accept;
        }

        public SendResult Send(FixSession session, int id, int seqNum)
        {
            _seqNums[id] = seqNum;
            int n = FixValue.FormatLong(id, _id);
            var body = new FixBodyWriter(_body);
            RapidFix.Tests.Shared.FixSampleEncoding.WriteMarketOrder(ref body, _id.AsSpan(0, n));
            return session.Send("D"u8, body.Written);
        }
    }
}
