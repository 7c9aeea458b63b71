using RapidFix.Engine.Store;
using static RapidFix.Engine.Tests.Store.StoreTestData;

namespace RapidFix.Engine.Tests.Store;

/// <summary>
/// The journal store's write window (issue 13): only the journal's last StoreWindowBytes are in memory, older messages
/// are served from the file, and a generation many windows long reads back byte for byte, across restarts too.
/// </summary>
public sealed class StoreWindowTests : IDisposable
{
    private const int Window = 64 << 10;
    private readonly TempDirectory _directory = new();

    public void Dispose() => _directory.Dispose();

    private string PathOf(string name = "window.journal") => _directory.File(name);

    private JournalMessageStore Open(FlushPolicy policy = FlushPolicy.GroupCommit, int window = Window, int maxMessages = 1_000_000, string? path = null) =>
        JournalMessageStore.Open(new JournalOptions
        {
            FilePath = path ?? PathOf(),
            FlushPolicy = policy,
            MaxMessages = maxMessages,
            MaxGenerationBytes = 1L << 30,
            WindowBytes = window,
        }, Created);

    private static List<(int SeqNum, byte[] Bytes)> Read(IMessageStore store, int begin, int end)
    {
        var handler = CollectingHandler.Create();
        int count = store.ReadRange(begin, end, ref handler);
        Assert.Equal(handler.Messages.Count, count);
        return handler.Messages;
    }

    /// <summary>Appends messages first..last, each followed by a target update (records the scan must skip).</summary>
    private static void Fill(IMessageStore store, int first, int last)
    {
        for (int seq = first; seq <= last; seq++)
        {
            Assert.Equal(StoreWriteStatus.Ok, store.Append(seq, Message(seq)));
            Assert.Equal(StoreWriteStatus.Ok, store.SetNextTargetMsgSeqNum(seq + 1));
        }
    }

    private static void AssertRange(IMessageStore store, int begin, int end, IEnumerable<int> expected)
    {
        var messages = Read(store, begin, end);
        Assert.Equal(expected, messages.Select(m => m.SeqNum));
        Assert.All(messages, m => Assert.Equal(Message(m.SeqNum), m.Bytes));
    }

    [Theory]
    [InlineData(FlushPolicy.GroupCommit)]
    [InlineData(FlushPolicy.EveryMessage)]
    [InlineData(FlushPolicy.OsOnly)]
    public void Old_ranges_come_from_the_file_recent_ones_from_memory_byte_for_byte(FlushPolicy policy)
    {
        using var store = Open(policy);
        Fill(store, 1, 10_000);

        // Fifteen windows and more: the index holds the last 1,024 messages, the window about 500.
        Assert.Equal(Window, store.WindowBytes);
        Assert.Equal(1024, store.IndexCapacity);
        Assert.True(store.WrittenPosition > 15L * Window, $"only {store.WrittenPosition} bytes written");
        Assert.Equal(10_000, store.MessageCount);
        Assert.Equal(10_001, store.NextSenderMsgSeqNum);
        Assert.Equal(10_001, store.NextTargetMsgSeqNum);

        AssertRange(store, 1, 0, Enumerable.Range(1, 10_000));           // everything: file scan, index, window
        AssertRange(store, 100, 200, Enumerable.Range(100, 101));         // old: checkpoints and the file
        AssertRange(store, 8500, 9200, Enumerable.Range(8500, 701));      // from the file scan into the index
        AssertRange(store, 9000, 9300, Enumerable.Range(9000, 301));      // indexed, bytes in the file
        AssertRange(store, 9900, 10_000, Enumerable.Range(9900, 101));    // the window
        AssertRange(store, 9000, 0, Enumerable.Range(9000, 1001));        // across the window's boundary
        AssertRange(store, 1, 1, [1]);
        AssertRange(store, 10_000, 999_999, [10_000]);
        Assert.Empty(Read(store, 10_001, 0));

        // The handler can stop a read from the file.
        var first3 = CollectingHandler.Create(stopAfter: 3);
        Assert.Equal(3, store.ReadRange(10, 0, ref first3));
        Assert.Equal([10, 11, 12], first3.Messages.Select(m => m.SeqNum));
    }

