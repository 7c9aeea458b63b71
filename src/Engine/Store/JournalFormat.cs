using System.Buffers.Binary;
using System.Numerics;

namespace RapidFix.Engine.Store;

/// <summary>Kinds of journal record.</summary>
internal enum RecordType : byte
{
    /// <summary>Starts a generation: generation number, creation time, next sender and target MsgSeqNum.</summary>
    Generation = 1,

    /// <summary>A sent message: MsgSeqNum then the wire bytes. Implies next sender = MsgSeqNum + 1.</summary>
    Message = 2,

    /// <summary>Next sender MsgSeqNum.</summary>
    NextSender = 3,

    /// <summary>Next target MsgSeqNum.</summary>
    NextTarget = 4,
}

/// <summary>
/// The journal's byte layout (little-endian). The file starts with an 8-byte magic; then records, each
/// <c>[length:u32][crc32c:u32][type:u8][payload]</c> where length counts type and payload, and the CRC-32C covers
/// the length field, the type and the payload. A record whose length is impossible or whose CRC does not match is
/// where the valid journal ends (a torn write): recovery cuts the file there.
/// </summary>
internal static class JournalFormat
{
    public const int FileHeaderSize = 8;
    public const int RecordHeaderSize = 8;
    public const int GenerationPayloadSize = 8 + 8 + 4 + 4;
    public const int SequencePayloadSize = 4;
    public const int MessagePrefixSize = 4;

    public static ReadOnlySpan<byte> FileMagic => "RFXJRN01"u8;

    /// <summary>Bytes a message of <paramref name="messageLength"/> bytes takes in the journal.</summary>
    public static int MessageRecordSize(int messageLength) => RecordHeaderSize + 1 + MessagePrefixSize + messageLength;

    public const int SequenceRecordSize = RecordHeaderSize + 1 + SequencePayloadSize;

    public const int GenerationRecordSize = RecordHeaderSize + 1 + GenerationPayloadSize;

    /// <summary>Writes the record header for a body (type + payload) already in place after it.</summary>
    public static void Seal(Span<byte> record, bool computeCrc)
    {
        int bodyLength = record.Length - RecordHeaderSize;
        BinaryPrimitives.WriteUInt32LittleEndian(record, (uint)bodyLength);
        uint crc = computeCrc ? Crc(record[..4], record[RecordHeaderSize..]) : 0;
        BinaryPrimitives.WriteUInt32LittleEndian(record[4..], crc);
    }

    /// <summary>Encodes a whole message record (<see cref="MessageRecordSize"/> bytes) with its CRC.</summary>
    public static void WriteMessage(Span<byte> record, int seqNum, ReadOnlySpan<byte> message)
    {
        record[RecordHeaderSize] = (byte)RecordType.Message;
        BinaryPrimitives.WriteInt32LittleEndian(record[(RecordHeaderSize + 1)..], seqNum);
        message.CopyTo(record[(RecordHeaderSize + 1 + MessagePrefixSize)..]);
        Seal(record, computeCrc: true);
    }

    /// <summary>Encodes a whole generation record (<see cref="GenerationRecordSize"/> bytes; next sender and target 1) with its CRC.</summary>
    public static void WriteGeneration(Span<byte> record, long generation, long creationTicks)
    {
        var payload = record[(RecordHeaderSize + 1)..];
        record[RecordHeaderSize] = (byte)RecordType.Generation;
        BinaryPrimitives.WriteInt64LittleEndian(payload, generation);
        BinaryPrimitives.WriteInt64LittleEndian(payload[8..], creationTicks);
        BinaryPrimitives.WriteInt32LittleEndian(payload[16..], 1);
        BinaryPrimitives.WriteInt32LittleEndian(payload[20..], 1);
        Seal(record, computeCrc: true);
    }

    /// <summary>CRC-32C of the length field followed by the body.</summary>
    public static uint Crc(ReadOnlySpan<byte> lengthField, ReadOnlySpan<byte> body) =>
        ~Update(Update(0xFFFF_FFFFu, lengthField), body);

    /// <summary>True when <paramref name="record"/> (header and body) carries a matching CRC.</summary>
    public static bool CrcMatches(ReadOnlySpan<byte> record) =>
        BinaryPrimitives.ReadUInt32LittleEndian(record[4..]) == Crc(record[..4], record[RecordHeaderSize..]);

    private static uint Update(uint crc, ReadOnlySpan<byte> data)
    {
        // BitOperations.Crc32C uses the CPU's CRC instruction where there is one; 8 bytes at a time, little-endian.
        int i = 0;
        for (; i + sizeof(ulong) <= data.Length; i += sizeof(ulong))
        {
            crc = BitOperations.Crc32C(crc, BinaryPrimitives.ReadUInt64LittleEndian(data[i..]));
        }

        for (; i < data.Length; i++)
        {
            crc = BitOperations.Crc32C(crc, data[i]);
        }

        return crc;
    }
}
