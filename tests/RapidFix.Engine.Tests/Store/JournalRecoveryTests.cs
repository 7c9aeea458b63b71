using System.Buffers.Binary;
using RapidFix.Engine.Store;
using static RapidFix.Engine.Tests.Store.StoreTestData;

namespace RapidFix.Engine.Tests.Store;

public sealed class JournalRecoveryTests : IDisposable
{
    private readonly TempDirectory _directory = new();

    public void Dispose() => _directory.Dispose();

    private string PathOf(string name = "session.journal") => _directory.File(name);

    private JournalMessageStore Open(string? path = null, FlushPolicy policy = FlushPolicy.GroupCommit, int maxMessages = 10_000, int maxBytes = 4 << 20) =>
        JournalMessageStore.Open(new JournalOptions { FilePath = path ?? PathOf(), FlushPolicy = policy, MaxMessages = maxMessages, MaxBytes = maxBytes }, Created);

    private static List<(int SeqNum, byte[] Bytes)> ReadAll(IMessageStore store)
    {
        var handler = CollectingHandler.Create();
        store.ReadRange(1, 0, ref handler);
        return handler.Messages;
    }

    /// <summary>Writes messages 1..count with target updates, returns the file position after each message record.</summary>
    private static List<long> Fill(IMessageStore store, int count)
    {
        var ends = new List<long>();
        for (int seq = 1; seq <= count; seq++)
        {
            Assert.Equal(StoreWriteStatus.Ok, store.Append(seq, Message(seq)));
            ends.Add(store.WrittenPosition);
        }

        return ends;
    }

    [Theory]
    [InlineData(FlushPolicy.EveryMessage)]
    [InlineData(FlushPolicy.GroupCommit)]
    [InlineData(FlushPolicy.OsOnly)]
    public void State_survives_closing_and_reopening(FlushPolicy policy)
    {
        using (var store = Open(policy: policy))
        {
            Fill(store, 30);
            store.SetNextTargetMsgSeqNum(17);
            store.SetNextSenderMsgSeqNum(35);
        }

        using var reopened = Open(policy: policy);

        Assert.False(reopened.Recovery.Created);
        Assert.Equal(0, reopened.Recovery.TruncatedBytes);
        Assert.Null(reopened.Recovery.TruncationReason);
        Assert.Equal(30, reopened.Recovery.MessagesRecovered);
        Assert.Equal(33, reopened.Recovery.RecordsRead); // generation + 30 messages + 2 sequence records
        Assert.Equal(35, reopened.NextSenderMsgSeqNum);
        Assert.Equal(17, reopened.NextTargetMsgSeqNum);
        Assert.Equal(Created, reopened.CreationTimeUtc);
        Assert.Equal(1, reopened.Generation);
        var messages = ReadAll(reopened);
        Assert.Equal(Enumerable.Range(1, 30), messages.Select(m => m.SeqNum));
        Assert.All(messages, m => Assert.Equal(Message(m.SeqNum), m.Bytes));
        Assert.Equal(new FileInfo(PathOf()).Length, reopened.WrittenPosition);
        Assert.Equal(StoreWriteStatus.Ok, reopened.Append(35, Message(35)));
    }

    [Fact]
    public void A_torn_last_record_is_cut_off_at_every_possible_length()
    {
        List<long> ends;
        using (var store = Open())
        {
            ends = Fill(store, 12);
        }

        byte[] complete = File.ReadAllBytes(PathOf());
        long lastStart = ends[^2];
        Assert.Equal(complete.Length, ends[^1]);

        for (long cut = lastStart; cut < complete.Length; cut++)
        {
            File.WriteAllBytes(PathOf(), complete.AsSpan(0, (int)cut).ToArray());

            using var store = Open();

            Assert.Equal(11, store.MessageCount);
            Assert.Equal(12, store.NextSenderMsgSeqNum);
            Assert.Equal(cut - lastStart, store.Recovery.TruncatedBytes);
            if (cut == lastStart)
            {
                Assert.Null(store.Recovery.TruncationReason);
            }
            else
            {
                Assert.NotNull(store.Recovery.TruncationReason);
            }

            Assert.Equal(lastStart, new FileInfo(PathOf()).Length);
            Assert.Equal(Enumerable.Range(1, 11), ReadAll(store).Select(m => m.SeqNum));
            Assert.All(ReadAll(store), m => Assert.Equal(Message(m.SeqNum), m.Bytes));
        }
    }

    [Fact]
    public void A_corrupted_byte_in_the_last_record_is_detected_by_its_crc()
    {
        List<long> ends;
        using (var store = Open())
        {
            ends = Fill(store, 5);
        }

        byte[] bytes = File.ReadAllBytes(PathOf());
        bytes[(int)ends[^2] + 20] ^= 0x40; // inside message 5's wire bytes
        File.WriteAllBytes(PathOf(), bytes);

        using var reopened = Open();

        Assert.Equal(4, reopened.MessageCount);
        Assert.Contains("fails its CRC", reopened.Recovery.TruncationReason, StringComparison.Ordinal);
        Assert.Equal(ends[^1] - ends[^2], reopened.Recovery.TruncatedBytes);
        Assert.Equal(5, reopened.NextSenderMsgSeqNum);
    }

