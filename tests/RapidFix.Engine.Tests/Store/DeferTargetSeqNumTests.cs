using System.Diagnostics;
using System.Runtime.InteropServices;
using Microsoft.Win32.SafeHandles;
using RapidFix.Engine.Fields;
using RapidFix.Engine.Sessions;
using RapidFix.Engine.Store;
using RapidFix.Engine.Tests.Sessions;

namespace RapidFix.Engine.Tests.Store;

/// <summary>
/// StoreDeferTargetSeqNum (<see cref="JournalOptions.DeferTargetSeqNum"/>): the record of each received message's
/// sequence number starts no flush of its own; it reaches the disk with the next flush a sent message asks for, or
/// after the flusher's park timeout when none comes. Without it every received message kept a group-commit store's
/// flusher writing and fsyncing while messages arrived (the matching service's four session stores).
/// </summary>
public sealed class DeferTargetSeqNumTests
{
    private static JournalMessageStore Open(TempDirectory dir, bool defer, string name = "s.journal") => JournalMessageStore.Open(new JournalOptions
    {
        FilePath = dir.File(name),
        FlushPolicy = FlushPolicy.GroupCommit,
        MaxMessages = 1000,
        MaxBytes = 1 << 20,
        DeferTargetSeqNum = defer,
    }, DateTime.UtcNow);

    [Fact]
    public void Target_records_start_no_flush_and_go_with_the_next_sent_message()
    {
        using var dir = new TempDirectory();
        using var store = Open(dir, defer: true);
        long flushes = store.Counters.Flushes;
        var watch = Stopwatch.StartNew();
        for (int i = 2; i <= 50; i++)
        {
            Assert.Equal(StoreWriteStatus.Ok, store.SetNextTargetMsgSeqNum(i));
            Thread.Sleep(1); // time for the flusher to wake for each of them (without the option it does: a flush each)
        }

        // Nothing asked for a flush: at most the park timeout's (one each 100 ms).
        long allowed = 1 + (watch.ElapsedMilliseconds / 100);
        Assert.True(store.Counters.Flushes - flushes <= allowed, $"{store.Counters.Flushes - flushes} flushes for 49 received messages in {watch.ElapsedMilliseconds} ms");

        // A sent message asks for one, and everything written before it goes with it.
        long before = store.Counters.Flushes;
        Assert.Equal(StoreWriteStatus.Ok, store.Append(1, "8=FIX.4.4\u00019=5\u000135=0\u000110=000\u0001"u8));
        Assert.True(store.WaitForDurable(store.WrittenPosition, TimeSpan.FromSeconds(10)));
        Assert.Equal(store.WrittenPosition, store.DurablePosition);
        Assert.True(store.Counters.Flushes > before, "the sent message's flush");
    }

    [Fact]
    public void Target_records_alone_reach_the_disk_after_the_park_timeout()
    {
        using var dir = new TempDirectory();
        using var store = Open(dir, defer: true);
        Assert.Equal(StoreWriteStatus.Ok, store.SetNextTargetMsgSeqNum(7));
        var watch = Stopwatch.StartNew();
        SpinWait.SpinUntil(() => store.DurablePosition >= store.WrittenPosition, TimeSpan.FromSeconds(10));
        Assert.Equal(store.WrittenPosition, store.DurablePosition);
        Assert.True(watch.Elapsed < TimeSpan.FromSeconds(5), $"{watch.Elapsed}");
        store.Dispose();
        using var reopened = Open(dir, defer: true);
        Assert.Equal(7, reopened.NextTargetMsgSeqNum);
    }

    [Fact]
    public void Without_it_each_target_record_starts_a_flush()
    {
        using var dir = new TempDirectory();
        using var store = Open(dir, defer: false);
        long flushes = store.Counters.Flushes;
        var watch = Stopwatch.StartNew();
        for (int i = 2; i <= 50; i++)
        {
            Assert.Equal(StoreWriteStatus.Ok, store.SetNextTargetMsgSeqNum(i));
            Thread.Sleep(1);
        }

        // The bound the test above holds the option to fails here: the flusher wakes for each record.
        long allowed = 1 + (watch.ElapsedMilliseconds / 100);
        Assert.True(store.Counters.Flushes - flushes > allowed, $"{store.Counters.Flushes - flushes} flushes in {watch.ElapsedMilliseconds} ms");
    }

