using System.Diagnostics;
using RapidFix.Engine.Store;

namespace RapidFix.Engine.Tests.Store;

/// <summary>
/// StoreDeferTargetSeqNum (<see cref="JournalOptions.DeferTargetSeqNum"/>): the record of each received message's
/// sequence number starts no flush of its own; it reaches the disk with the next flush a sent message asks for, or
/// after the flusher's park timeout when none comes. Without it every received message kept a group-commit store's
/// flusher writing and fsyncing while messages arrived (the matching service's four session stores).
/// </summary>
public sealed class DeferTargetSeqNumTests
{
    private static JournalMessageStore Open(TempDirectory dir, bool defer) => JournalMessageStore.Open(new JournalOptions
    {
        FilePath = dir.File("s.journal"),
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
}