    [Fact]
    public void A_corrupted_length_is_not_misread_as_a_huge_record()
    {
        List<long> ends;
        using (var store = Open())
        {
            ends = Fill(store, 5);
        }

        byte[] bytes = File.ReadAllBytes(PathOf());
        BinaryPrimitives.WriteUInt32LittleEndian(bytes.AsSpan((int)ends[2]), 0x7FFF_FFF0);
        File.WriteAllBytes(PathOf(), bytes);

        using var reopened = Open();

        Assert.Equal(3, reopened.MessageCount);
        Assert.Contains("claims", reopened.Recovery.TruncationReason, StringComparison.Ordinal);
        Assert.Equal(ends[^1] - ends[2], reopened.Recovery.TruncatedBytes);
    }

    [Fact]
    public void Zeros_after_the_last_record_are_cut_off()
    {
        using (var store = Open())
        {
            Fill(store, 3);
        }

        long length = new FileInfo(PathOf()).Length;
        using (var stream = new FileStream(PathOf(), FileMode.Append))
        {
            stream.Write(new byte[4096]);
        }

        using var reopened = Open();

        Assert.Equal(3, reopened.MessageCount);
        Assert.Equal(4096, reopened.Recovery.TruncatedBytes);
        Assert.Equal(length, new FileInfo(PathOf()).Length);
    }

    [Fact]
    public void A_crash_while_creating_the_journal_begins_a_new_one()
    {
        File.WriteAllBytes(PathOf(), "RFXJ"u8.ToArray());

        using var store = Open();

        Assert.True(store.Recovery.Created);
        Assert.Equal(4, store.Recovery.TruncatedBytes);
        Assert.Equal(1, store.NextSenderMsgSeqNum);
    }

    [Fact]
    public void A_file_that_is_not_a_journal_is_refused_and_left_untouched()
    {
        byte[] foreign = "8=FIX.4.2\u00019=5\u000135=0\u000110=000\u0001"u8.ToArray();
        File.WriteAllBytes(PathOf(), foreign);

        var error = Assert.Throws<StoreException>(() => Open());

        Assert.Contains("not a RapidFix journal", error.Message, StringComparison.Ordinal);
        Assert.Equal(foreign, File.ReadAllBytes(PathOf()));
    }

    [Fact]
    public void Reset_generations_survive_reopening_and_old_ones_are_compacted_away()
    {
        long lengthBeforeReset;
        var resetTime = Created.AddDays(1);
        using (var store = Open())
        {
            Fill(store, 40);
            store.SetNextTargetMsgSeqNum(41);
            Assert.True(store.Flush());
            lengthBeforeReset = new FileInfo(PathOf()).Length;
            Assert.Equal(StoreWriteStatus.Ok, store.Reset(resetTime));
            store.Append(1, Message(501));
            store.Append(2, Message(502));
            store.SetNextTargetMsgSeqNum(3);
        }

        using var reopened = Open();

        Assert.Equal(2, reopened.Generation);
        Assert.Equal(resetTime, reopened.CreationTimeUtc);
        Assert.Equal(3, reopened.NextSenderMsgSeqNum);
        Assert.Equal(3, reopened.NextTargetMsgSeqNum);
        Assert.Equal([Message(501), Message(502)], ReadAll(reopened).Select(m => m.Bytes));
        Assert.Equal(lengthBeforeReset - 8, reopened.Recovery.CompactedBytes);
        Assert.Equal(reopened.WrittenPosition, new FileInfo(PathOf()).Length);
        Assert.True(reopened.WrittenPosition < lengthBeforeReset);
        Assert.False(File.Exists(PathOf() + ".rewrite"));

        // The compacted file is itself a valid journal.
        reopened.Append(3, Message(503));
        reopened.Dispose();
        using var again = Open();
        Assert.Equal([1, 2, 3], ReadAll(again).Select(m => m.SeqNum));
        Assert.Equal(0, again.Recovery.CompactedBytes);
    }

    [Fact]
    public void A_torn_reset_falls_back_to_the_previous_generation()
    {
        List<long> ends;
        long resetStart;
        using (var store = Open())
        {
            ends = Fill(store, 6);
            Assert.True(store.Flush());
            resetStart = store.WrittenPosition;
            store.Reset(Created.AddDays(1));
        }

        byte[] bytes = File.ReadAllBytes(PathOf());
        File.WriteAllBytes(PathOf(), bytes.AsSpan(0, (int)resetStart + 10).ToArray());

        using var reopened = Open();

        Assert.Equal(1, reopened.Generation);
        Assert.Equal(6, reopened.MessageCount);
        Assert.Equal(7, reopened.NextSenderMsgSeqNum);
        Assert.Equal(10, reopened.Recovery.TruncatedBytes);
    }

