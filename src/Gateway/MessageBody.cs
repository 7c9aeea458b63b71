using RapidFix.Engine.Codec;
using RapidFix.Engine.Fields;
using RapidFix.Engine.Sessions;

namespace RapidFix.Gateway;

/// <summary>The body of a received message as bytes, and the one field the gateway ever changes in one.</summary>
internal static class MessageBody
{
    /// <summary>"10=nnn&lt;SOH&gt;": the trailer of a framed message is always these 7 bytes.</summary>
    private const int TrailerBytes = 7;

    /// <summary>
    /// The body fields of a received message, in place: from the first field after the standard header to the
    /// trailer. The session writes its own header when it sends them on, so the body goes unchanged (no re-encoding).
    /// Needs the message parsed with its dictionary (which tags are header tags); empty when it has no body.
    /// </summary>
    public static ReadOnlySpan<byte> Of(FixMessage message)
    {
        var dictionary = message.Dictionary;
        int end = message.Length - TrailerBytes;
        for (int i = 3; i < message.FieldCount; i++)
        {
            int tag = message.GetTag(i);
            if (dictionary is not null && dictionary.IsHeaderField(tag))
            {
                continue;
            }

            int start = message.GetValueOffsetAt(i) - FixValue.CountDigits((ulong)tag) - 1;
            return start < end ? message.Bytes[start..end] : default;
        }

        return default;
    }

    /// <summary>
    /// The body of <paramref name="message"/> written into <paramref name="buffer"/> with RefSeqNum (45) set to
    /// <paramref name="refSeqNum"/>, every other field as it came (a BusinessMessageReject's RefSeqNum names the
    /// gateway's message to the service; the participant must get its own number back). Returns the bytes written.
    /// </summary>
    public static int WithRefSeqNum(FixMessage message, int refSeqNum, byte[] buffer)
    {
        var body = Of(message);
        int bodyStart = body.IsEmpty ? message.Length : message.Length - TrailerBytes - body.Length;
        var writer = new FixBodyWriter(buffer);
        for (int i = 3; i < message.FieldCount; i++)
        {
            int tag = message.GetTag(i);
            int valueOffset = message.GetValueOffsetAt(i);
            if (valueOffset < bodyStart || tag == Tags.CheckSum)
            {
                continue;
            }

            if (tag == Tags.RefSeqNum)
            {
                writer.Add(tag, refSeqNum);
            }
            else
            {
                writer.Add(tag, message.GetValueAt(i));
            }
        }

        return writer.Written.Length;
    }
}
