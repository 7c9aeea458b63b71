using System.Buffers.Binary;
using Microsoft.Win32.SafeHandles;

namespace RapidFix.Engine.Store;

/// <summary>
/// The journal store's state in memory: a write window of the journal's last bytes (a ring, at offset position mod
/// its length), an index of the most recent messages by MsgSeqNum, sparse checkpoints into the file for older ones,
/// and the sequence state the records imply. Everything is sized at open; nothing grows with the journal.
/// </summary>
/// <remarks>
/// <para>Positions are file offsets. The ring holds the bytes [WrittenPosition - ring length, WrittenPosition); the
/// writer never overwrites ring bytes that are not yet durable (the store waits for, then refuses, an append that
/// does not fit the ring's free part), so every byte older than the ring is in the file. A record is read from the
/// ring when it starts inside it, else from the file (positioned reads into a buffer made at open); the flusher's
/// batches end on record boundaries, so a record that starts before the ring is whole in the file.</para>
/// <para>The index: a ring of the last <see cref="IndexCapacity"/> messages (MsgSeqNum, record position, length),
/// exact (binary search). A message pushed out of it is still live: every so many are kept as checkpoints
/// (MsgSeqNum, record position; thinned by half when the checkpoint array is full), and a read of an older range
/// scans the file forward from the checkpoint at or below its first MsgSeqNum. Storing a MsgSeqNum at or below the
/// last one replaces it and drops the later ones (the latest write wins): the dropped records stay in the file, so
/// each replacement leaves a mark (its position and MsgSeqNum: a message record before it with a MsgSeqNum at or
/// above it is dead), which the scan obeys. Single writer; not thread-safe except what the flusher reads.</para>
/// </remarks>
internal sealed class StoreWindow
{
    /// <summary>Checkpoints kept for messages older than the index (about 12 bytes each).</summary>
    internal const int CheckpointCapacity = 65_536;

    /// <summary>Replacements (a MsgSeqNum stored again at or below the last) a generation may hold; more are refused with IndexFull.</summary>
    internal const int MarkCapacity = 64;

    private const int MessageOffset = JournalFormat.RecordHeaderSize + 1 + JournalFormat.MessagePrefixSize;

    private readonly byte[] _ring;
    private readonly byte[] _read;          // positioned file reads; also a record that wraps the ring's end
    private long _readStart = -1;           // the file bytes _read holds: [_readStart, _readStart + _readLength)
    private int _readLength;

    private readonly int[] _seqNums;        // index ring: entry e at slot e % capacity
    private readonly long[] _positions;     // record position
    private readonly int[] _lengths;        // message length
    private long _first;                    // oldest entry in the index
    private long _next;                     // one past the newest

    private readonly int[] _checkpointSeqNums;
    private readonly long[] _checkpointPositions;
    private int _checkpoints;
    private long _checkpointStride = 1;
    private long _evicted;                  // messages pushed out of the index (this generation)
    private long _evictedLive;              // of those, still live
    private int _lastEvictedSeqNum;

    private readonly long[] _markPositions;
    private readonly int[] _markSeqNums;
    private int _marks;

    private readonly long _maxBytes;
    private readonly int _maxMessages;
    private SafeFileHandle? _file;
    private GroupCommitFlusher? _flusher;   // null while recovering: then every read goes to the file
    private long _fileEnd;                  // while recovering: the valid end of the file

    public StoreWindow(int ringBytes, int readBytes, int indexCapacity, int maxMessages, long maxBytes, bool commitMemory)
    {
        ArgumentOutOfRangeException.ThrowIfLessThan(ringBytes, JournalFormat.GenerationRecordSize);
        ArgumentOutOfRangeException.ThrowIfGreaterThan(readBytes, ringBytes);
        ArgumentOutOfRangeException.ThrowIfLessThan(readBytes, JournalFormat.GenerationRecordSize);
        ArgumentOutOfRangeException.ThrowIfNegativeOrZero(indexCapacity);
        _ring = GC.AllocateUninitializedArray<byte>(ringBytes, pinned: true);
        _read = GC.AllocateUninitializedArray<byte>(readBytes, pinned: true);
        _seqNums = new int[indexCapacity];
        _positions = new long[indexCapacity];
        _lengths = new int[indexCapacity];
        _checkpointSeqNums = new int[CheckpointCapacity];
        _checkpointPositions = new long[CheckpointCapacity];
        _markPositions = new long[MarkCapacity];
        _markSeqNums = new int[MarkCapacity];
        _maxMessages = maxMessages;
        _maxBytes = maxBytes;

        if (!commitMemory)
        {
            return; // pages are committed as they are first written: resident memory grows to the window, then stays
        }

        // Startup: the kernel commits a page when it is first written; write them all now, not as the store fills.
        JournalAppender.Commit(_ring);
        JournalAppender.Commit(_read);
        Commit(_seqNums);
        Commit(_positions);
        Commit(_lengths);
        Commit(_checkpointSeqNums);
        Commit(_checkpointPositions);
    }

