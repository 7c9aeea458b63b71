using RapidFix.Engine.Store;
using static RapidFix.Engine.Tests.Store.StoreTestData;

namespace RapidFix.Engine.Tests.Store;

/// <summary>Behaviour both stores share, run against the express store and the journal under each flush policy.</summary>
public sealed class MessageStoreContractTests : IDisposable
{
    private readonly TempDirectory _directory = new();

    public static TheoryData<string> Kinds => ["express", "EveryMessage", "GroupCommit", "OsOnly"];

    public void Dispose() => _directory.Dispose();

    private IMessageStore Open(string kind, int maxMessages = 1000, int maxBytes = 1 << 20) => kind == "express"
        ? new MemoryMessageStore(maxMessages, maxBytes, Created)
        : JournalMessageStore.Open(new JournalOptions
        {
            FilePath = _directory.File(kind + ".journal"),
            FlushPolicy = Enum.Parse<FlushPolicy>(kind),
            MaxMessages = maxMessages,
            MaxBytes = maxBytes,
        }, Created);

    private static List<(int SeqNum, byte[] Bytes)> Read(IMessageStore store, int begin, int end, int stopAfter = int.MaxValue)
    {
        var handler = CollectingHandler.Create(stopAfter);
        int count = store.ReadRange(begin, end, ref handler);
        Assert.Equal(handler.Messages.Count, count);
        return handler.Messages;
    }

    [Theory]
    [MemberData(nameof(Kinds))]
    public void A_new_store_starts_at_one_with_its_creation_time(string kind)
    {
        using var store = Open(kind);

        Assert.Equal(1, store.NextSenderMsgSeqNum);
        Assert.Equal(1, store.NextTargetMsgSeqNum);
        Assert.Equal(1, store.Generation);
        Assert.Equal(Created, store.CreationTimeUtc);
        Assert.Equal(DateTimeKind.Utc, store.CreationTimeUtc.Kind);
        Assert.Equal(0, store.MessageCount);
        Assert.Empty(Read(store, 1, 0));
    }

    [Theory]
    [MemberData(nameof(Kinds))]
    public void Appended_messages_read_back_byte_for_byte_by_range(string kind)
    {
        using var store = Open(kind);
        for (int seq = 1; seq <= 20; seq++)
        {
            Assert.Equal(StoreWriteStatus.Ok, store.Append(seq, Message(seq)));
            Assert.Equal(seq + 1, store.NextSenderMsgSeqNum);
        }

        var middle = Read(store, 5, 8);
        Assert.Equal([5, 6, 7, 8], middle.Select(m => m.SeqNum));
        Assert.All(middle, m => Assert.Equal(Message(m.SeqNum), m.Bytes));
        Assert.Equal(Enumerable.Range(15, 6), Read(store, 15, 0).Select(m => m.SeqNum));   // 0 = through the last
        Assert.Equal(Enumerable.Range(18, 3), Read(store, 18, 999).Select(m => m.SeqNum));
        Assert.Empty(Read(store, 21, 0));
        Assert.Equal([1, 2, 3], Read(store, 1, 0, stopAfter: 3).Select(m => m.SeqNum));    // the handler can stop
        Assert.Equal(20, store.MessageCount);
    }

    [Theory]
    [MemberData(nameof(Kinds))]
    public void Sequence_numbers_never_stored_are_skipped(string kind)
    {
        using var store = Open(kind);
        store.Append(1, Message(1));
        store.SetNextSenderMsgSeqNum(10); // e.g. a SequenceReset-GapFill over 2..9
        Assert.Equal(10, store.NextSenderMsgSeqNum);
        store.Append(10, Message(10));
        store.Append(11, Message(11));

        Assert.Equal([1, 10, 11], Read(store, 1, 0).Select(m => m.SeqNum));
        Assert.Equal([10], Read(store, 2, 10).Select(m => m.SeqNum));
    }

    [Theory]
    [MemberData(nameof(Kinds))]
    public void Storing_a_lower_sequence_number_replaces_it_and_drops_later_ones(string kind)
    {
        using var store = Open(kind);
        for (int seq = 1; seq <= 5; seq++)
        {
            store.Append(seq, Message(seq));
        }

        byte[] replacement = "8=FIX.4.4\u000135=0\u000134=3\u0001"u8.ToArray();
        Assert.Equal(StoreWriteStatus.Ok, store.Append(3, replacement));

        var all = Read(store, 1, 0);
        Assert.Equal([1, 2, 3], all.Select(m => m.SeqNum));
        Assert.Equal(replacement, all[2].Bytes);
        Assert.Equal(4, store.NextSenderMsgSeqNum);
    }

    [Theory]
    [MemberData(nameof(Kinds))]
    public void Target_sequence_number_is_kept(string kind)
    {
        using var store = Open(kind);

        Assert.Equal(StoreWriteStatus.Ok, store.SetNextTargetMsgSeqNum(2));
        Assert.Equal(StoreWriteStatus.Ok, store.SetNextTargetMsgSeqNum(42));

        Assert.Equal(42, store.NextTargetMsgSeqNum);
        Assert.Equal(1, store.NextSenderMsgSeqNum);
        Assert.Equal(2, store.Counters.SequenceUpdates);
    }

