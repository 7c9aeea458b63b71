using System.Globalization;
using RapidFix.Engine.Store;
using RapidFix.Tests.Shared;

namespace RapidFix.MatchingService.Tests;

/// <summary>
/// The input journal keeps only a write window in memory (docs/store.md "The input journal's write window"): it
/// appends through many times the window's bytes with resident memory flat, the file holds every record in the
/// journal format (what recovery and the persister read), a torn tail is cut at the next open, and an append
/// allocates nothing, wrapping the window included. Not run beside other tests: resident memory is process-wide.
/// </summary>
[Collection(nameof(JournalMemory))]
public sealed class InputJournalWindowTests : IDisposable
{
    private const int Window = 4 << 20;
    private const int MaxMessage = 4096;
    private readonly string _work = Path.Combine(Path.GetTempPath(), "rapidfix-window-" + Guid.NewGuid().ToString("N"));

    public void Dispose()
    {
        if (Directory.Exists(_work))
        {
            Directory.Delete(_work, recursive: true);
        }
    }

    [Fact]
    public void Appending_ten_windows_of_inputs_keeps_resident_memory_flat_and_the_file_whole()
    {
        string path = Path.Combine(_work, "input.journal");
        var message = Message(700);
        int count;
        using (var journal = InputJournal.Open(path, FlushPolicy.GroupCommit, 1_000_000, Window, MaxMessage))
        {
            Assert.Equal(20261123, journal.BusinessDate(20261123));
            // One window's worth first (every page the journal will use is in memory), then ten more.
            AppendDurably(journal, message, Window);
            long before = ResidentBytes();
            long beforeFile = new FileInfo(path).Length;
            AppendDurably(journal, message, 10L * Window);
            long after = ResidentBytes();
            long grown = new FileInfo(path).Length - beforeFile;

            Assert.True(grown >= 10L * Window, $"the file grew {grown} bytes");
            // The old journal kept the whole file in memory: 40 MiB more. The window keeps it flat (4 MiB of slack
            // for the runtime's own pages).
            Assert.True(after - before < 4 << 20, $"resident memory grew {(after - before) >> 10} KiB while the journal file grew {grown >> 10} KiB");
            Assert.Equal(0, journal.Counters.JournalFullRejections);
            count = journal.Count;
        }

        // The file is the journal format, every record whole, in order: what recovery and the persister read.
        using var reader = JournalReader.OpenShared(path)!;
        int seq = 0;
        while (reader.TryRead(out var record) == JournalReadStatus.Record)
        {
            if (!record.IsMessage)
            {
                continue;
            }

            Assert.Equal(++seq, record.SeqNum);
            Assert.True(InputJournal.TryDecode(record.Message, out var sender, out _, out var bytes));
            if (seq > 1)
            {
                Assert.Equal("IM1"u8.ToArray(), sender.ToArray());
                Assert.Equal(message, bytes.ToArray());
            }
        }

        Assert.Equal(new FileInfo(path).Length, reader.Offset);
        Assert.Equal(count + 1, seq);
    }

    [Fact]
    public void A_restart_reads_a_file_larger_than_the_window_and_cuts_a_torn_tail()
    {
        string path = Path.Combine(_work, "input.journal");
        var message = Message(700);
        long durableEnd;
        int count;
        using (var journal = InputJournal.Open(path, FlushPolicy.GroupCommit, 1_000_000, Window, MaxMessage))
        {
            journal.BusinessDate(20261123);
            AppendDurably(journal, message, 3L * Window);
            durableEnd = journal.DurablePosition;
            count = journal.Count;
        }

        // A torn write: half a record's bytes after the last whole one (as a crash mid-write leaves).
        using (var file = new FileStream(path, FileMode.Append))
        {
            file.Write(new byte[] { 200, 3, 0, 0, 1, 2, 3, 4, 2, 9, 9 });
        }

        using (var journal = InputJournal.Open(path, FlushPolicy.GroupCommit, 1_000_000, Window, MaxMessage))
        {
            Assert.Equal(11, journal.Recovery.TruncatedBytes);
            Assert.NotNull(journal.Recovery.TruncationReason);
            Assert.Equal(durableEnd, new FileInfo(path).Length);
            Assert.Equal(count, journal.Count);
            Assert.Equal(20261123, journal.BusinessDate(0));

            // Every input is read back from the file (the window holds none of them now), then appends go on after them.
            int read = 0;
            using (var reader = journal.OpenRecovered())
            {
                while (reader.TryRead(out var record) == JournalReadStatus.Record)
                {
                    if (record.IsMessage && record.SeqNum >= 2)
                    {
                        Assert.True(InputJournal.TryDecode(record.Message, out _, out _, out var bytes));
                        Assert.Equal(message, bytes.ToArray());
                        read++;
                    }
                }

                Assert.Equal(durableEnd, reader.Offset);
            }

            Assert.Equal(count, read);
            Assert.Equal(StoreWriteStatus.Ok, journal.Append("IM2"u8, 1, message));
            Assert.True(journal.Flush());
            Assert.Equal(count + 1, journal.Count);
        }

        using (var journal = InputJournal.Open(path, FlushPolicy.GroupCommit, 1_000_000, Window, MaxMessage))
        {
            Assert.Equal(0, journal.Recovery.TruncatedBytes);
            Assert.Equal(count + 1, journal.Count);
        }
    }

