namespace RapidFix.Fast.Framing;

/// <summary>How FAST messages are delimited in a stream, file or packet.</summary>
public enum FastFraming
{
    /// <summary>Messages back to back; each one's end is found by decoding it.</summary>
    Raw,

    /// <summary>A 4-byte little-endian length before each frame.</summary>
    LengthPrefixLittleEndian,

    /// <summary>A 4-byte big-endian (network order) length before each frame.</summary>
    LengthPrefixBigEndian,

    /// <summary>A stop-bit encoded uInt32 block length before each frame (FAST 1.1 block encoding; 0 is error D12).</summary>
    StopBitBlock,

    /// <summary>CME's original FAST packets: a 4-byte big-endian sequence number and a 1-byte sub-channel, then one message.</summary>
    CmePreamble,
}

/// <summary>Writes frame headers (the encoding side of <see cref="FastStreamReader"/>).</summary>
public static class FastFrameWriter
{
    /// <summary>Bytes the header of a frame of <paramref name="length"/> bytes takes.</summary>
    public static int HeaderSize(FastFraming framing, int length) => framing switch
    {
        FastFraming.Raw => 0,
        FastFraming.LengthPrefixLittleEndian or FastFraming.LengthPrefixBigEndian => 4,
        FastFraming.StopBitBlock => StopBitSize((uint)length),
        _ => 5,
    };

    /// <summary>Writes the header of a frame of <paramref name="length"/> bytes; returns its size, or -1 when it does not fit.</summary>
    public static int WriteHeader(FastFraming framing, Span<byte> destination, int length, uint sequenceNumber = 0, byte subChannel = 0)
    {
        int size = HeaderSize(framing, length);
        if (size > destination.Length)
        {
            return -1;
        }

        switch (framing)
        {
            case FastFraming.LengthPrefixLittleEndian:
                System.Buffers.Binary.BinaryPrimitives.WriteInt32LittleEndian(destination, length);
                break;
            case FastFraming.LengthPrefixBigEndian:
                System.Buffers.Binary.BinaryPrimitives.WriteInt32BigEndian(destination, length);
                break;
            case FastFraming.StopBitBlock:
                uint v = (uint)length;
                for (int i = size - 1; i >= 0; i--)
                {
                    destination[i] = (byte)(v & 0x7F);
                    v >>= 7;
                }

                destination[size - 1] |= 0x80;
                break;
            case FastFraming.CmePreamble:
                System.Buffers.Binary.BinaryPrimitives.WriteUInt32BigEndian(destination, sequenceNumber);
                destination[4] = subChannel;
                break;
        }

        return size;
    }

    private static int StopBitSize(uint value)
    {
        int n = 1;
        while ((value >>= 7) != 0)
        {
            n++;
        }

        return n;
    }
}