    private static void Commit<T>(T[] array)
    {
        for (int i = 0; i < array.Length; i += 512)
        {
            array[i] = default!;
        }
    }

    public int RingBytes => _ring.Length;

    public int IndexCapacity => _seqNums.Length;

    public long WrittenPosition { get; private set; }

    /// <summary>Where the current generation's record starts.</summary>
    public long GenerationStart { get; private set; }

    public int NextSender { get; private set; } = 1;

    public int NextTarget { get; private set; } = 1;

    public long CreationTicks { get; private set; }

    public long Generation { get; private set; }

    /// <summary>Live messages of the current generation.</summary>
    public int Count => (int)(_evictedLive + (_next - _first));

    /// <summary>Recovery: reads go to the file (of <paramref name="fileEnd"/> bytes), the ring is not loaded yet.</summary>
    public void BeginRecovery(SafeFileHandle file, long fileEnd)
    {
        _file = file;
        _flusher = null;
        _fileEnd = fileEnd;
    }

    /// <summary>After recovery (or creation): the ring is loaded from the file; durability comes from the flusher.</summary>
    public void Attach(SafeFileHandle file, GroupCommitFlusher flusher)
    {
        _file = file;
        _flusher = flusher;
        _readStart = -1;
    }

    /// <summary>Loads the ring with the file's bytes it should hold ([WrittenPosition - ring, WrittenPosition)).</summary>
    public void LoadRing(SafeFileHandle file)
    {
        long from = Math.Max(JournalFormat.FileHeaderSize, WrittenPosition - _ring.Length);
        for (long at = from; at < WrittenPosition;)
        {
            int offset = (int)(at % _ring.Length);
            int size = (int)Math.Min(_ring.Length - offset, WrittenPosition - at);
            int read = RandomAccess.Read(file, _ring.AsSpan(offset, size), at);
            if (read <= 0)
            {
                throw new StoreException("the journal shrank while it was being opened");
            }

            at += read;
        }
    }

    /// <summary>Moves every position by <paramref name="delta"/> (the file was compacted under the state).</summary>
    public void Rebase(long delta)
    {
        for (long e = _first; e < _next; e++)
        {
            _positions[Slot(e)] += delta;
        }

        for (int i = 0; i < _checkpoints; i++)
        {
            _checkpointPositions[i] += delta;
        }

        for (int i = 0; i < _marks; i++)
        {
            _markPositions[i] += delta;
        }

        GenerationStart += delta;
        WrittenPosition += delta;
        _readStart = -1;
    }

    /// <summary>Forgets the generation and starts the next record at <paramref name="position"/>.</summary>
    public void Clear(long position)
    {
        WrittenPosition = position;
        GenerationStart = position;
        _first = _next = 0;
        _checkpoints = 0;
        _checkpointStride = 1;
        _evicted = _evictedLive = 0;
        _lastEvictedSeqNum = 0;
        _marks = 0;
        NextSender = 1;
        NextTarget = 1;
    }

    /// <summary>Whether a message can be appended; anything but Ok leaves the state untouched.</summary>
    public StoreWriteStatus CanAppend(int seqNum, int length)
    {
        if (seqNum < 1)
        {
            return StoreWriteStatus.InvalidSequenceNumber;
        }

        if (length == 0)
        {
            return StoreWriteStatus.EmptyMessage;
        }

        long size = JournalFormat.MessageRecordSize(length);
        if (size > _read.Length || WrittenPosition + size - GenerationStart > _maxBytes)
        {
            return StoreWriteStatus.JournalFull;
        }

        if (seqNum <= LastSeqNum)
        {
            // A replacement: it drops messages, so the count only falls; it leaves a mark.
            return _marks < MarkCapacity || MarkSubsumed(seqNum) ? StoreWriteStatus.Ok : StoreWriteStatus.IndexFull;
        }

        return Count >= _maxMessages ? StoreWriteStatus.IndexFull : StoreWriteStatus.Ok;
    }

