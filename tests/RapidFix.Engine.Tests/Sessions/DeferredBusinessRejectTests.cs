using System.Text;
using RapidFix.Engine.Codec;
using RapidFix.Engine.Configuration;
using RapidFix.Engine.Dictionary;
using RapidFix.Engine.Fields;
using RapidFix.Engine.Sessions;
using RapidFix.Engine.Store;
using RapidFix.Engine.Time;
using RapidFix.Engine.Transport;
using Xunit;

namespace RapidFix.Engine.Tests.Sessions;

/// <summary>
/// The session's BusinessMessageReject (an application's <see cref="MessageDisposition.BusinessReject"/>) goes out
/// deferred with its read: under StoreSyncBeforeSend=Y the rejects of one read cost one store flush, not one flush
/// wait each under the session lock (a flood of refused messages would otherwise serialise on the disk); each is
/// stored like an application message and answers its own message, in order.
/// </summary>
public sealed class DeferredBusinessRejectTests : IDisposable
{
    private const int Orders = 30;
    private static readonly DataDictionary Fix44 = StandardDictionaries.Load("FIX44");

    private readonly string _journal = Path.Combine(Path.GetTempPath(), "rapidfix-bmr-" + Guid.NewGuid().ToString("N") + ".journal");
    private readonly EngineClock _clock = EngineClock.Manual(DateTime.UtcNow);

    public void Dispose() => File.Delete(_journal);

    [Fact]
    public void The_business_rejects_of_one_read_share_one_store_flush_and_each_answers_its_message()
    {
        // Group commit that lingers: a write becomes durable at once only when someone waits for it, so each wait
        // is one flush of its own.
        using var store = JournalMessageStore.Open(
            new JournalOptions { FilePath = _journal, MaxBatch = 100_000, MaxDelay = TimeSpan.FromMilliseconds(500) }, DateTime.UtcNow);
        var client = new Client();
        var initiator = new FixSession(Options("CLIENT", "EXEC", initiator: true), new MemoryMessageStore(10_000, 1 << 22, DateTime.UtcNow), client, clock: _clock);
        var acceptor = new FixSession(Options("EXEC", "CLIENT", initiator: false, syncBeforeSend: true), store, new Busy(), clock: _clock);
        var (ours, theirs) = InMemoryConnection.Connect(initiator, [acceptor]);
        ours.Exchange();
        Assert.True(initiator.IsLoggedOn && acceptor.IsLoggedOn);

        // Every order in one write, so in one read at the acceptor's end.
        for (int i = 1; i <= Orders; i++)
        {
            Assert.Equal(SendResult.Sent, initiator.SendDeferred("D"u8, Order(i)));
        }

        Assert.True(initiator.FlushDeferred());
        long flushesBefore = store.Counters.Flushes;
        int firstReject = store.NextSenderMsgSeqNum;
        theirs.Deliver();
        long flushes = store.Counters.Flushes - flushesBefore;
        ours.Exchange();

        Assert.True(flushes <= 2, $"{flushes} store flushes for the {Orders} rejects of one read");
        Assert.Equal(Orders, client.Rejects.Count);
        Assert.All(client.Rejects, r => Assert.Equal("4", r.Reason));
        Assert.All(client.Rejects, r => Assert.Equal("Application not available", r.Text));
        Assert.All(client.Rejects, r => Assert.Equal("D", r.RefMsgType));
        // Each answers its own order, in order, with consecutive MsgSeqNums.
        Assert.Equal(Enumerable.Range(2, Orders), client.Rejects.Select(r => r.RefSeqNum));
        Assert.Equal(Enumerable.Range(firstReject, Orders), client.Rejects.Select(r => r.SeqNum));
        Assert.Equal(initiator.NextSenderMsgSeqNum, acceptor.NextTargetMsgSeqNum);

        // Stored like an application message (a resend delivers it again, as QuickFIX/n and /J do).
        int stored = 0;
        foreach (var message in store.GetRange(firstReject, firstReject + Orders - 1))
        {
            stored += message.Bytes.IndexOf("\u000135=j\u0001"u8) > 0 ? 1 : 0;
        }

        Assert.Equal(Orders, stored);
    }

