using System.Buffers.Binary;
using System.Runtime.CompilerServices;

namespace RapidFix.Engine.Codec;

/// <summary>
/// A MsgType (35) packed into one 64-bit number, so code can <c>switch</c> on it: the value's bytes little-endian,
/// zero-padded (the key the dictionary's MsgType table uses). The generated <c>MsgTypes</c> constants are such keys.
/// </summary>
public static class MsgTypeKey
{
    /// <summary>
    /// The key of <paramref name="msgType"/>; 0 for an empty value or one longer than 8 bytes (no MsgType the standard
    /// defines is; compare such a value as bytes).
    /// </summary>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    public static ulong Pack(ReadOnlySpan<byte> msgType)
    {
        switch (msgType.Length)
        {
            case 1:
                return msgType[0];
            case 2:
                return (ulong)(msgType[0] | (msgType[1] << 8));
            case 0 or > 8:
                return 0;
            default:
                Span<byte> eight = stackalloc byte[8];
                eight.Clear();
                msgType.CopyTo(eight);
                return BinaryPrimitives.ReadUInt64LittleEndian(eight);
        }
    }

    /// <summary>The key of a parsed message's MsgType.</summary>
    public static ulong Of(FixMessage message) => Pack(message.MsgType);
}
