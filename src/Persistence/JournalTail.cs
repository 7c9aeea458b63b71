using RapidFix.Engine.Store;

namespace RapidFix.Persistence;

/// <summary>One message record of a journal: its generation, its number in that generation and its payload.</summary>
public readonly record struct JournalRecord(long Generation, int Seq, ReadOnlyMemory<byte> Payload);

/// <summary>
/// A read-only tail of a RapidFix journal file, on the engine's one reader of the format
/// (<see cref="JournalReader"/>, docs/store.md): it opens the file without a lock (the service that holds its
/// exclusive lock is never blocked), delivers what is whole and passes its CRC, and stops before a record that is
/// not yet whole: the writer may be in the middle of it, so it is read again on the next poll. A file replaced by
/// the service's compaction at startup (a new inode, or a shorter file) is reopened and read from the start;
/// records already delivered are skipped by position (generation, number), which is what the persister commits,
/// never a byte offset.
/// </summary>
public sealed class JournalTail : IDisposable
{
    private readonly string _path;
    private JournalReader? _reader;

    /// <summary>Tails <paramref name="path"/>, delivering only records after (<paramref name="generation"/>, <paramref name="seq"/>).</summary>
    public JournalTail(string path, long generation = 0, int seq = 0)
    {
        _path = path;
        Position = (generation, seq);
    }

    /// <summary>The journal file.</summary>
    public string Path => _path;

    /// <summary>The last record delivered (generation, number); (0, 0) before the first.</summary>
    public (long Generation, int Seq) Position { get; private set; }

    /// <summary>Times the file was found replaced (compaction at the service's restart) and reopened.</summary>
    public int Reopens { get; private set; }

    /// <summary>
    /// Reads up to <paramref name="max"/> new message records into <paramref name="into"/> (each payload a copy).
    /// Returns how many were added; 0 when nothing new is complete yet (or the file does not exist yet).
    /// </summary>
    public int Poll(List<JournalRecord> into, int max)
    {
        if (!EnsureOpen())
        {
            return 0;
        }

        int added = 0;
        // Anything but a whole record: still being written (or torn: the service cuts it at its next start, and this waits).
        while (added < max && _reader!.TryRead(out var record) == JournalReadStatus.Record)
        {
            if (record.IsMessage && (_reader.Generation, record.SeqNum).CompareTo(Position) > 0)
            {
                into.Add(new JournalRecord(_reader.Generation, record.SeqNum, record.Message.ToArray()));
                Position = (_reader.Generation, record.SeqNum);
                added++;
            }
        }

        return added;
    }

    /// <summary>
    /// Hands up to <paramref name="max"/> new message records to <paramref name="sink"/> without copying them (each
    /// payload valid only during its call: the persister encodes it straight into its COPY rows). Returns how many.
    /// </summary>
    internal int Poll(IJournalRecordSink sink, int max)
    {
        if (!EnsureOpen())
        {
            return 0;
        }

        int added = 0;
        while (added < max && _reader!.TryRead(out var record) == JournalReadStatus.Record)
        {
            if (record.IsMessage && (_reader.Generation, record.SeqNum).CompareTo(Position) > 0)
            {
                Position = (_reader.Generation, record.SeqNum);
                sink.OnRecord(_reader.Generation, record.SeqNum, record.Message);
                added++;
            }
        }

        return added;
    }

    private bool EnsureOpen()
    {
        if (_reader is not null && !Replaced())
        {
            return true;
        }

        if (_reader is not null)
        {
            Reopens++;
            _reader.Dispose();
            _reader = null;
        }

        _reader = JournalReader.OpenShared(_path);
        return _reader is not null;
    }

    /// <summary>
    /// Whether the path now names another file than the open one (the service's compaction renames a new file over
    /// the journal) or the file was cut below what was read (recovery cuts a torn tail). Journals only grow in place,
    /// so: a path shorter than the open file, or a path longer than the open file even after its length is read again
    /// (a writer appending to the same file makes the open file at least as long), is another file.
    /// </summary>
    private bool Replaced()
    {
        long openLength = _reader!.Length;
        if (openLength < _reader.Offset)
        {
            return true;
        }

        long pathLength;
        try
        {
            pathLength = new FileInfo(_path).Length;
        }
        catch (FileNotFoundException)
        {
            return true;
        }

        return pathLength < openLength || pathLength > _reader.Length;
    }

    public void Dispose() => _reader?.Dispose();
}
