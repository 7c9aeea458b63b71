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

    /// <summary>The message as it was sent (valid until the store is next written).</summary>
    public ReadOnlySpan<byte> Bytes { get; }
}

/// <summary>
/// Stored messages in a MsgSeqNum range, to enumerate with foreach (allocation-free; valid until the store's next
/// write). Obtained from <see cref="IMessageStore.GetRange"/>.
/// </summary>
public readonly struct StoredMessageRange
{
    private readonly MessageLog? _log;
    private readonly int _first;
    private readonly int _lastSeqNum;

    internal StoredMessageRange(MessageLog log, int beginSeqNum, int endSeqNum)
    {
        _log = log;
        _first = log.FirstIndexAtOrAfter(beginSeqNum);
        _lastSeqNum = endSeqNum <= 0 ? int.MaxValue : endSeqNum;
    }

    /// <summary>Enumerates the range in sequence order, without allocating.</summary>
    public Enumerator GetEnumerator() => new(_log, _first, _lastSeqNum);

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
        private readonly int _lastSeqNum;
        private int _index;

        internal Enumerator(MessageLog? log, int first, int lastSeqNum)
        {
            _log = log;
            _lastSeqNum = lastSeqNum;
            _index = first - 1;
        }

        /// <summary>The message at the current position.</summary>
        public readonly StoredMessage Current => new(_log!.SeqNumAt(_index), _log.MessageAt(_index));

        /// <summary>Moves to the next stored message; false at the end of the range.</summary>
        public bool MoveNext()
        {
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
