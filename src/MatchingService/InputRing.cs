using System.Buffers.Binary;
using System.Runtime.CompilerServices;
using System.Runtime.InteropServices;

namespace RapidFix.MatchingService;

/// <summary>
/// The accepted inbound messages on their way from the connection threads to the matcher thread: one byte ring,
/// created at startup, written under the caller's lock (the sequencer's, which also orders the journal) and read by
/// one consumer without a lock. A full ring refuses the write (the caller counts it and answers the participant);
/// it never grows.
/// </summary>
/// <remarks>
/// Entry layout, 32-byte aligned: [length i32 (of the whole entry)][participant i32][journal position i64]
/// [message length i32][read i32: 1 when a <see cref="ReadInput"/> follows the message][padding to 32][message bytes]
/// [padding to 8][the <see cref="ReadInput"/>, when read]. An entry that would straddle the end is preceded by a filler
/// entry (participant -1) up to the end, so every message and read input lies contiguous and is used in place.
/// </remarks>
internal sealed class InputRing
{
    /// <summary>The participant of a business-date roll entry (its message: the new date, 4 bytes little-endian).</summary>
    public const int BusinessDateRoll = int.MaxValue;

    private const int HeaderSize = 32; // also the alignment: a filler always has room for its header
    private readonly byte[] _buffer;
    private readonly int _mask;
    private long _tail;      // producers, under the caller's lock
    private long _published; // what the consumer may read
    private long _head;      // consumer: everything before this is free

    /// <param name="capacityBytes">Rounded up to a power of two; at least 64 KiB.</param>
    public InputRing(int capacityBytes)
    {
        int capacity = (int)Math.Min(1 << 30, System.Numerics.BitOperations.RoundUpToPowerOf2((uint)Math.Max(capacityBytes, 1 << 16)));
        _buffer = MemoryCommit.Touch(GC.AllocateArray<byte>(capacity, pinned: true)); // committed now, not on its first pass
        _mask = capacity - 1;
    }

    public int Capacity => _buffer.Length;

    /// <summary>Bytes written and not yet released by the consumer.</summary>
    public long UsedBytes => Volatile.Read(ref _published) - Volatile.Read(ref _head);

    /// <summary>Whether an entry for a message of <paramref name="messageLength"/> bytes fits now (caller's lock held).</summary>
    public bool HasRoomFor(int messageLength, bool read = false) =>
        RoomNeeded(EntrySize(messageLength, read)) <= _buffer.Length - (_tail - Volatile.Read(ref _head));

    /// <summary>Writes an entry (caller's lock held, after <see cref="HasRoomFor"/> said yes) and publishes it.</summary>
    public void Write(int participant, long journalPosition, ReadOnlySpan<byte> message) =>
        Write(participant, journalPosition, message, in Unsafe.NullRef<ReadInput>(), read: false);

    /// <summary>
    /// Writes an entry with the input the connection thread read from the message (<paramref name="read"/> true:
    /// <paramref name="input"/> follows the message), after <see cref="HasRoomFor"/> said yes for it, and publishes it.
    /// </summary>
    public void Write(int participant, long journalPosition, ReadOnlySpan<byte> message, in ReadInput input, bool read)
    {
        int entry = EntrySize(message.Length, read);
        int at = (int)(_tail & _mask);
        int toEnd = _buffer.Length - at;
        if (toEnd < entry)
        {
            WriteHeader(at, toEnd, -1, 0, 0, false);
            _tail += toEnd;
            at = 0;
        }

        WriteHeader(at, entry, participant, journalPosition, message.Length, read);
        message.CopyTo(_buffer.AsSpan(at + HeaderSize));
        if (read)
        {
            MemoryMarshal.Write(_buffer.AsSpan(at + ReadInputOffset(message.Length), ReadInput.Size), in input);
        }

        _tail += entry;
        Volatile.Write(ref _published, _tail);
    }

    /// <summary>Consumer: the read input of <paramref name="entry"/> (only when <see cref="InputEntry.Read"/>), in place.</summary>
    public ref readonly ReadInput ReadInputOf(in InputEntry entry) =>
        ref MemoryMarshal.AsRef<ReadInput>(_buffer.AsSpan(entry.Offset - HeaderSize + ReadInputOffset(entry.Length), ReadInput.Size));

    /// <summary>
    /// Consumer: the entry at <paramref name="cursor"/> (start with <see cref="ReadStart"/>), skipping fillers;
    /// false when nothing more is published. The message stays valid until <see cref="Release"/> passes it.
    /// </summary>
    public bool TryRead(ref long cursor, out InputEntry entry)
    {
        long published = Volatile.Read(ref _published);
        while (cursor < published)
        {
            int at = (int)(cursor & _mask);
            var header = _buffer.AsSpan(at, HeaderSize);
            int length = BinaryPrimitives.ReadInt32LittleEndian(header);
            int participant = BinaryPrimitives.ReadInt32LittleEndian(header.Slice(4));
            cursor += length;
            if (participant < 0)
            {
                continue;
            }

            entry = new InputEntry(participant, BinaryPrimitives.ReadInt64LittleEndian(header.Slice(8)), at + HeaderSize,
                BinaryPrimitives.ReadInt32LittleEndian(header.Slice(16)), BinaryPrimitives.ReadInt32LittleEndian(header.Slice(20)) != 0);
            return true;
        }

        entry = default;
        return false;
    }

    /// <summary>Where the consumer starts reading: just past what it released last.</summary>
    public long ReadStart => Volatile.Read(ref _head);

    /// <summary>Consumer: entries before <paramref name="cursor"/> are done; their space is free again.</summary>
    public void Release(long cursor) => Volatile.Write(ref _head, cursor);

    /// <summary>The ring's bytes (messages are parsed in place).</summary>
    public byte[] Buffer => _buffer;

    private int RoomNeeded(int entry)
    {
        int at = (int)(_tail & _mask);
        int toEnd = _buffer.Length - at;
        return toEnd < entry ? entry + toEnd : entry;
    }

    // From the entry's start: the read input follows the message, 8-byte aligned.
    private static int ReadInputOffset(int messageLength) => (HeaderSize + messageLength + 7) & ~7;

    private static int EntrySize(int messageLength, bool read) =>
        ((read ? ReadInputOffset(messageLength) + ReadInput.Size : HeaderSize + messageLength) + HeaderSize - 1) & ~(HeaderSize - 1);

    private void WriteHeader(int at, int length, int participant, long position, int messageLength, bool read)
    {
        var header = _buffer.AsSpan(at, HeaderSize);
        BinaryPrimitives.WriteInt32LittleEndian(header, length);
        BinaryPrimitives.WriteInt32LittleEndian(header.Slice(4), participant);
        BinaryPrimitives.WriteInt64LittleEndian(header.Slice(8), position);
        BinaryPrimitives.WriteInt32LittleEndian(header.Slice(16), messageLength);
        BinaryPrimitives.WriteInt32LittleEndian(header.Slice(20), read ? 1 : 0);
    }
}

/// <summary>One message read from the <see cref="InputRing"/>.</summary>
/// <param name="Participant">Index of the sending participant.</param>
/// <param name="JournalPosition">The input journal's position just past this message's record.</param>
/// <param name="Offset">Where the message starts in <see cref="InputRing.Buffer"/>.</param>
/// <param name="Length">The message's length.</param>
/// <param name="Read">Whether the connection thread's <see cref="ReadInput"/> follows the message (<see cref="InputRing.ReadInputOf"/>).</param>
internal readonly record struct InputEntry(int Participant, long JournalPosition, int Offset, int Length, bool Read = false);
