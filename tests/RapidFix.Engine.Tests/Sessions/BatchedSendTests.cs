using System.Text;
using RapidFix.Engine.Sessions;
using RapidFix.Engine.Store;
using RapidFix.Engine.Tests.Store;
using RapidFix.Tests.Shared;

namespace RapidFix.Engine.Tests.Sessions;

/// <summary>
/// Batched send (<see cref="FixSession.SendDeferred(ReadOnlySpan{byte}, ReadOnlySpan{byte})"/>, <see cref="FixSession.FlushDeferred"/>): under
/// StoreSyncBeforeSend=Y nothing of a batch reaches the wire before the store made it durable, the batch goes out in
/// one transport write, in MsgSeqNum order even when the session sends something else meanwhile, never on a later
/// connection, and the steady state allocates nothing.
/// </summary>
[Collection(AllocationTestCollection.Name)]
public sealed class BatchedSendTests : IDisposable
{
    private static readonly byte[] ReportBody = Encoding.ASCII.GetBytes("37=O1\u000117=E1\u0001150=0\u000139=0\u000155=MSFT\u000154=1\u0001151=100\u000114=0\u00016=0\u0001");
    private readonly string _journal = Path.Combine(Path.GetTempPath(), "rapidfix-batch-" + Guid.NewGuid().ToString("N") + ".journal");

    public void Dispose() => File.Delete(_journal);

    [Fact]
    public void A_batch_waits_for_one_durable_flush_then_goes_out_in_one_write_in_order()
    {
        // Group commit that lingers for a batch: a write becomes durable only after the delay unless someone waits.
        using var store = JournalMessageStore.Open(new JournalOptions { FilePath = _journal, MaxBatch = 1000, MaxDelay = TimeSpan.FromMilliseconds(300) }, DateTime.UtcNow);
        using var h = new ProtocolHarness("StoreSyncBeforeSend=Y", sessionStore: store);
        var wire = new ProbeTransport(store);
        h.PeerCloses();
        Assert.True(h.Session.TryAttach(wire));
        h.Logon();
        int first = store.NextSenderMsgSeqNum;
        int writesBefore = wire.Writes.Count;

        for (int i = 0; i < 20; i++)
        {
            Assert.Equal(SendResult.Sent, h.Session.SendDeferred("8"u8, ReportBody));
        }

        Assert.Equal(writesBefore, wire.Writes.Count); // stored, not on the wire
        Assert.True(h.Session.HasDeferred);
        Assert.True(h.Session.FlushDeferred());

        Assert.False(h.Session.HasDeferred);
        Assert.Equal(writesBefore + 1, wire.Writes.Count);
        Assert.Equal(0, wire.NotDurableAtSend);
        var seqs = wire.SeqNums(writesBefore);
        Assert.Equal(Enumerable.Range(first, 20), seqs);
        Assert.Equal(first + 20, store.NextSenderMsgSeqNum);
    }

    [Fact]
    public void A_batch_costs_one_fsync_however_slowly_it_is_stored()
    {
        // Group commit without a delay: a record that asks for a flush gets one at once. A batched send's messages
        // must not: the first one used to wake the flusher, which fsynced the batch's head while the rest was stored,
        // then the rest (two or more fsyncs a batch; the matching service's stores made 1.8).
        var (store, h, wire) = LoggedOnOverJournal(); // flushed: the flusher parks afresh, its 100-ms timeout far off
        using var _ = store;
        using var __ = h;
        long fsyncs = store.Counters.Fsyncs;
        int writesBefore = wire.Writes.Count;

        for (int i = 0; i < 10; i++)
        {
            Assert.Equal(SendResult.Sent, h.Session.SendDeferred("8"u8, ReportBody));
            Thread.Sleep(2); // time enough for a flusher that was woken to write and fsync
        }

        Assert.Equal(fsyncs, store.Counters.Fsyncs); // nothing asked for a flush yet
        Assert.True(store.DurablePosition < store.WrittenPosition);
        Assert.True(h.Session.FlushDeferred());

        Assert.Equal(fsyncs + 1, store.Counters.Fsyncs);
        Assert.Equal(writesBefore + 1, wire.Writes.Count);
        Assert.Equal(0, wire.NotDurableAtSend);
    }

