namespace RapidFix.Engine.Store;

/// <summary>
/// The express store: everything in memory, nothing survives the process. Every write counts as durable at once
/// (there is nothing more to wait for), so <see cref="DurablePosition"/> always equals <see cref="WrittenPosition"/>.
/// </summary>
public sealed class MemoryMessageStore : IMessageStore
{
    private readonly MessageLog _log;
    private long _appends;
    private long _appendedBytes;
    private long _sequenceUpdates;
    private long _indexFull;
    private long _journalFull;
    private long _invalid;
    private bool _disposed;

    /// <param name="maxMessages">Messages held per generation (StoreMaxMessages).</param>
    /// <param name="maxBytes">Bytes of messages (plus 13 bytes of framing each) held per generation (StoreMaxBytes).</param>
    /// <param name="creationTimeUtc">Creation time of the first generation.</param>
    public MemoryMessageStore(int maxMessages, int maxBytes, DateTime creationTimeUtc)
    {
        _log = new MessageLog(maxMessages, maxBytes, computeCrc: false);
        _log.AppendGeneration(1, creationTimeUtc.Ticks);
    }

    /// <inheritdoc/>
    public int NextSenderMsgSeqNum => _log.NextSender;

    /// <inheritdoc/>
    public int NextTargetMsgSeqNum => _log.NextTarget;

    /// <inheritdoc/>
    public DateTime CreationTimeUtc => new(_log.CreationTicks, DateTimeKind.Utc);

    /// <inheritdoc/>
    public long Generation => _log.Generation;

    /// <inheritdoc/>
    public int MessageCount => _log.Count;

    /// <inheritdoc/>
    public long WrittenPosition => _log.WrittenPosition;

    /// <inheritdoc/>
    public long DurablePosition => _log.WrittenPosition;

    /// <inheritdoc/>
    public Exception? Fault => null;

    /// <inheritdoc/>
    public StoreCounters Counters =>
        new(_appends, _appendedBytes, _sequenceUpdates, _indexFull, _journalFull, _invalid, 0, 0, 0, 0, 0, 0);

    /// <inheritdoc/>
    public StoreWriteStatus Append(int seqNum, ReadOnlySpan<byte> message)
    {
        ThrowIfDisposed();
        var status = _log.CanAppend(seqNum, message.Length);
        if (status != StoreWriteStatus.Ok)
        {
            return Count(status);
        }

        _log.AppendMessage(seqNum, message);
        _appends++;
        _appendedBytes += message.Length;
        return StoreWriteStatus.Ok;
    }

    // Sequence numbers live in fields only: with no journal to replay, they need no record or buffer space.
    /// <inheritdoc/>
    public StoreWriteStatus SetNextSenderMsgSeqNum(int value) => SetSequence(RecordType.NextSender, value);

    /// <inheritdoc/>
    public StoreWriteStatus SetNextTargetMsgSeqNum(int value) => SetSequence(RecordType.NextTarget, value);

    /// <inheritdoc/>
    public StoreWriteStatus Reset(DateTime creationTimeUtc)
    {
        ThrowIfDisposed();
        long generation = _log.Generation + 1;
        _log.Clear(_log.WrittenPosition);
        _log.AppendGeneration(generation, creationTimeUtc.Ticks);
        return StoreWriteStatus.Ok;
    }

    /// <inheritdoc/>
    public StoredMessageRange GetRange(int beginSeqNum, int endSeqNum)
    {
        ThrowIfDisposed();
        return new StoredMessageRange(_log, beginSeqNum, endSeqNum);
    }

    /// <summary>Hands the stored messages of a range to a struct handler (see <see cref="IMessageStore.GetRange"/>).</summary>
    public int ReadRange<THandler>(int beginSeqNum, int endSeqNum, ref THandler handler)
        where THandler : struct, IStoredMessageHandler =>
        GetRange(beginSeqNum, endSeqNum).Read(ref handler);

    /// <inheritdoc/>
    public bool WaitForDurable(long position, TimeSpan timeout) => position <= DurablePosition;

    /// <inheritdoc/>
    public bool Flush() => true;

    /// <summary>Marks the store closed; the memory goes with the object.</summary>
    public void Dispose() => _disposed = true;

    private StoreWriteStatus SetSequence(RecordType type, int value)
    {
        ThrowIfDisposed();
        if (value < 1)
        {
            return Count(StoreWriteStatus.InvalidSequenceNumber);
        }

        _log.SetSequence(type, value);
        _sequenceUpdates++;
        return StoreWriteStatus.Ok;
    }

    private StoreWriteStatus Count(StoreWriteStatus status)
    {
        switch (status)
        {
            case StoreWriteStatus.IndexFull: _indexFull++; break;
            case StoreWriteStatus.JournalFull: _journalFull++; break;
            default: _invalid++; break;
        }

        return status;
    }

    private void ThrowIfDisposed()
    {
        if (_disposed)
        {
            ThrowDisposed();
        }
    }

    private static void ThrowDisposed() => throw new ObjectDisposedException(nameof(MemoryMessageStore));
}