    public StoreWriteStatus CanWriteSequence(int value)
    {
        if (value < 1)
        {
            return StoreWriteStatus.InvalidSequenceNumber;
        }

        return WrittenPosition + JournalFormat.SequenceRecordSize - GenerationStart > _maxBytes ? StoreWriteStatus.JournalFull : StoreWriteStatus.Ok;
    }

    /// <summary>The position durability must reach before a record of <paramref name="size"/> bytes fits the ring.</summary>
    public long DurableNeededFor(int size) => WrittenPosition + size - _ring.Length;

    /// <summary>Encodes a message record at <see cref="WrittenPosition"/> and indexes it. Call <see cref="CanAppend"/> first, and make room.</summary>
    public void AppendMessage(int seqNum, ReadOnlySpan<byte> message)
    {
        long position = WrittenPosition;
        int size = JournalFormat.MessageRecordSize(message.Length);
        // Index first: a replacement reaching below the index counts what it drops by reading the ring as it is.
        Index(seqNum, position, message.Length);
        var record = RecordSpace(position, size);
        JournalFormat.WriteMessage(record, seqNum, message);
        Place(record, position);
        NextSender = seqNum + 1;
    }

    /// <summary>Encodes a sequence record. Call <see cref="CanWriteSequence"/> first, and make room.</summary>
    public void AppendSequence(RecordType type, int value)
    {
        long position = WrittenPosition;
        var record = RecordSpace(position, JournalFormat.SequenceRecordSize);
        record[JournalFormat.RecordHeaderSize] = (byte)type;
        BinaryPrimitives.WriteInt32LittleEndian(record[(JournalFormat.RecordHeaderSize + 1)..], value);
        JournalFormat.Seal(record, computeCrc: true);
        Place(record, position);
        ApplySequence(type, value);
    }

    /// <summary>Encodes a generation record (next sender and target 1) after <see cref="Clear"/>.</summary>
    public void AppendGeneration(long generation, long creationTicks)
    {
        long position = WrittenPosition;
        var record = RecordSpace(position, JournalFormat.GenerationRecordSize);
        JournalFormat.WriteGeneration(record, generation, creationTicks);
        Place(record, position);
        Generation = generation;
        CreationTicks = creationTicks;
    }

    /// <summary>Recovery: applies a record read from the file at <paramref name="position"/> (its body: type and payload).</summary>
    public void Replay(long position, ReadOnlySpan<byte> body)
    {
        int size = JournalFormat.RecordHeaderSize + body.Length;
        var payload = body[1..];
        switch ((RecordType)body[0])
        {
            case RecordType.Generation:
                Clear(position);
                Generation = BinaryPrimitives.ReadInt64LittleEndian(payload);
                CreationTicks = BinaryPrimitives.ReadInt64LittleEndian(payload[8..]);
                NextSender = BinaryPrimitives.ReadInt32LittleEndian(payload[16..]);
                NextTarget = BinaryPrimitives.ReadInt32LittleEndian(payload[20..]);
                break;
            case RecordType.Message:
            {
                int seqNum = BinaryPrimitives.ReadInt32LittleEndian(payload);
                if (size > _read.Length)
                {
                    throw new StoreException($"the journal holds a message record of {size} bytes at offset {position}, more than the store's read buffer of {_read.Length} bytes; raise StoreWindowBytes (or MaxMessageSize) to open it");
                }

                if (seqNum > LastSeqNum && Count >= _maxMessages)
                {
                    throw new StoreException($"the journal's current generation holds more than StoreMaxMessages={_maxMessages} messages; raise StoreMaxMessages to open it");
                }

                if (seqNum <= LastSeqNum && _marks >= MarkCapacity && !MarkSubsumed(seqNum))
                {
                    throw new StoreException($"the journal's current generation replaces stored messages more than {MarkCapacity} times; it cannot be opened with a windowed index");
                }

                Index(seqNum, position, payload.Length - JournalFormat.MessagePrefixSize);
                NextSender = seqNum + 1;
                break;
            }

            case RecordType.NextSender:
            case RecordType.NextTarget:
                ApplySequence((RecordType)body[0], BinaryPrimitives.ReadInt32LittleEndian(payload));
                break;
        }

        WrittenPosition = position + size;
        if (WrittenPosition - GenerationStart > _maxBytes)
        {
            throw new StoreException($"the journal's current generation holds {WrittenPosition - GenerationStart} bytes, more than StoreMaxBytes={_maxBytes}; raise StoreMaxBytes to open it");
        }
    }