    [Fact]
    public void A_range_is_read_in_pieces_while_another_read_uses_the_buffer_in_between()
    {
        using var store = Open();
        Fill(store, 1, 20_000); // about 4 MiB: far more than the window and the read buffer

        // The session reads the store inside a resend (the deferred batch): an enumeration must survive it.
        int expected = 1;
        foreach (var message in store.GetRange(1, 0))
        {
            Assert.Equal(expected, message.SeqNum);
            Assert.Equal(Message(expected), message.Bytes.ToArray());
            if (expected % 1000 == 0)
            {
                AssertRange(store, 19_990, 20_000, Enumerable.Range(19_990, 11));
                AssertRange(store, 5, 6, [5, 6]);
            }

            expected++;
        }

        Assert.Equal(20_001, expected);
    }

    [Fact]
    public void Gaps_and_replacements_hold_across_the_index_and_the_file_and_after_reopening()
    {
        using (var store = Open())
        {
            Fill(store, 1, 3000);
            store.SetNextSenderMsgSeqNum(3100);      // a gap fill over 3001..3099
            Fill(store, 3100, 4000);

            // Within the index: 3900.. replaced.
            byte[] replacement = "8=FIX.4.4\u000135=0\u000134=3900\u0001"u8.ToArray();
            Assert.Equal(StoreWriteStatus.Ok, store.Append(3900, replacement));
            Assert.Equal(3901, store.NextSenderMsgSeqNum);
            var tail = Read(store, 3898, 0);
            Assert.Equal([3898, 3899, 3900], tail.Select(m => m.SeqNum));
            Assert.Equal(replacement, tail[2].Bytes);

            // Below the index (its oldest message is about 2,900 now): the dropped ones are in the file only.
            Assert.Equal(StoreWriteStatus.Ok, store.Append(500, Message(500)));
            Assert.Equal(500, store.MessageCount);
            Fill(store, 501, 1500);                   // the replaced range goes on, past what the file held before
            Assert.Equal(1500, store.MessageCount);
            AssertRange(store, 1, 0, Enumerable.Range(1, 1500));
            AssertRange(store, 400, 700, Enumerable.Range(400, 301));
        }

        using var reopened = Open();
        Assert.Equal(1500, reopened.MessageCount);
        Assert.Equal(1501, reopened.NextSenderMsgSeqNum);
        AssertRange(reopened, 1, 0, Enumerable.Range(1, 1500));
        AssertRange(reopened, 2990, 3200, []);
        Assert.Equal(StoreWriteStatus.Ok, reopened.Append(1501, Message(1501)));
        AssertRange(reopened, 1499, 0, [1499, 1500, 1501]);
    }

    [Fact]
    public void A_journal_many_windows_long_recovers_a_torn_tail_and_serves_every_message_from_the_file()
    {
        long lastStart;
        using (var store = Open())
        {
            Fill(store, 1, 5999);
            lastStart = store.WrittenPosition;
            Fill(store, 6000, 6000);
        }

        long length = new FileInfo(PathOf()).Length;
        Assert.True(length > 10L * Window);
        using (var stream = new FileStream(PathOf(), FileMode.Open))
        {
            stream.SetLength(lastStart + 11); // the last message torn
        }

        using (var reopened = Open())
        {
            Assert.Equal(11, reopened.Recovery.TruncatedBytes);
            Assert.NotNull(reopened.Recovery.TruncationReason);
            Assert.Equal(5999, reopened.Recovery.MessagesRecovered);
            Assert.Equal(6000, reopened.NextSenderMsgSeqNum);
            Assert.Equal(6000, reopened.NextTargetMsgSeqNum);
            Assert.Equal(lastStart, reopened.WrittenPosition);
            AssertRange(reopened, 1, 0, Enumerable.Range(1, 5999));
            Fill(reopened, 6000, 7000);
            AssertRange(reopened, 5990, 6010, Enumerable.Range(5990, 21));
        }

        // Another window (and so another index size) than the journal was written with reads it the same.
        using var other = Open(window: 1 << 17);
        AssertRange(other, 1, 0, Enumerable.Range(1, 7000));
    }

