using System.Buffers.Binary;

namespace RapidFix.Gateway;

/// <summary>One forwarded message as the ring holds it: a view valid until <see cref="ForwardRing.Release"/>.</summary>
internal readonly ref struct ForwardRecord
{
    public ForwardRecord(int service, int participant, int participantSeq, ReadOnlySpan<byte> msgType, ReadOnlySpan<byte> body, int size)
    {
        Service = service;
        Participant = participant;
        ParticipantSeq = participantSeq;
        MsgType = msgType;
        Body = body;
        Size = size;
    }

    public int Service { get; }

    public int Participant { get; }

    /// <summary>The MsgSeqNum the participant sent it with (a RefSeqNum of the answer is turned back into it).</summary>
    public int ParticipantSeq { get; }

    public ReadOnlySpan<byte> MsgType { get; }

    public ReadOnlySpan<byte> Body { get; }

    /// <summary>Bytes the record takes in the ring (what <see cref="ForwardRing.Release"/> frees).</summary>
    public int Size { get; }
}

/// <summary>
/// The bytes between the participants' connection threads (many writers, each under its own session's lock) and the
/// forwarder thread (one reader). Why not forward on the connection thread: the answer path takes a participant's
/// session lock while holding a service session's lock; forwarding there would take them the other way round, and two
/// threads doing both at once would deadlock. A full ring refuses (the caller answers "application not available");
/// it never grows. One lock, held for a copy; the reader reads a record in place (writers never touch the used part).
/// </summary>
internal sealed class ForwardRing
{
    private const int HeaderBytes = 16; // size, service, participant, participant's MsgSeqNum; then type length, type, body
    private const int WrapMarker = -1;

    private readonly byte[] _buffer;
    private readonly object _sync = new();
    private int _head;
    private int _tail;
    private int _used;
    private long _refused;

    public ForwardRing(int bytes)
    {
        ArgumentOutOfRangeException.ThrowIfLessThan(bytes, 1024);
        _buffer = GC.AllocateArray<byte>(bytes, pinned: true);
    }

    /// <summary>Bytes in use (records and the waste of a wrap).</summary>
    public int Used => Volatile.Read(ref _used);

    /// <summary>Messages refused because the ring was full.</summary>
    public long Refused => Interlocked.Read(ref _refused);

    /// <summary>Copies a message in; false (counted) when there is no room.</summary>
    public bool TryWrite(int service, int participant, int participantSeq, ReadOnlySpan<byte> msgType, ReadOnlySpan<byte> body)
    {
        int size = HeaderBytes + 1 + msgType.Length + body.Length;
        lock (_sync)
        {
            int waste = _tail + size > _buffer.Length ? _buffer.Length - _tail : 0;
            if (size + waste > _buffer.Length - _used || msgType.Length > byte.MaxValue)
            {
                _refused++;
                return false;
            }

            if (waste > 0)
            {
                if (waste >= 4)
                {
                    BinaryPrimitives.WriteInt32LittleEndian(_buffer.AsSpan(_tail), WrapMarker);
                }

                _used += waste;
                _tail = 0;
            }

            var to = _buffer.AsSpan(_tail, size);
            BinaryPrimitives.WriteInt32LittleEndian(to, size);
            BinaryPrimitives.WriteInt32LittleEndian(to[4..], service);
            BinaryPrimitives.WriteInt32LittleEndian(to[8..], participant);
            BinaryPrimitives.WriteInt32LittleEndian(to[12..], participantSeq);
            to[HeaderBytes] = (byte)msgType.Length;
            msgType.CopyTo(to[(HeaderBytes + 1)..]);
            body.CopyTo(to[(HeaderBytes + 1 + msgType.Length)..]);
            _tail += size;
            _used += size;
            return true;
        }
    }

    /// <summary>The oldest record, read in place (one reader only); false when the ring is empty.</summary>
    public bool TryPeek(out ForwardRecord record)
    {
        int head;
        lock (_sync)
        {
            if (_used == 0)
            {
                record = default;
                return false;
            }

            int rest = _buffer.Length - _head;
            if (rest < 4 || BinaryPrimitives.ReadInt32LittleEndian(_buffer.AsSpan(_head)) == WrapMarker)
            {
                _used -= rest;
                _head = 0;
            }

            head = _head;
        }

        var from = _buffer.AsSpan(head);
        int size = BinaryPrimitives.ReadInt32LittleEndian(from);
        int typeLength = from[HeaderBytes];
        record = new ForwardRecord(BinaryPrimitives.ReadInt32LittleEndian(from[4..]), BinaryPrimitives.ReadInt32LittleEndian(from[8..]),
            BinaryPrimitives.ReadInt32LittleEndian(from[12..]), from.Slice(HeaderBytes + 1, typeLength),
            from.Slice(HeaderBytes + 1 + typeLength, size - HeaderBytes - 1 - typeLength), size);
        return true;
    }

    /// <summary>Frees the record <see cref="TryPeek"/> returned.</summary>
    public void Release(int size)
    {
        lock (_sync)
        {
            _head += size;
            _used -= size;
            if (_used == 0)
            {
                _head = 0; // empty: start again at the front, no wrap needed for the next records
                _tail = 0;
            }
        }
    }
}
