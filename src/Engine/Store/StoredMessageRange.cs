namespace RapidFix.Engine.Store;

/// <summary>One stored message: its MsgSeqNum and its wire bytes (pointing into the store's buffer).</summary>
public readonly ref struct StoredMessage
{
    internal StoredMessage(int seqNum, ReadOnlySpan<byte> bytes)
    {
        SeqNum = seqNum;
        Bytes = bytes;
    }

    /// <summary>The message's MsgSeqNum.</summary>
    public int SeqNum { get; }

    /// <summary>The message as it was sent (valid until the enumeration moves on, or the store is read or written again).</summary>
    public ReadOnlySpan<byte> Bytes { get; }
}

/// <summary>
/// Stored messages in a MsgSeqNum range, to enumerate with foreach (allocation-free; valid until the store's next
/// write). Obtained from <see cref="IMessageStore.GetRange"/>. Each message's bytes are valid until the enumeration
/// moves on: the journal store reads messages its window no longer holds from the file, into one buffer.
/// </summary>
public readonly struct StoredMessageRange
{
    private readonly MessageLog? _log;
    private readonly StoreWindow? _window;
    private readonly WindowCursor _cursor;
    private readonly int _first;
    private readonly int _lastSeqNum;

    internal StoredMessageRange(MessageLog log, int beginSeqNum, int endSeqNum)
    {
        _log = log;
        _first = log.FirstIndexAtOrAfter(beginSeqNum);
        _lastSeqNum = endSeqNum <= 0 ? int.MaxValue : endSeqNum;
    }

    internal StoredMessageRange(StoreWindow window, int beginSeqNum, int endSeqNum)
    {
        _window = window;
        _lastSeqNum = endSeqNum <= 0 ? int.MaxValue : endSeqNum;
        _cursor = window.StartCursor(Math.Max(1, beginSeqNum), _lastSeqNum);
    }

    /// <summary>Enumerates the range in sequence order, without allocating.</summary>
    public Enumerator GetEnumerator() => new(_log, _window, _cursor, _first, _lastSeqNum);

    /// <summary>Hands each message to <paramref name="handler"/> until it returns false; returns how many it was given.</summary>
    public int Read<THandler>(ref THandler handler)
        where THandler : struct, IStoredMessageHandler
    {
        int delivered = 0;
        foreach (var message in this)
        {
            delivered++;
            if (!handler.OnMessage(message.SeqNum, message.Bytes))
            {
                break;
            }
        }

        return delivered;
    }

    /// <summary>A stack-only enumerator over the stored messages of the range.</summary>
    public ref struct Enumerator
    {
        private readonly MessageLog? _log;
        private readonly StoreWindow? _window;
        private readonly int _lastSeqNum;
        private WindowCursor _cursor;
        private int _index;
        private int _seqNum;
        private ReadOnlySpan<byte> _bytes;

        internal Enumerator(MessageLog? log, StoreWindow? window, WindowCursor cursor, int first, int lastSeqNum)
        {
            _log = log;
            _window = window;
            _cursor = cursor;
            _lastSeqNum = lastSeqNum;
            _index = first - 1;
        }

        /// <summary>The message at the current position.</summary>
        public readonly StoredMessage Current => _window is not null ? new(_seqNum, _bytes) : new(_log!.SeqNumAt(_index), _log.MessageAt(_index));

        /// <summary>Moves to the next stored message; false at the end of the range.</summary>
        public bool MoveNext()
        {
            if (_window is not null)
            {
                return _window.Next(ref _cursor, out _seqNum, out _bytes);
            }

            if (_log is null)
            {
                return false;
            }

            int next = _index + 1;
            if (next >= _log.Count || _log.SeqNumAt(next) > _lastSeqNum)
            {
                return false;
            }

            _index = next;
            return true;
        }
    }
}

/// <summary>Range reads through the interface without a generic virtual call (whose runtime dispatch cache can allocate).</summary>
public static class MessageStoreExtensions
{
    /// <summary>
    /// Hands every stored message with <paramref name="beginSeqNum"/> &lt;= MsgSeqNum &lt;= <paramref name="endSeqNum"/>
    /// (0 for "through the last") to <paramref name="handler"/>, in order, until it returns false.
    /// </summary>
    /// <returns>The number of messages handed over.</returns>
    public static int ReadRange<THandler>(this IMessageStore store, int beginSeqNum, int endSeqNum, ref THandler handler)
        where THandler : struct, IStoredMessageHandler
    {
        ArgumentNullException.ThrowIfNull(store);
        return store.GetRange(beginSeqNum, endSeqNum).Read(ref handler);
    }
}
