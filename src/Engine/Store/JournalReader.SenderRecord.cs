using System.Buffers.Binary;

namespace RapidFix.Engine.Store;

/// <summary>
/// The layout of a message in a journal that records messages from several senders (the matching service's input
/// journal, docs/matching-service.md): <c>[sender CompID length u8][sender CompID][generation i64][FIX message]</c>,
/// the generation being that of the sender's session store (it ties the sender's MsgSeqNum to one sequence). The
/// service writes it and the persister reads it through this one type.
/// </summary>
public static class SenderRecord
{
    /// <summary>The longest sender CompID the layout holds.</summary>
    public const int MaxSenderLength = byte.MaxValue;

    /// <summary>Bytes a record of a sender and a message of these lengths takes.</summary>
    public static int SizeOf(int senderLength, int messageLength) => 1 + senderLength + sizeof(long) + messageLength;

    /// <summary>
    /// Writes a record into <paramref name="destination"/>; returns its length, or 0 (nothing usable written) when the
    /// sender is longer than <see cref="MaxSenderLength"/> or the record does not fit.
    /// </summary>
    public static int Write(Span<byte> destination, ReadOnlySpan<byte> sender, long generation, ReadOnlySpan<byte> message)
    {
        int length = SizeOf(sender.Length, message.Length);
        if (sender.Length > MaxSenderLength || length > destination.Length)
        {
            return 0;
        }

        destination[0] = (byte)sender.Length;
        sender.CopyTo(destination[1..]);
        BinaryPrimitives.WriteInt64LittleEndian(destination[(1 + sender.Length)..], generation);
        message.CopyTo(destination[(1 + sender.Length + sizeof(long))..]);
        return length;
    }

    /// <summary>Splits a record into its parts; false when it is too short to hold its own sender and generation.</summary>
    public static bool TryDecode(ReadOnlySpan<byte> record, out ReadOnlySpan<byte> sender, out long generation, out ReadOnlySpan<byte> message)
    {
        sender = default;
        message = default;
        generation = 0;
        if (record.Length < 1 || record.Length < 1 + record[0] + sizeof(long))
        {
            return false;
        }

        int n = record[0];
        sender = record.Slice(1, n);
        generation = BinaryPrimitives.ReadInt64LittleEndian(record[(1 + n)..]);
        message = record[(1 + n + sizeof(long))..];
        return true;
    }
}