    private void ApplySequence(RecordType type, int value)
    {
        if (type == RecordType.NextSender)
        {
            NextSender = value;
        }
        else
        {
            NextTarget = value;
        }
    }

    /// <summary>Where a record of <paramref name="size"/> bytes is encoded: in place in the ring, or in the read buffer when it would wrap.</summary>
    private Span<byte> RecordSpace(long position, int size)
    {
        int at = (int)(position % _ring.Length);
        if (at + size <= _ring.Length)
        {
            return _ring.AsSpan(at, size);
        }

        _readStart = -1;
        return _read.AsSpan(0, size);
    }

    /// <summary>Copies a record encoded in the read buffer into the ring (split at its end), and moves the written position.</summary>
    private void Place(Span<byte> record, long position)
    {
        int at = (int)(position % _ring.Length);
        if (at + record.Length > _ring.Length)
        {
            int first = _ring.Length - at;
            record[..first].CopyTo(_ring.AsSpan(at));
            record[first..].CopyTo(_ring);
        }

        WrittenPosition = position + record.Length;
    }

    /// <summary>The flusher's bytes [from, upTo) from the ring: two spans when they wrap its end.</summary>
    public void WriteTo(SafeFileHandle file, long from, long upTo)
    {
        int at = (int)(from % _ring.Length);
        int size = (int)(upTo - from);
        int first = Math.Min(size, _ring.Length - at);
        RandomAccess.Write(file, new ReadOnlySpan<byte>(_ring, at, first), from);
        if (first < size)
        {
            RandomAccess.Write(file, new ReadOnlySpan<byte>(_ring, 0, size - first), from + first);
        }
    }

    // ---- the index ----

    private int Slot(long entry) => (int)(entry % _seqNums.Length);

    /// <summary>The last live MsgSeqNum (0 when none).</summary>
    private int LastSeqNum => _next > _first ? _seqNums[Slot(_next - 1)] : _evictedLive > 0 ? _lastEvictedSeqNum : 0;

    private void Index(int seqNum, long position, int length)
    {
        if (seqNum <= LastSeqNum)
        {
            Replace(seqNum, position);
        }

        if (_next - _first == _seqNums.Length)
        {
            Evict();
        }

        int slot = Slot(_next);
        _seqNums[slot] = seqNum;
        _positions[slot] = position;
        _lengths[slot] = length;
        _next++;
    }

    /// <summary>Drops every live message with MsgSeqNum &gt;= <paramref name="seqNum"/> and marks the replacement at <paramref name="position"/>.</summary>
    private void Replace(int seqNum, long position)
    {
        long k = LowerBound(seqNum);
        if (k == _first && _evictedLive > 0 && seqNum <= _lastEvictedSeqNum)
        {
            // Reaches below the index: count what it drops among the older messages (read from the file), and drop
            // the checkpoints at or above it.
            long limit = _next > _first ? _positions[Slot(_first)] : WrittenPosition;
            var cursor = new WindowCursor { ScanPosition = ScanStartBelow(seqNum), ScanLimit = limit, InScan = true, Begin = 1, End = int.MaxValue };
            int dropped = 0;
            int lastLive = 0;
            while (cursor.InScan && NextInScan(ref cursor, out int seq, out _))
            {
                if (seq >= seqNum)
                {
                    dropped++;
                }
                else
                {
                    lastLive = seq;
                }
            }

            _evictedLive -= dropped;
            _lastEvictedSeqNum = lastLive;
            _checkpoints = CheckpointLowerBound(seqNum);
        }

        _next = k;
        AddMark(seqNum, position);
    }

    private bool MarkSubsumed(int seqNum) => _marks > 0 && _markSeqNums[_marks - 1] >= seqNum;

    private void AddMark(int seqNum, long position)
    {
        // A new mark makes every older one with a MsgSeqNum at or above it redundant (it kills all they kill).
        while (_marks > 0 && _markSeqNums[_marks - 1] >= seqNum)
        {
            _marks--;
        }

        _markSeqNums[_marks] = seqNum;
        _markPositions[_marks] = position;
        _marks++;
    }

