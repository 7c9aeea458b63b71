using System.Buffers.Binary;
using System.Runtime.CompilerServices;

namespace RapidFix.Engine.Store;

/// <summary>
/// The in-memory image of one store generation: journal records laid end to end in a buffer sized at startup,
/// an index of sent messages by MsgSeqNum, and the sequence state the records imply. Writing a record and
/// replaying one on recovery go through the same <see cref="Apply"/>, so both reach the same state.
/// </summary>
/// <remarks>Single writer. Positions are logical byte offsets: <see cref="BasePosition"/> is where buffer offset 0 sits.</remarks>
internal sealed class MessageLog
{
    private readonly byte[] _buffer;
    private readonly int[] _seqNums;
    private readonly int[] _offsets;   // buffer offset of each message's wire bytes
    private readonly int[] _lengths;
    private readonly bool _computeCrc;
    private int _used;
    private int _count;

    public MessageLog(int maxMessages, int maxBytes, bool computeCrc, bool commitMemory = false)
    {
        ArgumentOutOfRangeException.ThrowIfNegativeOrZero(maxMessages);
        ArgumentOutOfRangeException.ThrowIfLessThan(maxBytes, JournalFormat.GenerationRecordSize);
        _buffer = GC.AllocateUninitializedArray<byte>(maxBytes, pinned: true);
        _seqNums = new int[maxMessages];
        _offsets = new int[maxMessages];
        _lengths = new int[maxMessages];
        _computeCrc = computeCrc;
        if (commitMemory)
        {
            // Startup: the kernel commits a page when it is first written; write them all now, not as the store fills.
            JournalAppender.Commit(_buffer);
            Commit(_seqNums);
            Commit(_offsets);
            Commit(_lengths);
        }
    }

    private static void Commit(int[] array)
    {
        for (int i = 0; i < array.Length; i += 1024)
        {
            array[i] = 0;
        }
    }

    public long BasePosition { get; private set; }

    public long WrittenPosition => BasePosition + _used;

    /// <summary>Bytes of the buffer in use.</summary>
    public int Used => _used;

    public int Capacity => _buffer.Length;

    public int MaxMessages => _seqNums.Length;

    public int Count => _count;

    public int NextSender { get; private set; } = 1;

    public int NextTarget { get; private set; } = 1;

    public long CreationTicks { get; private set; }

    public long Generation { get; private set; }

    /// <summary>The bytes between two positions, for the flusher.</summary>
    public ReadOnlySpan<byte> Slice(long fromPosition, long toPosition) =>
        _buffer.AsSpan((int)(fromPosition - BasePosition), (int)(toPosition - fromPosition));

    /// <summary>Forgets everything and maps buffer offset 0 to <paramref name="basePosition"/>.</summary>
    public void Clear(long basePosition)
    {
        BasePosition = basePosition;
        _used = 0;
        _count = 0;
        NextSender = 1;
        NextTarget = 1;
    }

    /// <summary>Checks that a message can be appended; anything but Ok leaves the log untouched.</summary>
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

        if (JournalFormat.MessageRecordSize(length) > _buffer.Length - _used)
        {
            return StoreWriteStatus.JournalFull;
        }