    [Fact]
    public void A_journal_refuses_inputs_past_its_count_and_a_window_smaller_than_one_input()
    {
        string path = Path.Combine(_work, "input.journal");
        using (var journal = InputJournal.Open(path, FlushPolicy.GroupCommit, 3, Window, MaxMessage))
        {
            journal.BusinessDate(20261123);
            Assert.Equal(StoreWriteStatus.Ok, journal.Append("IM1"u8, 1, Message(100)));
            Assert.Equal(StoreWriteStatus.Ok, journal.Append("IM1"u8, 1, Message(100)));
            Assert.Equal(StoreWriteStatus.IndexFull, journal.Append("IM1"u8, 1, Message(100)));
            Assert.Equal(1, journal.Counters.IndexFullRejections);
        }

        Assert.Throws<RapidFix.Engine.Configuration.ConfigurationException>(() =>
            InputJournal.Open(Path.Combine(_work, "small.journal"), FlushPolicy.GroupCommit, 10, 4096, MaxMessage));
    }

    [Fact]
    public void Appending_allocates_nothing_wrapping_the_window_included()
    {
        using var journal = InputJournal.Open(Path.Combine(_work, "input.journal"), FlushPolicy.GroupCommit, int.MaxValue, 1 << 20, MaxMessage);
        journal.BusinessDate(20261123);
        var message = Message(700);
        var state = (journal, message, appended: new long[1]);
        // 30,000 appends of ~730 bytes: the 1 MiB window wraps about twenty times; every 256th waits for the disk.
        long bytes = Allocations.Measure(state, static s =>
        {
            if (s.journal.Append("IM1"u8, 7, s.message) != StoreWriteStatus.Ok)
            {
                throw new InvalidOperationException("append refused"); // not Assert: it allocates
            }

            if (++s.appended[0] % 256 == 0 && !s.journal.WaitForDurable(s.journal.WrittenPosition, TimeSpan.FromSeconds(30)))
            {
                throw new InvalidOperationException("not durable");
            }
        }, iterations: 30_000);
        Assert.Equal(0, bytes);
        Assert.True(journal.Flush());
        Assert.Equal(0, journal.Counters.FlusherAllocatedBytes);
        Assert.True(journal.WrittenPosition > 20L << 20, $"{journal.WrittenPosition}");
    }

    [Fact]
    public void The_window_the_input_ring_and_an_answer_queue_are_resident_from_startup()
    {
        // Committed when made (every page touched), not on their first pass in the continuous phase: every page of each
        // buffer is resident (mincore) right after it is made. Without the touch a fresh array's pages are not.
        const int Size = 32 << 20;
        using var journal = InputJournal.Open(Path.Combine(_work, "input.journal"), FlushPolicy.GroupCommit, 100, Size, MaxMessage);
        var ring = new InputRing(Size);
        var queue = new OutputQueue(Size, 1000);

        Assert.Equal(1.0, ResidentFraction(Field<byte[]>(Field<JournalAppender>(journal, "_store"), "_window")));
        Assert.Equal(1.0, ResidentFraction(ring.Buffer));
        Assert.Equal(1.0, ResidentFraction(Field<byte[]>(queue, "_bytes")));
    }

    private static T Field<T>(object owner, string name) =>
        (T)owner.GetType().GetField(name, System.Reflection.BindingFlags.NonPublic | System.Reflection.BindingFlags.Instance)!.GetValue(owner)!;

    // The fraction of the whole pages of a (pinned) array the kernel holds resident, from mincore(2).
    private static double ResidentFraction(byte[] array)
    {
        var handle = System.Runtime.InteropServices.GCHandle.Alloc(array, System.Runtime.InteropServices.GCHandleType.Pinned);
        try
        {
            long page = Environment.SystemPageSize;
            long start = (handle.AddrOfPinnedObject().ToInt64() + page - 1) & ~(page - 1);
            long end = (handle.AddrOfPinnedObject().ToInt64() + array.Length) & ~(page - 1);
            var vector = new byte[(end - start) / page];
            Assert.Equal(0, MinCore((IntPtr)start, (UIntPtr)(ulong)(end - start), vector));
            return vector.Count(v => (v & 1) != 0) / (double)vector.Length;
        }
        finally
        {
            handle.Free();
        }
    }

    [System.Runtime.InteropServices.DllImport("libc", EntryPoint = "mincore", SetLastError = true)]
    private static extern int MinCore(IntPtr address, UIntPtr length, byte[] vector);

    // Appends inputs until `bytes` more are in the journal, waiting for the disk each quarter window (as the matcher
    // waits before it answers), so the window never refuses one.
    private static void AppendDurably(InputJournal journal, byte[] message, long bytes)
    {
        long end = journal.WrittenPosition + bytes;
        long nextWait = journal.WrittenPosition + (Window / 4);
        while (journal.WrittenPosition < end)
        {
            // Checks without Assert: the loop allocates nothing, so the managed heap does not grow while memory is measured.
            if (journal.Append("IM1"u8, 1, message) != StoreWriteStatus.Ok)
            {
                throw new InvalidOperationException("append refused");
            }

            if (journal.WrittenPosition >= nextWait)
            {
                if (!journal.WaitForDurable(journal.WrittenPosition, TimeSpan.FromSeconds(30)))
                {
                    throw new InvalidOperationException("not durable");
                }

                nextWait = journal.WrittenPosition + (Window / 4);
            }
        }

        Assert.True(journal.Flush());
    }

    private static byte[] Message(int length)
    {
        var bytes = new byte[length];
        for (int i = 0; i < bytes.Length; i++)
        {
            bytes[i] = (byte)('A' + (i % 26));
        }

        return bytes;
    }

    // VmRSS of this process, from /proc/self/statm (resident pages).
    private static long ResidentBytes()
    {
        string[] fields = File.ReadAllText("/proc/self/statm").Split(' ');
        return long.Parse(fields[1], CultureInfo.InvariantCulture) * Environment.SystemPageSize;
    }
}

/// <summary>Tests that measure the process's resident memory: run alone.</summary>
[CollectionDefinition(nameof(JournalMemory), DisableParallelization = true)]
public sealed class JournalMemory;