    [Fact]
    public void A_SendingTime_the_caller_gives_is_the_one_sent_and_zero_means_the_clock()
    {
        var clock = RapidFix.Engine.Time.EngineClock.Manual(new DateTime(2026, 11, 23, 12, 0, 0, DateTimeKind.Utc));
        using var h = new ProtocolHarness("StoreSyncBeforeSend=Y\nCheckLatency=N", clock: clock);
        var wire = Attach(h);
        h.Logon();
        wire.Writes.Clear();
        long given = (new DateTime(2026, 11, 23, 11, 59, 58, 250, DateTimeKind.Utc).Ticks - DateTime.UnixEpoch.Ticks) * 100;

        h.Session.SendDeferred("8"u8, ReportBody, given);
        h.Session.SendDeferred("8"u8, ReportBody, 0);
        Assert.True(h.Session.FlushDeferred());

        var sent = Encoding.ASCII.GetString([.. wire.Writes.SelectMany(w => w)]).Split("8=FIX", StringSplitOptions.RemoveEmptyEntries);
        Assert.Equal(2, sent.Length);
        Assert.Contains("\u000152=20261123-11:59:58.250\u0001", sent[0], StringComparison.Ordinal);
        Assert.Contains("\u000152=20261123-12:00:00.000\u0001", sent[1], StringComparison.Ordinal);
    }

    [Fact]
    public void StartFlushDeferred_makes_the_batch_durable_without_waiting_and_FlushDeferred_adds_no_fsync()
    {
        var (store, h, wire) = LoggedOnOverJournal();
        using var _ = store;
        using var __ = h;
        long fsyncs = store.Counters.Fsyncs;
        int writesBefore = wire.Writes.Count;
        for (int i = 0; i < 5; i++)
        {
            h.Session.SendDeferred("8"u8, ReportBody);
        }

        h.Session.StartFlushDeferred();

        Assert.True(SpinWait.SpinUntil(() => store.DurablePosition >= store.WrittenPosition, TimeSpan.FromSeconds(5)));
        Assert.Equal(writesBefore, wire.Writes.Count); // durable, still not on the wire
        Assert.True(h.Session.FlushDeferred());
        Assert.Equal(fsyncs + 1, store.Counters.Fsyncs);
        Assert.Equal(writesBefore + 1, wire.Writes.Count);
    }

    [Fact]
    public void A_message_the_session_sends_while_a_batch_waits_goes_after_the_batch()
    {
        using var h = new ProtocolHarness("StoreSyncBeforeSend=Y");
        var wire = Attach(h);
        h.Logon();
        wire.Writes.Clear();
        for (int i = 0; i < 3; i++)
        {
            h.Session.SendDeferred("8"u8, ReportBody);
        }

        h.Receive("1", "2", "112=PING"); // a TestRequest: the Heartbeat answer must not overtake the batch

        var sent = wire.Writes.SelectMany(ProbeTransport.Messages).ToList();
        Assert.Equal(["8", "8", "8", "0"], sent.Select(m => m.Type));
        Assert.Equal([2, 3, 4, 5], sent.Select(m => m.Seq));
        Assert.False(h.Session.HasDeferred);
        Assert.True(h.Session.FlushDeferred()); // nothing left: writes nothing
        Assert.Equal(2, wire.Writes.Count);
    }

    [Fact]
    public void A_batch_stored_for_a_connection_that_closed_is_not_written_on_the_next()
    {
        using var h = new ProtocolHarness("StoreSyncBeforeSend=Y");
        h.Logon();
        h.Session.SendDeferred("8"u8, ReportBody);
        h.Session.SendDeferred("8"u8, ReportBody);
        h.PeerCloses();
        var wire = new ProbeTransport(h.Store);
        Assert.True(h.Session.TryAttach(wire));
        h.Logon(seq: 2);

        Assert.True(h.Session.FlushDeferred());

        // Only the Logon answer: the two reports are stored (MsgSeqNum 2 and 3) and reach the counterparty by its
        // ResendRequest, never as fresh messages on this connection.
        Assert.Equal(["A"], wire.Writes.SelectMany(ProbeTransport.Messages).Select(m => m.Type));
        int stored = 0;
        foreach (var message in h.Store.GetRange(2, 3))
        {
            stored += message.Bytes.IndexOf("\u000135=8\u0001"u8) > 0 ? 1 : 0;
        }

        Assert.Equal(2, stored);
    }

    [Fact]
    public void Without_a_logon_nothing_is_stored()
    {
        using var h = new ProtocolHarness("StoreSyncBeforeSend=Y");
        Assert.Equal(SendResult.NotLoggedOn, h.Session.SendDeferred("8"u8, ReportBody));
        Assert.False(h.Session.HasDeferred);
    }