        return SlotFor(seqNum) >= _seqNums.Length ? StoreWriteStatus.IndexFull : StoreWriteStatus.Ok;
    }

    public StoreWriteStatus CanWriteSequence(int value)
    {
        if (value < 1)
        {
            return StoreWriteStatus.InvalidSequenceNumber;
        }

        return JournalFormat.SequenceRecordSize > _buffer.Length - _used ? StoreWriteStatus.JournalFull : StoreWriteStatus.Ok;
    }

    /// <summary>Encodes and applies a message record. Call <see cref="CanAppend"/> first.</summary>
    public void AppendMessage(int seqNum, ReadOnlySpan<byte> message)
    {
        var record = _buffer.AsSpan(_used, JournalFormat.MessageRecordSize(message.Length));
        record[JournalFormat.RecordHeaderSize] = (byte)RecordType.Message;
        BinaryPrimitives.WriteInt32LittleEndian(record[(JournalFormat.RecordHeaderSize + 1)..], seqNum);
        message.CopyTo(record[(JournalFormat.RecordHeaderSize + 1 + JournalFormat.MessagePrefixSize)..]);
        JournalFormat.Seal(record, _computeCrc);
        Apply(record.Length);
    }

    /// <summary>Encodes and applies a sequence record. Call <see cref="CanWriteSequence"/> first.</summary>
    public void AppendSequence(RecordType type, int value)
    {
        var record = _buffer.AsSpan(_used, JournalFormat.SequenceRecordSize);
        record[JournalFormat.RecordHeaderSize] = (byte)type;
        BinaryPrimitives.WriteInt32LittleEndian(record[(JournalFormat.RecordHeaderSize + 1)..], value);
        JournalFormat.Seal(record, _computeCrc);
        Apply(record.Length);
    }

    /// <summary>Changes a sequence number without a record (the express store has no journal to replay).</summary>
    public void SetSequence(RecordType type, int value)
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

    /// <summary>Encodes and applies a generation record at the start of an empty log.</summary>
    public void AppendGeneration(long generation, long creationTicks)
    {
        var record = _buffer.AsSpan(_used, JournalFormat.GenerationRecordSize);
        var payload = record[(JournalFormat.RecordHeaderSize + 1)..];
        record[JournalFormat.RecordHeaderSize] = (byte)RecordType.Generation;
        BinaryPrimitives.WriteInt64LittleEndian(payload, generation);
        BinaryPrimitives.WriteInt64LittleEndian(payload[8..], creationTicks);
        BinaryPrimitives.WriteInt32LittleEndian(payload[16..], 1);
        BinaryPrimitives.WriteInt32LittleEndian(payload[20..], 1);
        JournalFormat.Seal(record, _computeCrc);
        Apply(record.Length);
    }

    /// <summary>
    /// Loads records read from a journal (already checked by the reader) and applies them. Fails, naming the
    /// limit, when they exceed the log's capacity.
    /// </summary>
    public void Load(ReadOnlySpan<byte> records, long basePosition)
    {
        Clear(basePosition);
        if (records.Length > _buffer.Length)
        {
            throw new StoreException($"the journal's current generation holds {records.Length} bytes, more than StoreMaxBytes={_buffer.Length}; raise StoreMaxBytes to open it");
        }

        records.CopyTo(_buffer);
        int offset = 0;
        while (offset < records.Length)
        {
            int size = JournalFormat.RecordHeaderSize + (int)BinaryPrimitives.ReadUInt32LittleEndian(records[offset..]);
            if (_buffer[offset + JournalFormat.RecordHeaderSize] == (byte)RecordType.Message)
            {
                int seqNum = BinaryPrimitives.ReadInt32LittleEndian(records[(offset + JournalFormat.RecordHeaderSize + 1)..]);
                if (SlotFor(seqNum) >= _seqNums.Length)
                {
                    throw new StoreException($"the journal's current generation holds more than StoreMaxMessages={_seqNums.Length} messages; raise StoreMaxMessages to open it");
                }
            }

            Apply(size);
            offset += size;
        }
    }

    /// <summary>Applies the record of <paramref name="size"/> bytes at the end of the used part of the buffer.</summary>
    private void Apply(int size)
    {
        var record = _buffer.AsSpan(_used, size);
        var payload = record[(JournalFormat.RecordHeaderSize + 1)..];
        switch ((RecordType)record[JournalFormat.RecordHeaderSize])
        {
            case RecordType.Message:
            {
                int seqNum = BinaryPrimitives.ReadInt32LittleEndian(payload);
                int slot = SlotFor(seqNum);
                _seqNums[slot] = seqNum;
                _offsets[slot] = _used + JournalFormat.RecordHeaderSize + 1 + JournalFormat.MessagePrefixSize;
                _lengths[slot] = payload.Length - JournalFormat.MessagePrefixSize;
                _count = slot + 1;
                NextSender = seqNum + 1;
                break;
            }

            case RecordType.NextSender:
                NextSender = BinaryPrimitives.ReadInt32LittleEndian(payload);
                break;
            case RecordType.NextTarget:
                NextTarget = BinaryPrimitives.ReadInt32LittleEndian(payload);
                break;
            case RecordType.Generation:
                Generation = BinaryPrimitives.ReadInt64LittleEndian(payload);
                CreationTicks = BinaryPrimitives.ReadInt64LittleEndian(payload[8..]);
                NextSender = BinaryPrimitives.ReadInt32LittleEndian(payload[16..]);
                NextTarget = BinaryPrimitives.ReadInt32LittleEndian(payload[20..]);
                _count = 0;
                break;
        }

        _used += size;
    }

    /// <summary>Where a message with this MsgSeqNum goes: after the last, or over the first stored one not below it.</summary>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    private int SlotFor(int seqNum) =>
        _count == 0 || _seqNums[_count - 1] < seqNum ? _count : LowerBound(seqNum);

    /// <summary>Index of the first stored MsgSeqNum &gt;= <paramref name="seqNum"/>.</summary>
    private int LowerBound(int seqNum)
    {
        int lo = 0, hi = _count;
        var seqNums = _seqNums;
        while (lo < hi)
        {
            int mid = (lo + hi) >>> 1;
            if (seqNums[mid] < seqNum)
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

    /// <summary>Index of the first stored message with MsgSeqNum &gt;= <paramref name="seqNum"/>.</summary>
    public int FirstIndexAtOrAfter(int seqNum) => LowerBound(seqNum);

    public int SeqNumAt(int index) => _seqNums[index];

    public ReadOnlySpan<byte> MessageAt(int index) => new(_buffer, _offsets[index], _lengths[index]);
}
