using System.Text;
using RapidFix.Engine.Store;

namespace RapidFix.Persistence.Tests;

/// <summary>The read-only tail of the engine's journal format, against journals the engine's own store writes.</summary>
public sealed class JournalTailTests : IDisposable
{
    private readonly TempDir _dir = new();

    private string JournalPath => Path.Combine(_dir.Path, "s.journal");

    public void Dispose() => _dir.Dispose();

    private JournalMessageStore OpenStore() => TestJournals.OpenStore(JournalPath);

    private static byte[] M(int i) => TestJournals.M(i);

    private static List<JournalRecord> ReadAll(JournalTail tail)
    {
        var records = new List<JournalRecord>();
        while (tail.Poll(records, 1000) > 0)
        {
        }

        return records;
    }

    [Fact]
    public void Reads_a_journal_the_service_holds_open_and_exclusively_locked_and_follows_its_growth()
    {
        using var store = OpenStore();
        for (int i = 1; i <= 3; i++)
        {
            Assert.Equal(StoreWriteStatus.Ok, store.Append(i, M(i)));
        }

        using var tail = new JournalTail(JournalPath);
        var first = ReadAll(tail);
        Assert.Equal([1, 2, 3], first.Select(r => r.Seq));
        Assert.Equal("message 2", Encoding.ASCII.GetString(first[1].Payload.Span));

        Assert.Equal(StoreWriteStatus.Ok, store.Append(4, M(4)));
        var next = ReadAll(tail);
        Assert.Equal([4], next.Select(r => r.Seq));
        Assert.Equal((1L, 4), tail.Position);

        // The writer can still append: the tail takes no lock.
        Assert.Equal(StoreWriteStatus.Ok, store.Append(5, M(5)));
        Assert.True(store.Flush());
    }

    [Fact]
    public void A_record_still_being_written_is_not_delivered_until_it_is_whole()
    {
        using (var store = OpenStore())
        {
            Assert.Equal(StoreWriteStatus.Ok, store.Append(1, M(1)));
            Assert.Equal(StoreWriteStatus.Ok, store.Append(2, M(2)));
        }

        byte[] whole = File.ReadAllBytes(JournalPath);
        int lastRecord = whole.Length - (8 + 1 + 4 + M(2).Length);
        File.WriteAllBytes(JournalPath, whole[..(lastRecord + 10)]); // the second record torn

        using var tail = new JournalTail(JournalPath);
        Assert.Equal([1], ReadAll(tail).Select(r => r.Seq));
        using (var file = new FileStream(JournalPath, FileMode.Append))
        {
            file.Write(whole.AsSpan(lastRecord + 10)); // the writer finishes it
        }

        Assert.Equal([2], ReadAll(tail).Select(r => r.Seq));
    }

    [Fact]
    public void Resumes_after_a_committed_position_and_survives_the_compaction_of_a_restart()
    {
        using (var store = OpenStore())
        {
            for (int i = 1; i <= 3; i++)
            {
                Assert.Equal(StoreWriteStatus.Ok, store.Append(i, M(i)));
            }
        }

        using var tail = new JournalTail(JournalPath, generation: 1, seq: 2);
        Assert.Equal([3], ReadAll(tail).Select(r => r.Seq));

        // A new generation, then a restart: the store rewrites the file (another inode) with only generation 2.
        using (var store = OpenStore())
        {
            Assert.Equal(StoreWriteStatus.Ok, store.Reset(DateTime.UtcNow));
            Assert.Equal(StoreWriteStatus.Ok, store.Append(1, M(11)));
        }

        using (var store = OpenStore())
        {
            Assert.True(store.Recovery.CompactedBytes > 0, "the restart compacted the journal");
            Assert.Equal(StoreWriteStatus.Ok, store.Append(2, M(12)));
            Assert.True(store.Flush());
        }

        var after = ReadAll(tail);
        Assert.Equal([(2L, 1), (2L, 2)], after.Select(r => (r.Generation, r.Seq)));
        Assert.Equal("message 12", Encoding.ASCII.GetString(after[1].Payload.Span));
        Assert.True(tail.Reopens >= 1);
    }

    [Fact]
    public void Reads_an_input_journal_written_through_a_window_smaller_than_the_file_and_resumes_after_a_restart()
    {
        // The matching service's input journal keeps a write window in memory, not the file: the tail reads the file.
        var options = new JournalAppenderOptions { FilePath = JournalPath, FlushPolicy = FlushPolicy.GroupCommit, WindowBytes = 64 << 10, MaxMessageBytes = 1024 };
        using (var journal = JournalAppender.Open(options, DateTime.UtcNow))
        {
            for (int i = 1; i <= 3000; i++)
            {
                Assert.Equal(StoreWriteStatus.Ok, journal.Append(i, Big(i)));
                if (i % 100 == 0)
                {
                    Assert.True(journal.WaitForDurable(journal.WrittenPosition, TimeSpan.FromSeconds(30)));
                }
            }

            Assert.True(journal.Flush());
            Assert.True(new FileInfo(JournalPath).Length > 8 * options.WindowBytes);
        }

        List<JournalRecord> first;
        using (var tail = new JournalTail(JournalPath))
        {
            first = ReadAll(tail);
        }

        Assert.Equal(Enumerable.Range(1, 3000), first.Select(r => r.Seq));
        Assert.Equal(Big(2345), first[2344].Payload.ToArray());

        // The writer restarts (recovery reads the file, nothing compacted) and appends on; a tail resuming after
        // the committed position gets only what follows it: exactly once.
        using (var journal = JournalAppender.Open(options, DateTime.UtcNow))
        {
            Assert.Equal(3001, journal.NextSeqNum);
            Assert.Equal(0, journal.Recovery.CompactedBytes);
            Assert.Equal(StoreWriteStatus.Ok, journal.Append(3001, Big(3001)));
            Assert.True(journal.Flush());
        }

        using var resumed = new JournalTail(JournalPath, generation: 1, seq: 2999);
        Assert.Equal([3000, 3001], ReadAll(resumed).Select(r => r.Seq));
    }

    // "message i" padded to 400 bytes, the size of an input.
    private static byte[] Big(int i) => Encoding.ASCII.GetBytes($"message {i} ".PadRight(400, 'x'));

    [Fact]
    public void A_file_that_is_not_a_journal_is_refused()
    {
        File.WriteAllText(JournalPath, "not a journal at all");
        using var tail = new JournalTail(JournalPath);
        Assert.Throws<InvalidDataException>(() => tail.Poll([], 10));
    }
}
