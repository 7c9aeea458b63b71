using System.Buffers.Binary;
using System.Text;
using RapidFix.Engine.Store;

namespace RapidFix.Persistence.Tests;

/// <summary>
/// The engine's one journal reader (<see cref="JournalReader"/>), which the store's recovery, the matching service
/// and the persister share, against journals the engine's own store writes.
/// </summary>
public sealed class JournalReaderTests : IDisposable
{
    private readonly TempDir _dir = new();

    private string JournalPath => Path.Combine(_dir.Path, "r.journal");

    public void Dispose() => _dir.Dispose();

    private JournalMessageStore OpenStore() => TestJournals.OpenStore(JournalPath);

    private static byte[] M(int i) => TestJournals.M(i);

    private static int MessageRecordSize(int i) => 8 + 1 + 4 + M(i).Length;

    /// <summary>Reads every whole record; returns the messages' numbers and the status that stopped the read.</summary>
    private static (List<int> Seqs, JournalReadStatus Stop) ReadAll(JournalReader reader)
    {
        var seqs = new List<int>();
        JournalReadStatus status;
        while ((status = reader.TryRead(out var record)) == JournalReadStatus.Record)
        {
            if (record.IsMessage)
            {
                seqs.Add(record.SeqNum);
            }
        }

        return (seqs, status);
    }

    private void WriteJournal(int messages)
    {
        using var store = OpenStore();
        for (int i = 1; i <= messages; i++)
        {
            Assert.Equal(StoreWriteStatus.Ok, store.Append(i, M(i)));
        }
    }

    [Fact]
    public void Reads_every_record_of_a_journal_with_its_generation_number_and_message()
    {
        WriteJournal(3);
        using var reader = JournalReader.OpenShared(JournalPath)!;
        Assert.Equal(JournalReadStatus.Record, reader.TryRead(out var first));
        Assert.True(first.IsGeneration);
        Assert.Equal(1L, first.GenerationNumber);
        Assert.Equal(1L, reader.Generation);
        Assert.Equal(JournalReadStatus.Record, reader.TryRead(out var message));
        Assert.True(message.IsMessage);
        Assert.Equal(1, message.SeqNum);
        Assert.Equal("message 1", Encoding.ASCII.GetString(message.Message));
        var (seqs, stop) = ReadAll(reader);
        Assert.Equal([2, 3], seqs);
        Assert.Equal(JournalReadStatus.End, stop);
        Assert.Equal(new FileInfo(JournalPath).Length, reader.Offset);
    }

    [Fact]
    public void A_torn_record_stops_the_read_before_it_and_is_read_once_the_writer_finishes_it()
    {
        WriteJournal(2);
        byte[] whole = File.ReadAllBytes(JournalPath);
        int lastRecord = whole.Length - MessageRecordSize(2);
        File.WriteAllBytes(JournalPath, whole[..(lastRecord + 10)]);

        using var reader = JournalReader.OpenShared(JournalPath)!;
        var (seqs, stop) = ReadAll(reader);
        Assert.Equal([1], seqs);
        Assert.Equal(JournalReadStatus.Incomplete, stop);
        Assert.Equal(lastRecord, reader.Offset);
        Assert.Equal(JournalReadStatus.Incomplete, reader.TryRead(out _)); // nothing moves while it stays torn

        using (var file = new FileStream(JournalPath, FileMode.Append))
        {
            file.Write(whole.AsSpan(lastRecord + 10));
        }

        Assert.Equal([2], ReadAll(reader).Seqs);
    }

    [Fact]
    public void A_record_larger_than_the_readers_window_is_read_whole_between_small_ones()
    {
        // The reader reads the file through a window of 256 KB; a larger record grows it.
        var large = new byte[300 * 1024];
        new Random(7).NextBytes(large);
        using (var store = JournalMessageStore.Open(new JournalOptions { FilePath = JournalPath, FlushPolicy = FlushPolicy.EveryMessage, MaxMessages = 10, MaxBytes = 1 << 21 }, DateTime.UtcNow))
        {
            Assert.Equal(StoreWriteStatus.Ok, store.Append(1, M(1)));
            Assert.Equal(StoreWriteStatus.Ok, store.Append(2, large));
            Assert.Equal(StoreWriteStatus.Ok, store.Append(3, M(3)));
        }

        using var reader = JournalReader.OpenShared(JournalPath)!;
        var messages = new List<byte[]>();
        while (reader.TryRead(out var record) == JournalReadStatus.Record)
        {
            if (record.IsMessage)
            {
                messages.Add(record.Message.ToArray());
            }
        }

        Assert.Equal(3, messages.Count);
        Assert.Equal(M(1), messages[0]);
        Assert.Equal(large, messages[1]);
        Assert.Equal(M(3), messages[2]);
        Assert.Equal(new FileInfo(JournalPath).Length, reader.Offset);
    }