    [Theory]
    [Trait("Category", "Allocation")]
    [InlineData("StoreSyncBeforeSend=Y")] // read back from the store at the flush
    [InlineData("PersistMessages=N")] // the batch buffer holds the messages themselves
    public void Batched_sending_allocates_nothing(string settings)
    {
        using var h = new ProtocolHarness(settings);
        h.Logon();
        h.TakeSent();
        h.Transport.Keep = false;
        long bytes = Allocations.Measure(h.Session, static s =>
        {
            for (int i = 0; i < 8; i++)
            {
                s.SendDeferred("8"u8, ReportBody);
            }

            s.FlushDeferred();
        }, iterations: 2_000, warmup: 200);
        Assert.Equal(0, bytes);
        // The Logon answer (MsgSeqNum 1), then one write per batch of eight.
        Assert.Equal(8 * (h.Transport.SendCount - 1), h.Store.NextSenderMsgSeqNum - 2);
        Assert.True(h.Transport.SendCount > 2_000);
    }

    [Fact]
    [Trait("Category", "Allocation")]
    public void Batched_sending_over_a_journal_store_allocates_nothing()
    {
        // The lazy appends, StartFlushDeferred and the flush's wait of a journal store (the other theory runs over
        // the express store, which takes none of them).
        var (store, h, wire) = LoggedOnOverJournal();
        using var _ = store;
        using var __ = h;
        wire.Keep = false;
        long bytes = Allocations.Measure(h.Session, static s =>
        {
            for (int i = 0; i < 8; i++)
            {
                s.SendDeferred("8"u8, ReportBody, 0);
            }

            s.StartFlushDeferred();
            s.FlushDeferred();
        }, iterations: 500, warmup: 100);
        Assert.Equal(0, bytes);
        Assert.Equal(0, wire.NotDurableAtSend);
    }

    [Fact]
    public void Without_persisting_a_batch_still_goes_out_in_one_write_in_order()
    {
        // PersistMessages=N (the trade driver's initiators): nothing to read back, the batch holds the bytes.
        using var h = new ProtocolHarness("PersistMessages=N");
        var wire = Attach(h);
        h.Logon();
        int first = h.Store.NextSenderMsgSeqNum;
        int writesBefore = wire.Writes.Count;

        for (int i = 0; i < 20; i++)
        {
            Assert.Equal(SendResult.Sent, h.Session.SendDeferred("8"u8, ReportBody));
        }

        Assert.Equal(writesBefore, wire.Writes.Count); // queued, not on the wire
        Assert.True(h.Session.HasDeferred);
        Assert.True(h.Session.FlushDeferred());

        Assert.False(h.Session.HasDeferred);
        Assert.Equal(writesBefore + 1, wire.Writes.Count);
        Assert.Equal(Enumerable.Range(first, 20), wire.SeqNums(writesBefore));
        Assert.Equal(first + 20, h.Store.NextSenderMsgSeqNum);
    }

    [Fact]
    public void Without_persisting_a_batch_larger_than_its_buffer_goes_out_in_whole_messages_in_order()
    {
        using var h = new ProtocolHarness("PersistMessages=N");
        var wire = Attach(h);
        h.Logon();
        int first = h.Store.NextSenderMsgSeqNum;
        int writesBefore = wire.Writes.Count;
        const int count = 1_000; // about 150 bytes each: more than one buffer (64 KiB)

        for (int i = 0; i < count; i++)
        {
            Assert.Equal(SendResult.Sent, h.Session.SendDeferred("8"u8, ReportBody));
        }

        Assert.True(h.Session.FlushDeferred());

        var writes = wire.Writes.Skip(writesBefore).ToList();
        Assert.InRange(writes.Count, 2, 4);
        Assert.All(writes, w => Assert.InRange(w.Length, 1, FixSession.DeferredWriteBytes));
        Assert.All(writes, w =>
        {
            // Whole messages only: each write starts with a BeginString and ends with a CheckSum.
            string text = Encoding.ASCII.GetString(w);
            Assert.StartsWith("8=FIX.4.4\u0001", text, StringComparison.Ordinal);
            Assert.Matches("\u000110=[0-9]{3}\u0001$", text);
        });
        Assert.Equal(Enumerable.Range(first, count), wire.SeqNums(writesBefore));
    }

