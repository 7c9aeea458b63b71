using BenchmarkDotNet.Attributes;
using RapidFix.Engine.Store;

namespace RapidFix.Benchmarks.Store;

/// <summary>
/// Message store hot paths: append (express, and journal under group commit) and range reads for resends.
/// Each invocation appends <see cref="Batch"/> messages, so results are per message.
/// </summary>
[MemoryDiagnoser]
public class StoreBenchmarks
{
    private const int Batch = 1000;
    private const int StoredForReads = 10_000;
    private const int StoredInFile = 50_000;

    private readonly byte[] _message = new byte[200];
    private MemoryMessageStore _express = null!;
    private JournalMessageStore _journal = null!;
    private JournalMessageStore _journalForReads = null!;
    private JournalMessageStore _windowed = null!;
    private JournalMessageStore _windowedForReads = null!;
    private int _windowedSeq;
    private JournalAppender _appender = null!;
    private int _appenderSeq;
    private string _directory = null!;
    private int _expressSeq;
    private int _journalSeq;

    [GlobalSetup]
    public void Setup()
    {
        "8=FIX.4.4\u00019=176\u000135=D\u000134=1\u000149=ISLD\u000156=TW\u000111=ORDER-1\u000155=INTC\u000154=1\u000138=100\u000140=2\u000144=12.34\u000110=123\u0001"u8.CopyTo(_message);
        _directory = Path.Combine(Path.GetTempPath(), "rapidfix-bench-" + Guid.NewGuid().ToString("N"));
        var now = DateTime.UtcNow;
        _express = new MemoryMessageStore(1_000_000, 512 << 20, now);
        _journal = JournalMessageStore.Open(new JournalOptions { FilePath = Path.Combine(_directory, "append.journal"), FlushPolicy = FlushPolicy.GroupCommit, MaxMessages = 1_000_000, MaxBytes = 512 << 20 }, now);
        _appender = JournalAppender.Open(new JournalAppenderOptions { FilePath = Path.Combine(_directory, "window.journal"), WindowBytes = 1 << 20, MaxMessageBytes = 4096 }, now);
        _journalForReads = JournalMessageStore.Open(new JournalOptions { FilePath = Path.Combine(_directory, "reads.journal"), MaxMessages = StoredForReads, MaxBytes = 64 << 20 }, now);
        for (int seq = 1; seq <= StoredForReads; seq++)
        {
            _journalForReads.Append(seq, _message);
        }

        // The write window: 1 MiB of journal in memory, the rest in the file (about 10 MiB for the reads' store).
        _windowed = JournalMessageStore.Open(new JournalOptions { FilePath = Path.Combine(_directory, "windowed.journal"), MaxMessages = 1_000_000, MaxBytes = 512 << 20, WindowBytes = 1 << 20, CommitMemory = true }, now);
        _windowedForReads = JournalMessageStore.Open(new JournalOptions { FilePath = Path.Combine(_directory, "windowed-reads.journal"), MaxMessages = 1_000_000, MaxBytes = 512 << 20, WindowBytes = 1 << 20, CommitMemory = true }, now);
        for (int seq = 1; seq <= StoredInFile; seq++)
        {
            _windowedForReads.Append(seq, _message);
            _windowedForReads.SetNextTargetMsgSeqNum(seq + 1);
        }

        _windowedForReads.Flush();
    }

    [GlobalCleanup]
    public void Cleanup()
    {
        _express.Dispose();
        _journal.Dispose();
        _journalForReads.Dispose();
        _windowed.Dispose();
        _windowedForReads.Dispose();
        _appender.Dispose();
        Directory.Delete(_directory, recursive: true);
    }

    [Benchmark(OperationsPerInvoke = Batch)]
    public int ExpressAppend()
    {
        if (_expressSeq > 900_000)
        {
            _express.Reset(DateTime.UnixEpoch);
            _expressSeq = 0;
        }

        for (int i = 0; i < Batch; i++)
        {
            _express.Append(++_expressSeq, _message);
        }

        return _expressSeq;
    }

    /// <summary>Append only: the flusher thread writes and fsyncs in the background.</summary>
    [Benchmark(OperationsPerInvoke = Batch)]
    public int JournalGroupCommitAppend()
    {
        ResetJournalWhenNearlyFull();
        for (int i = 0; i < Batch; i++)
        {
            _journal.Append(++_journalSeq, _message);
        }

        return _journalSeq;
    }

    /// <summary>Append, then wait until the whole batch is on disk (group commit throughput, fsync included).</summary>
    [Benchmark(OperationsPerInvoke = Batch)]
    public bool JournalGroupCommitAppendDurable()
    {
        ResetJournalWhenNearlyFull();
        for (int i = 0; i < Batch; i++)
        {
            _journal.Append(++_journalSeq, _message);
        }

        return _journal.WaitForDurable(_journal.WrittenPosition, Timeout.InfiniteTimeSpan);
    }

    /// <summary>
    /// The input journal's appender (a 1 MiB write window, wrapped every few batches): append a batch, then wait until
    /// it is on disk, which frees its window space.
    /// </summary>
    [Benchmark(OperationsPerInvoke = Batch)]
    public bool AppenderGroupCommitAppendDurable()
    {
        for (int i = 0; i < Batch; i++)
        {
            _appender.Append(++_appenderSeq, _message);
        }

        return _appender.WaitForDurable(_appender.WrittenPosition, Timeout.InfiniteTimeSpan);
    }

    /// <summary>A resend of 100 messages out of 10,000.</summary>
    [Benchmark]
    public long RangeRead100()
    {
        var handler = default(ByteCounter);
        _journalForReads.ReadRange(4_000, 4_099, ref handler);
        return handler.Bytes;
    }

    /// <summary>
    /// The journal store with a 1 MiB write window (wrapped every five batches): append a batch, then wait until it is
    /// on disk, which frees its window space.
    /// </summary>
    [Benchmark(OperationsPerInvoke = Batch)]
    public bool WindowedAppendDurable()
    {
        if (_windowedSeq > 900_000)
        {
            _windowed.Reset(DateTime.UnixEpoch);
            _windowedSeq = 0;
        }

        for (int i = 0; i < Batch; i++)
        {
            _windowed.Append(++_windowedSeq, _message);
        }

        return _windowed.WaitForDurable(_windowed.WrittenPosition, Timeout.InfiniteTimeSpan);
    }

    /// <summary>A resend of 100 messages out of 50,000 that the 1 MiB window no longer holds: checkpoints, then positioned reads of the file.</summary>
    [Benchmark]
    public long RangeRead100FromFile()
    {
        var handler = default(ByteCounter);
        _windowedForReads.ReadRange(4_000, 4_099, ref handler);
        return handler.Bytes;
    }

    private void ResetJournalWhenNearlyFull()
    {
        // 900,000 records of ~213 bytes fit both the index and the 512 MiB generation; Reset waits for one flush.
        if (_journalSeq > 900_000)
        {
            _journal.Reset(DateTime.UnixEpoch);
            _journalSeq = 0;
        }
    }

    private struct ByteCounter : IStoredMessageHandler
    {
        public long Bytes;

        public bool OnMessage(int seqNum, ReadOnlySpan<byte> message)
        {
            Bytes += message.Length;
            return true;
        }
    }
}