    [Fact]
    public void Flush_makes_deferred_target_records_durable_at_once()
    {
        using var dir = new TempDirectory();
        using var store = Open(dir, defer: true);
        Assert.Equal(StoreWriteStatus.Ok, store.SetNextTargetMsgSeqNum(9));
        Assert.True(store.Flush());
        Assert.Equal(store.WrittenPosition, store.DurablePosition);
    }
    /// <summary>
    /// The bound of the promise from below: a received message's record written just after a flush waits for the
    /// flusher's park timeout (<see cref="GroupCommitFlusher.LazyFlushAfter"/>, 100 ms) when nothing is sent and
    /// nobody waits: it reaches the disk no sooner (it started no flush of its own) and then without anyone asking.
    /// Without the option the same record asks for its own flush at once (<see cref="Without_it_each_target_record_starts_a_flush"/>).
    /// </summary>
    [Fact]
    public void A_target_record_alone_waits_for_the_park_timeout_then_reaches_the_disk_unasked()
    {
        using var dir = new TempDirectory();
        using var store = Open(dir, defer: true);
        long start = Stopwatch.GetTimestamp();
        Assert.Equal(StoreWriteStatus.Ok, store.Append(1, "8=FIX.4.4\u00019=5\u000135=0\u000110=000\u0001"u8));
        Assert.True(store.WaitForDurable(store.WrittenPosition, TimeSpan.FromSeconds(10)));
        // The flusher parks after that flush (no sooner than start): its timeout runs from then.
        Assert.Equal(StoreWriteStatus.Ok, store.SetNextTargetMsgSeqNum(2));
        long written = Stopwatch.GetTimestamp();

        // Polled, not waited for: WaitForDurable would ask for the flush.
        Assert.True(SpinWait.SpinUntil(() => store.DurablePosition >= store.WrittenPosition, TimeSpan.FromSeconds(10)), "the record reached the disk unasked");
        long durable = Stopwatch.GetTimestamp();
        var sinceFlush = Stopwatch.GetElapsedTime(start, durable);
        var sinceWrite = Stopwatch.GetElapsedTime(written, durable);
        // 10 ms of slack: the runtime's timed wait may end a little before the stopwatch says 100 ms.
        Assert.True(sinceFlush >= GroupCommitFlusher.LazyFlushAfter - TimeSpan.FromMilliseconds(10),
            $"durable {sinceFlush.TotalMilliseconds:F1} ms after the flush before it: it started a flush of its own");
        Assert.True(sinceWrite < TimeSpan.FromSeconds(5), $"durable {sinceWrite.TotalMilliseconds:F1} ms after it was written");
        store.Dispose();
        using var reopened = Open(dir, defer: true);
        Assert.Equal(2, reopened.NextTargetMsgSeqNum);
    }

    /// <summary>
    /// A crash under the option: the session's journal is read as a SIGKILL would leave it (the live store's file as
    /// the OS has it, never closed or flushed: <see cref="FileAsTheOsHasIt"/>) and reopened. The received sequence
    /// is there up to the last sent message's flush, and what came after it is lost (at most the messages of the
    /// last 100 ms: the park timeout); the session on the reopened store then asks the counterparty for the lost
    /// messages again (ResendRequest from the first one lost), which is what the option relies on.
    /// </summary>
    [Fact]
    public void After_a_crash_the_received_sequence_is_lost_at_most_back_to_the_last_send_and_the_session_asks_for_it_again()
    {
        if (!OperatingSystem.IsLinux())
        {
            return; // the crash image is read with libc's open (FileAsTheOsHasIt)
        }

        using var dir = new TempDirectory();
        var (recovered, elapsed) = CrashAfterReceiving(dir, defer: true);

        // Everything received before the sent message (orders 2 to 4: next expected 5) went with its flush.
        Assert.InRange(recovered, 5, 10);
        if (elapsed < GroupCommitFlusher.LazyFlushAfter - TimeSpan.FromMilliseconds(10))
        {
            // The crash came before the park timeout: nothing received after the send reached the disk. (A loaded
            // machine that takes longer than that between the send and the copy may see them flushed by the timeout:
            // then only the bounds above hold.)
            Assert.True(recovered == 5, $"the store expects {recovered} after a crash {elapsed.TotalMilliseconds:F1} ms after the send: the records of 5 to 9 started a flush of their own");
        }

        using var reopened = Open(dir, defer: true, name: "crashed.journal");
        Assert.Equal(recovered, reopened.NextTargetMsgSeqNum);
        using var h = new ProtocolHarness(sessionStore: reopened);
        h.Logon(seq: 10); // the counterparty sent 1 to 9 before the crash
        var sent = h.TakeSent();
        if (recovered < 10)
        {
            var request = Assert.Single(sent, m => m.Type() == "2");
            Assert.Equal((recovered.ToString(System.Globalization.CultureInfo.InvariantCulture), "0"), (request.Field(Tags.BeginSeqNo), request.Field(Tags.EndSeqNo)));
        }
    }