    /// <summary>Whether the message record at <paramref name="position"/> with <paramref name="seqNum"/> was dropped by a later replacement.</summary>
    private bool Dead(long position, int seqNum)
    {
        for (int i = _marks - 1; i >= 0; i--)
        {
            if (_markPositions[i] <= position)
            {
                return false; // marks are in position order; earlier ones cannot reach later records
            }

            if (_markSeqNums[i] <= seqNum)
            {
                return true;
            }
        }

        return false;
    }

    private void Evict()
    {
        int slot = Slot(_first);
        if (_evicted % _checkpointStride == 0)
        {
            if (_checkpoints == CheckpointCapacity)
            {
                // Keep every other one: the checkpoints stay spread over the whole generation.
                int kept = 0;
                for (int i = 0; i < _checkpoints; i += 2)
                {
                    _checkpointSeqNums[kept] = _checkpointSeqNums[i];
                    _checkpointPositions[kept] = _checkpointPositions[i];
                    kept++;
                }

                _checkpoints = kept;
                _checkpointStride *= 2;
            }

            _checkpointSeqNums[_checkpoints] = _seqNums[slot];
            _checkpointPositions[_checkpoints] = _positions[slot];
            _checkpoints++;
        }

        _lastEvictedSeqNum = _seqNums[slot];
        _evicted++;
        _evictedLive++;
        _first++;
    }

    /// <summary>The first index entry with MsgSeqNum &gt;= <paramref name="seqNum"/> (<see cref="_next"/> when none).</summary>
    private long LowerBound(int seqNum)
    {
        long lo = _first, hi = _next;
        if (hi > lo && _seqNums[Slot(hi - 1)] < seqNum)
        {
            return hi;
        }

        while (lo < hi)
        {
            long mid = lo + ((hi - lo) >>> 1);
            if (_seqNums[Slot(mid)] < seqNum)
            {
                lo = mid + 1;
            }
            else
            {
                hi = mid;
            }
        }

        return lo;
    }

    /// <summary>The first checkpoint with MsgSeqNum &gt;= <paramref name="seqNum"/>.</summary>
    private int CheckpointLowerBound(int seqNum)
    {
        int lo = 0, hi = _checkpoints;
        while (lo < hi)
        {
            int mid = (lo + hi) >>> 1;
            if (_checkpointSeqNums[mid] < seqNum)
            {
                lo = mid + 1;
            }
            else
            {
                hi = mid;
            }
        }

        return lo;
    }

    /// <summary>Where a file scan for MsgSeqNum &gt;= <paramref name="seqNum"/> starts: the last checkpoint below it, or the generation's start.</summary>
    private long ScanStartBelow(int seqNum)
    {
        int i = CheckpointLowerBound(seqNum) - 1;
        return i >= 0 ? _checkpointPositions[i] : GenerationStart;
    }

    // ---- range reads ----

    /// <summary>A cursor over the live messages with <paramref name="begin"/> &lt;= MsgSeqNum &lt;= <paramref name="end"/>.</summary>
    public WindowCursor StartCursor(int begin, int end)
    {
        var cursor = new WindowCursor { Begin = begin, End = end };
        long limit = _next > _first ? _positions[Slot(_first)] : WrittenPosition;
        if (_evictedLive > 0 && begin <= _lastEvictedSeqNum)
        {
            // Older than the index: from the file, then on into the index.
            cursor.InScan = true;
            cursor.ScanLimit = limit;
            int i = (begin == int.MaxValue ? _checkpoints : CheckpointLowerBound(begin + 1)) - 1; // the last checkpoint at or below begin
            cursor.ScanPosition = i >= 0 ? _checkpointPositions[i] : GenerationStart;
            cursor.Entry = _first;
        }
        else
        {
            cursor.Entry = LowerBound(begin);
        }

        return cursor;
    }

    /// <summary>The next live message of the cursor's range; its bytes are valid until the next read or write.</summary>
    public bool Next(scoped ref WindowCursor cursor, out int seqNum, out ReadOnlySpan<byte> message)
    {
        if (cursor.InScan)
        {
            if (NextInScan(ref cursor, out seqNum, out message))
            {
                if (seqNum <= cursor.End)
                {
                    return true;
                }

                cursor.InScan = false; // past the end of the range: done
                cursor.Entry = _next;
                return false;
            }
        }

        if (cursor.Entry >= _next)
        {
            seqNum = 0;
            message = default;
            return false;
        }

        int slot = Slot(cursor.Entry);
        seqNum = _seqNums[slot];
        if (seqNum > cursor.End)
        {
            message = default;
            return false;
        }

        var record = RecordAt(_positions[slot]);
        message = record.Slice(MessageOffset, _lengths[slot]);
        cursor.Entry++;
        return true;
    }

