namespace RapidFix.MatchingService;

/// <summary>
/// Outgoing application messages (destination participant, MsgType, body) held in buffers created at startup: the
/// matcher's answers to one batch of inputs until the batch is journalled, and per participant the answers that
/// could not be sent yet (not logged on). Appending copies; a full queue refuses (the caller counts it), it never
/// grows. <see cref="RemoveFirst"/> keeps the order of what is left.
/// </summary>
internal sealed class OutputQueue
{
    private readonly byte[] _bytes;
    private readonly Entry[] _entries;
    private int _count;
    private int _first;
    private int _used;

    /// <param name="capacityBytes">Bytes for MsgTypes and bodies.</param>
    /// <param name="capacityMessages">Messages held at most.</param>
    public OutputQueue(int capacityBytes, int capacityMessages)
    {
        _bytes = MemoryCommit.Touch(new byte[capacityBytes]); // committed now, not as the queue first fills
        _entries = MemoryCommit.Touch(new Entry[capacityMessages]);
    }

    /// <summary>Messages held.</summary>
    public int Count => _count - _first;

    /// <summary>Bytes free for the next message (MsgType plus body).</summary>
    public int FreeBytes => _bytes.Length - _used;

    /// <summary>Entries free.</summary>
    public int FreeEntries => _entries.Length - _count;

    /// <summary>Appends a message; false (nothing kept) when it does not fit.</summary>
    public bool TryAdd(int destination, ReadOnlySpan<byte> msgType, ReadOnlySpan<byte> body)
    {
        if (_count == _entries.Length || _bytes.Length - _used < msgType.Length + body.Length)
        {
            Compact();
            if (_count == _entries.Length || _bytes.Length - _used < msgType.Length + body.Length)
            {
                return false;
            }
        }

        msgType.CopyTo(_bytes.AsSpan(_used));
        body.CopyTo(_bytes.AsSpan(_used + msgType.Length));
        _entries[_count++] = new Entry(destination, _used, msgType.Length, body.Length);
        _used += msgType.Length + body.Length;
        return true;
    }

    /// <summary>The <paramref name="index"/>-th message held (0 is the oldest).</summary>
    public OutputMessage this[int index]
    {
        get
        {
            ref readonly var e = ref _entries[_first + index];
            return new OutputMessage(e.Destination, _bytes.AsSpan(e.Offset, e.TypeLength), _bytes.AsSpan(e.Offset + e.TypeLength, e.BodyLength));
        }
    }

    /// <summary>Drops the <paramref name="n"/> oldest messages.</summary>
    public void RemoveFirst(int n)
    {
        _first += n;
        if (_first >= _count)
        {
            Clear();
        }
    }

    public void Clear()
    {
        _count = 0;
        _first = 0;
        _used = 0;
    }

    // Moves what is left to the front (only when an append would not fit otherwise).
    private void Compact()
    {
        if (_first == 0)
        {
            return;
        }

        int from = _entries[_first].Offset;
        Buffer.BlockCopy(_bytes, from, _bytes, 0, _used - from);
        int n = _count - _first;
        for (int i = 0; i < n; i++)
        {
            var e = _entries[_first + i];
            _entries[i] = e with { Offset = e.Offset - from };
        }

        _count = n;
        _first = 0;
        _used -= from;
    }

    private readonly record struct Entry(int Destination, int Offset, int TypeLength, int BodyLength);
}

/// <summary>One held message: spans into the queue's buffer, valid until the queue changes.</summary>
internal readonly ref struct OutputMessage
{
    public OutputMessage(int destination, ReadOnlySpan<byte> msgType, ReadOnlySpan<byte> body)
    {
        Destination = destination;
        MsgType = msgType;
        Body = body;
    }

    public int Destination { get; }

    public ReadOnlySpan<byte> MsgType { get; }

    public ReadOnlySpan<byte> Body { get; }
}