    /// <summary>
    /// The same crash without the option: each received message's record asks for its own flush, so they reach the
    /// disk with nothing sent and nobody waiting, the reopened store expects 10 and the session asks for nothing.
    /// </summary>
    [Fact]
    public void Without_it_the_same_crash_loses_none_of_the_received_sequence()
    {
        if (!OperatingSystem.IsLinux())
        {
            return; // the crash image is read with libc's open (FileAsTheOsHasIt)
        }

        using var dir = new TempDirectory();
        var (recovered, _) = CrashAfterReceiving(dir, defer: false);
        Assert.Equal(10, recovered);

        using var reopened = Open(dir, defer: false, name: "crashed.journal");
        using var h = new ProtocolHarness(sessionStore: reopened);
        h.Logon(seq: 10);
        var sent = h.TakeSent();
        Assert.DoesNotContain(sent, m => m.Type() == "2");
        Assert.Equal(11, h.Session.NextTargetMsgSeqNum);
    }

    // An acceptor session on a journal store: Logon, orders 2 to 4, one message sent (its flush), orders 5 to 9; then
    // the journal file as the OS has it is copied to crashed.journal (a SIGKILL's leftovers) and the next target
    // sequence number it holds is returned, with the time from the send to the copy. Without the option the copy
    // waits until every record is on disk without asking for it (they asked for their own flushes).
    private static (int NextTarget, TimeSpan SinceSend) CrashAfterReceiving(TempDirectory dir, bool defer)
    {
        var store = Open(dir, defer);
        try
        {
            using var h = new ProtocolHarness(sessionStore: store);
            h.Logon();
            for (int seq = 2; seq <= 4; seq++)
            {
                h.Order(seq);
            }

            h.TakeSent();
            long send = Stopwatch.GetTimestamp();
            Assert.Equal(SendResult.Sent, h.Session.Send("8"u8, "37=1\u000117=1\u0001150=0\u000139=0\u000155=MSFT\u000154=1\u0001"u8));
            Assert.True(store.WaitForDurable(store.WrittenPosition, TimeSpan.FromSeconds(10)), "the sent message's flush");
            Assert.Single(h.TakeSent());
            for (int seq = 5; seq <= 9; seq++)
            {
                h.Order(seq);
            }

            Assert.Equal(10, store.NextTargetMsgSeqNum);
            Assert.Empty(h.TakeSent()); // nothing else was sent
            if (!defer)
            {
                Assert.True(SpinWait.SpinUntil(() => store.DurablePosition >= store.WrittenPosition, TimeSpan.FromSeconds(10)),
                    "the received messages' records reached the disk of their own flushes");
            }

            byte[] image = FileAsTheOsHasIt(dir.File("s.journal"));
            var elapsed = Stopwatch.GetElapsedTime(send);
            File.WriteAllBytes(dir.File("crashed.journal"), image);
            using var crashed = Open(dir, defer, name: "crashed.journal");
            return (crashed.NextTargetMsgSeqNum, elapsed);
        }
        finally
        {
            store.Dispose();
        }
    }

    /// <summary>
    /// The bytes of a journal another store holds open, as the OS has them (what the process's writes put there):
    /// read through a descriptor of its own, past the store's exclusive lock (.NET's advisory lock; libc's open
    /// takes none).
    /// </summary>
    private static byte[] FileAsTheOsHasIt(string path)
    {
        int fd = OpenReadOnly(System.Text.Encoding.UTF8.GetBytes(path + "\0"), 0 /* O_RDONLY */);
        Assert.True(fd >= 0, $"open {path}: errno {Marshal.GetLastPInvokeError()}");
        using var handle = new SafeFileHandle((IntPtr)fd, ownsHandle: true);
        var bytes = new byte[RandomAccess.GetLength(handle)];
        int at = 0;
        while (at < bytes.Length)
        {
            int n = RandomAccess.Read(handle, bytes.AsSpan(at), at);
            if (n == 0)
            {
                break;
            }

            at += n;
        }

        return bytes[..at];
    }

    [DllImport("libc", EntryPoint = "open", SetLastError = true)]
    private static extern int OpenReadOnly(byte[] path, int flags);
}