    [Fact]
    public void Reset_after_many_windows_starts_a_generation_and_reopening_compacts_the_old_one_away()
    {
        var resetTime = Created.AddDays(1);
        using (var store = Open())
        {
            Fill(store, 1, 6000);
            Assert.Equal(StoreWriteStatus.Ok, store.Reset(resetTime));
            Assert.Empty(Read(store, 1, 0));
            Fill(store, 1, 2000); // longer than the window too
            AssertRange(store, 1, 0, Enumerable.Range(1, 2000));
        }

        using var reopened = Open();
        Assert.Equal(2, reopened.Generation);
        Assert.Equal(resetTime, reopened.CreationTimeUtc);
        Assert.True(reopened.Recovery.CompactedBytes > 10L * Window);
        Assert.Equal(reopened.WrittenPosition, new FileInfo(PathOf()).Length);
        AssertRange(reopened, 1, 0, Enumerable.Range(1, 2000));
        AssertRange(reopened, 1990, 0, Enumerable.Range(1990, 11));
        Fill(reopened, 2001, 2100);
        AssertRange(reopened, 1, 0, Enumerable.Range(1, 2100));
    }

    [Fact]
    public void An_append_that_finds_the_window_full_waits_for_the_disk_and_nothing_is_lost()
    {
        using var store = Open(FlushPolicy.GroupCommit);
        var message = new byte[1000];
        Message(7).CopyTo(message, 0);
        for (int seq = 1; seq <= 20_000; seq++)
        {
            Assert.Equal(StoreWriteStatus.Ok, store.Append(seq, message));
        }

        // 20 MB through a 64 KiB window: the appends outran the fsyncs and waited for room, never overwrote.
        Assert.True(store.WindowWaits > 0);
        Assert.Equal(0, store.Counters.JournalFullRejections);
        Assert.True(store.Flush());
        Assert.Equal(20_000, Read(store, 1, 0).Count);
        Assert.All(Read(store, 1, 0), m => Assert.Equal(message, m.Bytes));
    }

    [Fact]
    public void The_generation_bound_and_the_count_bound_still_refuse_counted()
    {
        using var store = JournalMessageStore.Open(new JournalOptions
        {
            FilePath = PathOf(),
            MaxMessages = 2000,
            MaxGenerationBytes = 200_000,
            WindowBytes = Window,
        }, Created);
        int seq = 1;
        while (store.Append(seq, Message(seq)) == StoreWriteStatus.Ok)
        {
            seq++;
        }

        Assert.Equal(1, store.Counters.JournalFullRejections);
        Assert.True(store.WrittenPosition <= 200_000 + JournalFormat.FileHeaderSize);
        Assert.True(store.WrittenPosition > 3 * Window);
        Assert.Equal(seq - 1, store.MessageCount);
        AssertRange(store, 1, 0, Enumerable.Range(1, seq - 1));

        Assert.Equal(StoreWriteStatus.Ok, store.Reset(Created));
        for (int i = 1; i <= 2000; i++)
        {
            Assert.Equal(StoreWriteStatus.Ok, store.Append(i, "8=FIX.4.4\u000135=0\u0001"u8));
        }

        Assert.Equal(StoreWriteStatus.IndexFull, store.Append(2001, "8=FIX.4.4\u000135=0\u0001"u8));
        Assert.Equal(1, store.Counters.IndexFullRejections);
        Assert.Equal(StoreWriteStatus.Ok, store.Append(1500, "8=FIX.4.4\u000135=1\u0001"u8)); // a replacement still fits
        Assert.Equal(1500, store.MessageCount);
    }

    [Fact]
    public void Opening_from_settings_takes_the_window_and_a_generation_larger_than_two_gigabytes()
    {
        string text = $"[DEFAULT]\nConnectionType=acceptor\nSocketAcceptPort=1\nFileStorePath={_directory.Path}\nStoreMaxBytes=40000000000\nStoreWindowBytes=131072\n[SESSION]\nBeginString=FIX.4.4\nSenderCompID=ISLD\nTargetCompID=TW\n[SESSION]\nBeginString=FIX.4.2\nSenderCompID=ISLD\nTargetCompID=TW\nStoreType=express\n";
        var file = RapidFix.Engine.Configuration.SettingsFile.Parse(text);

        var options = MessageStoreFactory.JournalOptions(file.Sessions[0]);
        Assert.Equal(40_000_000_000, options.MaxGenerationBytes);
        Assert.Equal(131072, options.WindowBytes);
        using var journal = Assert.IsType<JournalMessageStore>(MessageStoreFactory.Open(file.Sessions[0], Created));
        Assert.Equal(131072, journal.WindowBytes);

        // The express store holds its generation in one array: a bound it cannot allocate is a settings error.
        var error = Assert.Throws<RapidFix.Engine.Configuration.ConfigurationException>(() => MessageStoreFactory.Open(file.Sessions[1], Created));
        Assert.Equal("StoreMaxBytes", error.Key);
    }
}