    [Fact]
    public void A_record_whose_crc_does_not_match_is_not_delivered_and_the_store_cuts_the_journal_there()
    {
        WriteJournal(3);
        byte[] whole = File.ReadAllBytes(JournalPath);
        int secondMessage = whole.Length - MessageRecordSize(3) - MessageRecordSize(2);
        whole[secondMessage + 8 + 1 + 4] ^= 0x20; // one bit of the payload of message 2
        File.WriteAllBytes(JournalPath, whole);

        using (var reader = JournalReader.OpenShared(JournalPath)!)
        {
            var (seqs, stop) = ReadAll(reader);
            Assert.Equal([1], seqs);
            Assert.Equal(JournalReadStatus.BadCrc, stop);
            Assert.Equal(secondMessage, reader.Offset);
        }

        // The store's recovery reads through the same check: it keeps message 1 only and says why.
        using var store = OpenStore();
        Assert.Equal(2, store.NextSenderMsgSeqNum);
        Assert.Contains("fails its CRC", store.Recovery.TruncationReason, StringComparison.Ordinal);
    }

    [Fact]
    public void Zeros_where_a_record_should_be_are_a_bad_length_not_a_record()
    {
        WriteJournal(1);
        using (var file = new FileStream(JournalPath, FileMode.Append))
        {
            file.Write(new byte[32]); // preallocated, never written
        }

        using var reader = JournalReader.OpenShared(JournalPath)!;
        var (seqs, stop) = ReadAll(reader);
        Assert.Equal([1], seqs);
        Assert.Equal(JournalReadStatus.BadLength, stop);
    }

    [Fact]
    public void Follows_a_journal_that_grows_while_it_is_read_without_blocking_its_exclusive_writer()
    {
        using var store = OpenStore();
        Assert.Equal(StoreWriteStatus.Ok, store.Append(1, M(1)));
        using var reader = JournalReader.OpenShared(JournalPath)!;
        Assert.Equal([1], ReadAll(reader).Seqs);
        Assert.Equal(JournalReadStatus.End, reader.TryRead(out _));

        int lastRead = 1;
        for (int i = 2; i <= 50; i++)
        {
            Assert.Equal(StoreWriteStatus.Ok, store.Append(i, M(i)));
            if (i % 7 == 0)
            {
                Assert.Equal(Enumerable.Range(lastRead + 1, i - lastRead), ReadAll(reader).Seqs); // exactly what was appended since the last read
                lastRead = i;
            }
        }

        var rest = ReadAll(reader);
        Assert.Equal([50], rest.Seqs); // 43..49 were read at 49
        Assert.Equal(JournalReadStatus.End, rest.Stop);
        Assert.True(store.Flush());
    }

    [Fact]
    public void A_missing_or_half_created_file_is_not_open_yet_and_a_foreign_file_is_refused()
    {
        Assert.Null(JournalReader.OpenShared(JournalPath));
        File.WriteAllBytes(JournalPath, "RFXJ"u8.ToArray());
        Assert.Null(JournalReader.OpenShared(JournalPath));
        File.WriteAllText(JournalPath, "not a journal at all");
        Assert.Throws<InvalidDataException>(() => JournalReader.OpenShared(JournalPath));
    }

    [Fact]
    public void A_sender_record_round_trips_and_a_short_one_is_refused()
    {
        var buffer = new byte[SenderRecord.SizeOf(5, 9)];
        int length = SenderRecord.Write(buffer, "BROKR"u8, 7, "8=FIX.4.4"u8);
        Assert.Equal(buffer.Length, length);
        Assert.True(SenderRecord.TryDecode(buffer, out var sender, out long generation, out var message));
        Assert.Equal("BROKR", Encoding.ASCII.GetString(sender));
        Assert.Equal(7L, generation);
        Assert.Equal("8=FIX.4.4", Encoding.ASCII.GetString(message));
        Assert.Equal(7L, BinaryPrimitives.ReadInt64LittleEndian(buffer.AsSpan(6))); // the documented layout

        Assert.Equal(0, SenderRecord.Write(buffer.AsSpan(0, length - 1), "BROKR"u8, 7, "8=FIX.4.4"u8));
        Assert.Equal(0, SenderRecord.Write(new byte[600], new byte[256], 1, default));
        Assert.False(SenderRecord.TryDecode(buffer.AsSpan(0, 1 + 5 + 7), out _, out _, out _));
    }
}
