using RapidFix.Engine.Store;
using RapidFix.Tests.Shared;
using static RapidFix.Engine.Tests.Store.StoreTestData;

namespace RapidFix.Engine.Tests.Store;

/// <summary>Appends, sequence updates and range reads are continuous-phase work: they must allocate nothing.</summary>
[Collection(AllocationTestCollection.Name)]
public sealed class StoreAllocationTests : IDisposable
{
    private const int Iterations = 50_000;
    private readonly TempDirectory _directory = new();

    public void Dispose() => _directory.Dispose();

    private sealed class Workload(IMessageStore store)
    {
        public readonly IMessageStore Store = store;
        public readonly byte[] Message = StoreTestData.Message(42);
        public int SeqNum;
    }

    private static long MeasureAppendAndSequence(IMessageStore store, int iterations, int warmup)
    {
        var work = new Workload(store);
        return SteadyStateAllocations.Measure(work, static w =>
        {
            int seq = ++w.SeqNum;
            if (w.Store.Append(seq, w.Message) != StoreWriteStatus.Ok || w.Store.SetNextTargetMsgSeqNum(seq + 1) != StoreWriteStatus.Ok)
            {
                throw new InvalidOperationException("store refused a write");
            }
        }, iterations, warmup);
    }

    private static long MeasureRangeReads(IMessageStore store)
    {
        for (int seq = 1; seq <= 1000; seq++)
        {
            store.Append(seq, Message(seq));
        }

        return SteadyStateAllocations.Measure(store, static s =>
        {
            var handler = default(SummingHandler);
            int count = s.ReadRange(100, 199, ref handler);
            if (count != 100 || handler.SeqNumSum != 14950)
            {
                throw new InvalidOperationException("range read returned the wrong messages");
            }
        }, iterations: 20_000);
    }

    private JournalMessageStore OpenJournal(FlushPolicy policy) => JournalMessageStore.Open(new JournalOptions
    {
        FilePath = _directory.File(policy + ".journal"),
        FlushPolicy = policy,
        MaxMessages = 200_000,
        MaxBytes = 64 << 20,
    }, Created);

    [Fact]
    public void Express_store_appends_sequence_updates_and_range_reads_allocate_nothing()
    {
        using IMessageStore store = new MemoryMessageStore(200_000, 64 << 20, Created);

        Assert.Equal(0, MeasureAppendAndSequence(store, Iterations, warmup: 2_000));
        store.Reset(Created);
        Assert.Equal(0, MeasureRangeReads(store));
    }

    [Theory]
    [InlineData(FlushPolicy.GroupCommit)]
    [InlineData(FlushPolicy.OsOnly)]
    public void Journal_appends_sequence_updates_and_range_reads_allocate_nothing_on_either_thread(FlushPolicy policy)
    {
        using var store = OpenJournal(policy);

        Assert.Equal(0, MeasureAppendAndSequence(store, Iterations, warmup: 2_000));
        Assert.True(store.Flush());
        long flusherAfterFirstRun = store.Counters.FlusherAllocatedBytes;

        Assert.Equal(0, MeasureAppendAndSequence(store, Iterations, warmup: 100));
        Assert.True(store.Flush());
        Assert.True(store.Counters.Flushes > 1);
        Assert.Equal(flusherAfterFirstRun, store.Counters.FlusherAllocatedBytes);
        Assert.Equal(0, store.Counters.FlusherAllocatedBytes);

        Assert.Equal(StoreWriteStatus.Ok, store.Reset(Created));
        Assert.Equal(0, MeasureRangeReads(store));
    }

    [Fact]
    public void Journal_durability_waits_allocate_nothing()
    {
        using var store = OpenJournal(FlushPolicy.GroupCommit);
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
    public void Journal_every_message_policy_allocates_nothing()
    {
        using var store = OpenJournal(FlushPolicy.EveryMessage);

        Assert.Equal(0, MeasureAppendAndSequence(store, iterations: 200, warmup: 50));
    }
}
