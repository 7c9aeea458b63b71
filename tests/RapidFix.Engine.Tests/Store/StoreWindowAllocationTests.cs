using System.Globalization;
using RapidFix.Engine.Store;
using static RapidFix.Engine.Tests.Store.StoreTestData;

namespace RapidFix.Engine.Tests.Store;

/// <summary>
/// The windowed journal store in the continuous phase: appends that wrap the window, durability waits and resends
/// served from the file allocate nothing, and resident memory stays flat while the journal grows many windows long.
/// Run alone (the allocation collection): resident memory and allocation counters are process-wide or disturbed by
/// other tests' collections.
/// </summary>
[Collection(AllocationTestCollection.Name)]
public sealed class StoreWindowAllocationTests : IDisposable
{
    private const int Window = 64 << 10;
    private readonly TempDirectory _directory = new();

    public void Dispose() => _directory.Dispose();

    private JournalMessageStore Open(string name, FlushPolicy policy, int window = Window, bool commit = false) => JournalMessageStore.Open(new JournalOptions
    {
        FilePath = _directory.File(name),
        FlushPolicy = policy,
        MaxMessages = 4_000_000,
        MaxGenerationBytes = 4L << 30,
        WindowBytes = window,
        CommitMemory = commit,
    }, Created);

    private sealed class Workload(JournalMessageStore store)
    {
        public readonly JournalMessageStore Store = store;
        public readonly byte[] Message = StoreTestData.Message(42);
        public int SeqNum;
    }

    [Theory]
    [InlineData(FlushPolicy.GroupCommit)]
    [InlineData(FlushPolicy.OsOnly)]
    public void Appends_wrapping_the_window_and_waits_for_room_allocate_nothing_on_either_thread(FlushPolicy policy)
    {
        using var store = Open(policy + ".journal", policy);
        var work = new Workload(store);

        long bytes = SteadyStateAllocations.Measure(work, static w =>
        {
            int seq = ++w.SeqNum;
            if (w.Store.Append(seq, w.Message) != StoreWriteStatus.Ok || w.Store.SetNextTargetMsgSeqNum(seq + 1) != StoreWriteStatus.Ok)
            {
                throw new InvalidOperationException("store refused a write");
            }
        }, iterations: 50_000);

        Assert.Equal(0, bytes);
        Assert.True(store.Flush());
        Assert.True(store.WrittenPosition > 50L * Window); // the window wrapped fifty times and more
        Assert.Equal(0, store.Counters.FlusherAllocatedBytes);
        Assert.Equal(0, store.Counters.JournalFullRejections);
    }

    [Fact]
    public void Durability_waits_on_the_windowed_store_allocate_nothing()
    {
        using var store = Open("durable.journal", FlushPolicy.GroupCommit);
        var work = new Workload(store);

        long bytes = SteadyStateAllocations.Measure(work, static w =>
        {
            w.Store.Append(++w.SeqNum, w.Message);
            if (!w.Store.WaitForDurable(w.Store.WrittenPosition, TimeSpan.FromSeconds(10)))
            {
                throw new InvalidOperationException("not durable");
            }
        }, iterations: 300, warmup: 50);

        Assert.Equal(0, bytes);
    }

    [Fact]
    public void Resends_served_from_the_file_and_from_the_window_allocate_nothing()
    {
        using var store = Open("resend.journal", FlushPolicy.GroupCommit);
        for (int seq = 1; seq <= 20_000; seq++)
        {
            Assert.Equal(StoreWriteStatus.Ok, store.Append(seq, Message(seq)));
            store.SetNextTargetMsgSeqNum(seq + 1);
        }

        Assert.True(store.Flush());
        Assert.True(store.WrittenPosition > 30L * Window);

        long old = SteadyStateAllocations.Measure(store, static s =>
        {
            var handler = default(SummingHandler);
            int count = s.ReadRange(100, 199, ref handler);   // checkpoints, then the file
            if (count != 100 || handler.SeqNumSum != 14950)
            {
                throw new InvalidOperationException("range read returned the wrong messages");
            }

            handler = default;
            count = s.ReadRange(18_000, 18_999, ref handler); // across the index's start, bytes in the file (read in pieces)
            if (count != 1000 || handler.SeqNumSum != 18_499_500)
            {
                throw new InvalidOperationException("range read returned the wrong messages");
            }

            handler = default;
            count = s.ReadRange(19_950, 0, ref handler);      // the window
            if (count != 51)
            {
                throw new InvalidOperationException("range read returned the wrong messages");
            }
        }, iterations: 500, warmup: 20);

        Assert.Equal(0, old);
    }

    [Fact]
    public void Resident_memory_stays_flat_while_the_journal_grows_twenty_windows_long()
    {
        const int window = 4 << 20;
        using var store = Open("flat.journal", FlushPolicy.OsOnly, window, commit: true);
        var message = new byte[600];
        Message(1).CopyTo(message, 0);
        int seq = 0;

        // Twelve windows first: every code path compiled (the index of the last window/64 = 65,536 messages overflows
        // into checkpoints after about ten), the pages of everything the store made at open touched.
        seq = AppendDurably(store, message, seq, 12L * window);
        GC.Collect();
        long before = ResidentBytes();
        long heapBefore = GC.GetGCMemoryInfo().TotalCommittedBytes;
        long fileBefore = new FileInfo(store.FilePath).Length;
        seq = AppendDurably(store, message, seq, 20L * window);
        long after = ResidentBytes();
        long heapGrown = Math.Max(0, GC.GetGCMemoryInfo().TotalCommittedBytes - heapBefore);
        long grown = new FileInfo(store.FilePath).Length - fileBefore;

        Assert.True(grown >= 20L * window, $"the file grew {grown} bytes");
        // The store that kept its generation in memory grew by the journal: 80 MiB here. The window keeps it flat
        // (16 MiB of slack for the process's other native pages: in a clean-clone CI run, with the test host's other
        // threads winding down, 8 MiB that were not the store's and not the GC heap's appeared over a 40-MiB run). The appends allocate nothing, but the test host's threads do:
        // what the garbage-collected heap committed meanwhile (its gen0 budget, several MiB) is theirs, not the store's.
        long storeGrown = after - before - heapGrown;
        Assert.True(storeGrown < 16 << 20,
            $"resident memory grew {(after - before) >> 10} KiB ({heapGrown >> 10} KiB of it the GC heap's) while the journal grew {grown >> 10} KiB");

        // And it is all there, the first messages served from the file.
        var handler = default(SummingHandler);
        Assert.Equal(seq, store.ReadRange(1, 0, ref handler));
        Assert.Equal((long)seq * message.Length, handler.Bytes);
    }

    private static int AppendDurably(JournalMessageStore store, byte[] message, int seq, long bytes)
    {
        long until = store.WrittenPosition + bytes;
        while (store.WrittenPosition < until)
        {
            Assert.Equal(StoreWriteStatus.Ok, store.Append(++seq, message));
        }

        Assert.True(store.Flush());
        return seq;
    }

    // VmRSS of this process, from /proc/self/statm (resident pages).
    private static long ResidentBytes()
    {
        string[] fields = File.ReadAllText("/proc/self/statm").Split(' ');
        return long.Parse(fields[1], CultureInfo.InvariantCulture) * Environment.SystemPageSize;
    }
}