    [Fact]
    public void Without_persisting_a_message_the_session_sends_while_a_batch_waits_goes_after_the_batch()
    {
        using var h = new ProtocolHarness("PersistMessages=N");
        var wire = Attach(h);
        h.Logon();
        wire.Writes.Clear();
        for (int i = 0; i < 3; i++)
        {
            h.Session.SendDeferred("8"u8, ReportBody);
        }

        h.Receive("1", "2", "112=PING");

        var sent = wire.Writes.SelectMany(ProbeTransport.Messages).ToList();
        Assert.Equal(["8", "8", "8", "0"], sent.Select(m => m.Type));
        Assert.Equal([2, 3, 4, 5], sent.Select(m => m.Seq));
        Assert.True(h.Session.FlushDeferred());
        Assert.Equal(2, wire.Writes.Count);
    }

    [Fact]
    public void Without_persisting_a_batch_whose_connection_closed_is_lost_and_the_flush_says_so()
    {
        using var h = new ProtocolHarness("PersistMessages=N");
        h.Logon();
        h.TakeSent();
        Assert.Equal(SendResult.Sent, h.Session.SendDeferred("8"u8, ReportBody));
        Assert.Equal(SendResult.Sent, h.Session.SendDeferred("8"u8, ReportBody));
        h.PeerCloses();

        Assert.False(h.Session.FlushDeferred()); // kept nowhere: the caller counts them as not sent
        Assert.False(h.Session.HasDeferred);
        Assert.Empty(h.TakeSent());
        Assert.True(h.Session.FlushDeferred()); // nothing left
    }

    [Fact]
    public void Without_persisting_a_refused_write_fails_the_flush()
    {
        using var h = new ProtocolHarness("PersistMessages=N");
        h.Logon();
        h.TakeSent();
        h.Session.SendDeferred("8"u8, ReportBody);
        h.Transport.Accepts = false;

        Assert.False(h.Session.FlushDeferred());
        Assert.False(h.Session.HasDeferred);
    }

    // The harness's session on a probe instead of its memory transport.
    /// <summary>
    /// A session over a journal store (group commit, no delay) under StoreSyncBeforeSend=Y, attached to a
    /// <see cref="ProbeTransport"/>, logged on, and everything so far flushed.
    /// </summary>
    private (JournalMessageStore Store, ProtocolHarness Harness, ProbeTransport Wire) LoggedOnOverJournal()
    {
        var store = JournalMessageStore.Open(new JournalOptions { FilePath = _journal }, DateTime.UtcNow);
        var h = new ProtocolHarness("StoreSyncBeforeSend=Y", sessionStore: store);
        var wire = new ProbeTransport(store);
        h.PeerCloses();
        Assert.True(h.Session.TryAttach(wire));
        h.Logon();
        Assert.True(store.Flush());
        return (store, h, wire);
    }

    private static ProbeTransport Attach(ProtocolHarness h)
    {
        var wire = new ProbeTransport(h.Store);
        h.PeerCloses();
        Assert.True(h.Session.TryAttach(wire));
        return wire;
    }

    /// <summary>Keeps each write and whether everything the store had written was durable when it was made.</summary>
    private sealed class ProbeTransport(IMessageStore store) : ISessionTransport
    {
        public List<byte[]> Writes { get; } = [];

        /// <summary>False: writes are checked for durability but not kept (allocation tests).</summary>
        public bool Keep { get; set; } = true;

        public int NotDurableAtSend { get; private set; }

        public System.Net.EndPoint? RemoteEndPoint => null;

        public bool Send(ReadOnlySpan<byte> message)
        {
            if (Keep)
            {
                Writes.Add(message.ToArray());
            }

            if (store.DurablePosition < store.WrittenPosition)
            {
                NotDurableAtSend++;
            }

            return true;
        }

        public void Disconnect(DisconnectReason reason)
        {
        }

        public List<int> SeqNums(int fromWrite) => [.. Writes.Skip(fromWrite).SelectMany(Messages).Select(m => m.Seq)];

        public static IEnumerable<(string Type, int Seq)> Messages(byte[] write)
        {
            string text = Encoding.ASCII.GetString(write);
            foreach (var message in text.Split("8=FIX", StringSplitOptions.RemoveEmptyEntries))
            {
                var fields = message.Split('\u0001');
                yield return (fields.First(f => f.StartsWith("35=", StringComparison.Ordinal))[3..],
                    int.Parse(fields.First(f => f.StartsWith("34=", StringComparison.Ordinal))[3..], System.Globalization.CultureInfo.InvariantCulture));
            }
        }
    }
}