    [Fact]
    public void The_business_rejects_of_one_read_are_logged_in_two_lines_not_one_each()
    {
        using var store = JournalMessageStore.Open(new JournalOptions { FilePath = _journal }, DateTime.UtcNow);
        var logBytes = new MemoryStream();
        var client = new Client();
        var initiator = new FixSession(Options("CLIENT", "EXEC", initiator: true), new MemoryMessageStore(10_000, 1 << 22, DateTime.UtcNow), client, clock: _clock);
        string text;
        using (var log = new RapidFix.Engine.Diagnostics.EngineLog(logBytes, 4096, RapidFix.Engine.Diagnostics.LogLevel.Info))
        {
            var acceptor = new FixSession(Options("EXEC", "CLIENT", initiator: false, syncBeforeSend: true), store, new Busy(), log, _clock);
            var (ours, theirs) = InMemoryConnection.Connect(initiator, [acceptor]);
            ours.Exchange();
            for (int i = 1; i <= Orders; i++)
            {
                Assert.Equal(SendResult.Sent, initiator.SendDeferred("D"u8, Order(i)));
            }

            Assert.True(initiator.FlushDeferred());
            theirs.Deliver();
            ours.Exchange();
            log.Flush();
            text = Encoding.ASCII.GetString(logBytes.ToArray());
        }

        // Every refusal still answers its order (the participant is told); the log says how many in two lines.
        Assert.Equal(Orders, client.Rejects.Count);
        var lines = text.Split('\n');
        Assert.Single(lines, l => l.Contains("BusinessMessageReject sent, reason 4, RefSeqNum 2", StringComparison.Ordinal));
        Assert.Single(lines, l => l.Contains($"{Orders - 1} more BusinessMessageRejects sent for the same read, the last for RefSeqNum {Orders + 1}", StringComparison.Ordinal));
        Assert.Equal(2, lines.Count(l => l.Contains("BusinessMessageReject", StringComparison.Ordinal)));
    }

    private static byte[] Order(int id) => Encoding.ASCII.GetBytes(
        $"11={id}\u000121=1\u000138=100\u000140=1\u000154=1\u000155=MSFT\u000160=20260101-00:00:00.000\u0001");

    private static FixSessionOptions Options(string sender, string target, bool initiator, bool syncBeforeSend = false) => new(new SessionId("FIX.4.4", sender, target))
    {
        IsInitiator = initiator,
        SyncBeforeSend = syncBeforeSend,
        Dictionary = Fix44,
        HeartBtInt = 30,
    };

    /// <summary>Refuses every application message: application not available (back-pressure).</summary>
    private sealed class Busy : FixApplicationBase
    {
        public override MessageDisposition FromApp(FixSession session, FixMessage message) => MessageDisposition.BusinessReject(4);
    }

    /// <summary>Records the BusinessMessageRejects received.</summary>
    private sealed class Client : FixApplicationBase
    {
        public List<(int SeqNum, int RefSeqNum, string Reason, string Text, string RefMsgType)> Rejects { get; } = [];

        public override MessageDisposition FromApp(FixSession session, FixMessage message)
        {
            if (message.MsgType.SequenceEqual("j"u8))
            {
                message.TryGetInt(Tags.MsgSeqNum, out int seq);
                message.TryGetInt(Tags.RefSeqNum, out int refSeq);
                Rejects.Add((seq, refSeq, Text(message, Tags.BusinessRejectReason), Text(message, Tags.Text), Text(message, Tags.RefMsgType)));
            }

            return MessageDisposition.Accept;
        }

        private static string Text(FixMessage m, int tag) => m.TryGetValue(tag, out var v) ? Encoding.ASCII.GetString(v) : "<absent>";
    }
}