    /// <summary>The next live message record at or after the scan position below the scan limit, with MsgSeqNum &gt;= Begin; false (InScan cleared) at the limit.</summary>
    private bool NextInScan(scoped ref WindowCursor cursor, out int seqNum, out ReadOnlySpan<byte> message)
    {
        while (cursor.ScanPosition < cursor.ScanLimit)
        {
            long position = cursor.ScanPosition;
            var record = RecordAt(position);
            cursor.ScanPosition = position + record.Length;
            if (record[JournalFormat.RecordHeaderSize] != (byte)RecordType.Message)
            {
                continue;
            }

            int seq = BinaryPrimitives.ReadInt32LittleEndian(record[(JournalFormat.RecordHeaderSize + 1)..]);
            if (seq < cursor.Begin || Dead(position, seq))
            {
                continue;
            }

            seqNum = seq;
            message = record[MessageOffset..];
            return true;
        }

        cursor.InScan = false;
        seqNum = 0;
        message = default;
        return false;
    }

    /// <summary>The whole record (header and body) at <paramref name="position"/>: from the ring when it starts there, else from the file.</summary>
    private ReadOnlySpan<byte> RecordAt(long position)
    {
        if (_flusher is not null && position >= WrittenPosition - _ring.Length)
        {
            int at = (int)(position % _ring.Length);
            int size = JournalFormat.RecordHeaderSize + (int)RingUInt32(at);
            if (at + size <= _ring.Length)
            {
                return new ReadOnlySpan<byte>(_ring, at, size);
            }

            // Wraps the ring's end: put it together in the read buffer.
            int first = _ring.Length - at;
            _readStart = -1;
            _ring.AsSpan(at, first).CopyTo(_read);
            _ring.AsSpan(0, size - first).CopyTo(_read.AsSpan(first));
            return new ReadOnlySpan<byte>(_read, 0, size);
        }

        return FileRecordAt(position);
    }

    private uint RingUInt32(int at)
    {
        if (at + 4 <= _ring.Length)
        {
            return BinaryPrimitives.ReadUInt32LittleEndian(_ring.AsSpan(at));
        }

        uint value = 0;
        for (int i = 0; i < 4; i++)
        {
            value |= (uint)_ring[(at + i) % _ring.Length] << (8 * i);
        }

        return value;
    }

    private ReadOnlySpan<byte> FileRecordAt(long position)
    {
        if (!Holds(position, JournalFormat.RecordHeaderSize))
        {
            Fill(position);
        }

        int size = JournalFormat.RecordHeaderSize + (int)BinaryPrimitives.ReadUInt32LittleEndian(_read.AsSpan((int)(position - _readStart)));
        if (!Holds(position, size))
        {
            Fill(position);
            if (!Holds(position, size))
            {
                throw new StoreException($"the journal's record at offset {position} could not be read back from the file ({size} bytes)");
            }
        }

        return new ReadOnlySpan<byte>(_read, (int)(position - _readStart), size);
    }

    private bool Holds(long position, int size) =>
        _readStart >= 0 && position >= _readStart && position + size <= _readStart + _readLength;

    /// <summary>Reads the file from <paramref name="position"/> into the read buffer, up to what is surely in the file.</summary>
    private void Fill(long position)
    {
        long end = _flusher is null ? _fileEnd : Math.Min(_flusher.Durable, WrittenPosition);
        int size = (int)Math.Min(_read.Length, end - position);
        _readStart = -1;
        int done = 0;
        while (done < size)
        {
            int read = RandomAccess.Read(_file!, _read.AsSpan(done, size - done), position + done);
            if (read <= 0)
            {
                break;
            }

            done += read;
        }

        _readStart = position;
        _readLength = done;
    }
}

/// <summary>Where a range read of a <see cref="StoreWindow"/> is: scanning the file, then walking the index.</summary>
internal struct WindowCursor
{
    public long ScanPosition;
    public long ScanLimit;
    public long Entry;
    public int Begin;
    public int End;
    public bool InScan;
}