    [Theory]
    [MemberData(nameof(Kinds))]
    public void Reset_starts_a_new_generation(string kind)
    {
        using var store = Open(kind);
        for (int seq = 1; seq <= 5; seq++)
        {
            store.Append(seq, Message(seq));
        }

        store.SetNextTargetMsgSeqNum(9);
        var resetTime = Created.AddHours(24);

        Assert.Equal(StoreWriteStatus.Ok, store.Reset(resetTime));

        Assert.Equal(2, store.Generation);
        Assert.Equal(resetTime, store.CreationTimeUtc);
        Assert.Equal(1, store.NextSenderMsgSeqNum);
        Assert.Equal(1, store.NextTargetMsgSeqNum);
        Assert.Equal(0, store.MessageCount);
        Assert.Empty(Read(store, 1, 0));
        store.Append(1, Message(100));
        Assert.Equal(Message(100), Assert.Single(Read(store, 1, 0)).Bytes);
    }

    [Theory]
    [MemberData(nameof(Kinds))]
    public void A_full_index_is_a_counted_refusal_and_nothing_is_stored(string kind)
    {
        using var store = Open(kind, maxMessages: 16);
        for (int seq = 1; seq <= 16; seq++)
        {
            Assert.Equal(StoreWriteStatus.Ok, store.Append(seq, Message(seq)));
        }

        long position = store.WrittenPosition;
        Assert.Equal(StoreWriteStatus.IndexFull, store.Append(17, Message(17)));
        Assert.Equal(StoreWriteStatus.IndexFull, store.Append(18, Message(18)));

        Assert.Equal(2, store.Counters.IndexFullRejections);
        Assert.Equal(16, store.MessageCount);
        Assert.Equal(17, store.NextSenderMsgSeqNum);
        Assert.Equal(position, store.WrittenPosition);
        Assert.Equal(StoreWriteStatus.Ok, store.Append(16, Message(16))); // replacing a stored one still fits
        Assert.Equal(StoreWriteStatus.Ok, store.Reset(Created));
        Assert.Equal(StoreWriteStatus.Ok, store.Append(1, Message(1)));
    }

    [Theory]
    [MemberData(nameof(Kinds))]
    public void A_full_buffer_is_a_counted_refusal_and_nothing_is_stored(string kind)
    {
        using var store = Open(kind, maxBytes: 4096);
        int stored = 0;
        while (store.Append(stored + 1, Message(50)) == StoreWriteStatus.Ok)
        {
            stored++;
        }

        Assert.True(stored > 10);
        Assert.Equal(1, store.Counters.JournalFullRejections);
        Assert.Equal(stored, store.MessageCount);
        Assert.Equal(stored + 1, store.NextSenderMsgSeqNum);
        Assert.Equal(stored, Read(store, 1, 0).Count);
        Assert.Equal(StoreWriteStatus.JournalFull, store.Append(stored + 1, Message(50)));
        Assert.Equal(2, store.Counters.JournalFullRejections);
    }

    [Theory]
    [MemberData(nameof(Kinds))]
    public void Invalid_writes_are_refused_and_counted(string kind)
    {
        using var store = Open(kind);

        Assert.Equal(StoreWriteStatus.InvalidSequenceNumber, store.Append(0, Message(1)));
        Assert.Equal(StoreWriteStatus.InvalidSequenceNumber, store.Append(-5, Message(1)));
        Assert.Equal(StoreWriteStatus.EmptyMessage, store.Append(1, ReadOnlySpan<byte>.Empty));
        Assert.Equal(StoreWriteStatus.InvalidSequenceNumber, store.SetNextTargetMsgSeqNum(0));
        Assert.Equal(StoreWriteStatus.InvalidSequenceNumber, store.SetNextSenderMsgSeqNum(-1));

        Assert.Equal(5, store.Counters.InvalidWrites);
        Assert.Equal(0, store.MessageCount);
        Assert.Equal(1, store.NextSenderMsgSeqNum);
        Assert.Equal(1, store.NextTargetMsgSeqNum);
    }

    [Theory]
    [MemberData(nameof(Kinds))]
    public void Positions_grow_and_become_durable(string kind)
    {
        using var store = Open(kind);
        long previous = store.WrittenPosition;
        for (int seq = 1; seq <= 50; seq++)
        {
            store.Append(seq, Message(seq));
            Assert.True(store.WrittenPosition > previous);
            previous = store.WrittenPosition;
        }

        Assert.True(store.WaitForDurable(previous, TimeSpan.FromSeconds(10)));
        Assert.True(store.DurablePosition >= previous);
        Assert.True(store.Flush());
        Assert.Equal(store.WrittenPosition, store.DurablePosition);
        Assert.Null(store.Fault);
    }

    [Theory]
    [MemberData(nameof(Kinds))]
    public void A_disposed_store_refuses_use(string kind)
    {
        var store = Open(kind);
        store.Dispose();

        Assert.Throws<ObjectDisposedException>(() => store.Append(1, Message(1)));
        store.Dispose(); // twice is harmless
    }
}