    [Fact]
    public void A_journal_open_in_another_store_is_refused()
    {
        using var first = Open();

        var error = Assert.Throws<StoreException>(() => Open());

        Assert.Contains("in use by another process", error.Message, StringComparison.Ordinal);
    }

    [Fact]
    public void A_generation_larger_than_the_configured_capacity_is_refused_without_touching_the_file()
    {
        using (var store = Open())
        {
            Fill(store, 100);
        }

        byte[] before = File.ReadAllBytes(PathOf());

        var tooFewMessages = Assert.Throws<StoreException>(() => Open(maxMessages: 50));
        var tooFewBytes = Assert.Throws<StoreException>(() => Open(maxBytes: 4096));

        Assert.Contains("StoreMaxMessages=50", tooFewMessages.Message, StringComparison.Ordinal);
        Assert.Contains("StoreMaxBytes=4096", tooFewBytes.Message, StringComparison.Ordinal);
        Assert.Equal(before, File.ReadAllBytes(PathOf()));
        using var fine = Open();
        Assert.Equal(100, fine.MessageCount);
    }

    [Fact]
    public void The_largest_store_opens_with_its_memory_committed_and_takes_a_message()
    {
        // StoreCommitMemory touched the pages with an int index that wrapped negative one page past the end of an
        // array of Array.MaxLength bytes: the matching service died at startup (IndexOutOfRangeException).
        using (var store = JournalMessageStore.Open(new JournalOptions
        {
            FilePath = PathOf(),
            FlushPolicy = FlushPolicy.OsOnly,
            MaxMessages = 1_000,
            MaxBytes = Array.MaxLength,
            WindowBytes = Array.MaxLength, // the window as large as it can be: the same array, touched the same way
            CommitMemory = true,
        }, Created))
        {
            Assert.Equal(StoreWriteStatus.Ok, store.Append(1, Message(1)));
            Assert.True(store.Flush());
        }

        GC.Collect(); // the 2 GiB buffer goes now, not when another test needs the memory
    }

    [Fact]
    public void Group_commit_batches_many_appends_into_fewer_fsyncs()
    {
        using var store = JournalMessageStore.Open(new JournalOptions
        {
            FilePath = PathOf(),
            FlushPolicy = FlushPolicy.GroupCommit,
            MaxBatch = 64,
            MaxDelay = TimeSpan.FromMilliseconds(2),
            MaxMessages = 10_000,
            MaxBytes = 8 << 20,
        }, Created);

        for (int seq = 1; seq <= 2000; seq++)
        {
            store.Append(seq, Message(seq));
        }

        Assert.True(store.Flush());
        var counters = store.Counters;
        Assert.Equal(2000, counters.Appends);
        Assert.True(counters.Fsyncs < 1000, $"{counters.Fsyncs} fsyncs for 2000 appends");
        Assert.Equal(counters.Flushes, counters.Fsyncs);
        Assert.Equal(store.WrittenPosition - 8 - JournalFormat.GenerationRecordSize, counters.FlushedBytes);
        Assert.True(counters.LargestBatchBytes > JournalFormat.MessageRecordSize(Message(1).Length));
    }

    [Fact]
    public void Under_every_message_each_write_is_durable_when_the_call_returns()
    {
        using var store = Open(policy: FlushPolicy.EveryMessage);

        for (int seq = 1; seq <= 20; seq++)
        {
            store.Append(seq, Message(seq));
            Assert.Equal(store.WrittenPosition, store.DurablePosition);
            Assert.Equal(store.WrittenPosition, new FileInfo(PathOf()).Length);
        }

        Assert.Equal(20, store.Counters.Fsyncs);
    }

    [Fact]
    public void Opening_from_settings_uses_the_session_file_name_and_policy()
    {
        string text = $"[DEFAULT]\nConnectionType=acceptor\nSocketAcceptPort=1\nFileStorePath={_directory.Path}\nStoreFlushPolicy=OsOnly\nStoreMaxMessages=500\nStoreMaxBytes=65536\n[SESSION]\nBeginString=FIX.4.4\nSenderCompID=ISLD\nTargetCompID=TW\n[SESSION]\nBeginString=FIX.4.2\nSenderCompID=ISLD\nTargetCompID=TW\nStoreType=express\n";
        var file = RapidFix.Engine.Configuration.SettingsFile.Parse(text);

        using var journal = MessageStoreFactory.Open(file.Sessions[0], Created);
        using var express = MessageStoreFactory.Open(file.Sessions[1], Created);

        var store = Assert.IsType<JournalMessageStore>(journal);
        Assert.Equal(FlushPolicy.OsOnly, store.FlushPolicy);
        Assert.Equal(Path.Combine(_directory.Path, "FIX.4.4-ISLD--TW.journal"), store.FilePath);
        Assert.True(File.Exists(store.FilePath));
        Assert.IsType<MemoryMessageStore>(express);
        var options = MessageStoreFactory.JournalOptions(file.Sessions[0]);
        Assert.Equal(500, options.MaxMessages);
        Assert.Equal(65536, options.MaxBytes);
    }
}
