using System.Runtime.CompilerServices;

namespace RapidFix.Fast.Codec;

/// <summary>
/// A presence map being written. Its first 63 bits (nine bytes of seven) collect in <see cref="Bits"/>, the map's
/// first bit highest, so that setting one is a register operation; the encoder writes them out when the map ends.
/// Bits after those, in a longer map, go straight into the bytes reserved for it.
/// </summary>
internal struct PmapWriter
{
    /// <summary>How many of the map's bits <see cref="Bits"/> holds.</summary>
    public const int RegisterBits = 63;

    /// <summary>How many of the map's bytes <see cref="Bits"/> holds.</summary>
    public const int RegisterBytes = RegisterBits / 7;

    public int Start;
    public int Reserved;
    public int Bit;
    public ulong Bits;

    /// <summary>Sets the next bit to <paramref name="bit"/> (a bit past the reserved bytes is dropped).</summary>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    public void Set(bool bit, Span<byte> dst)
    {
        if (bit && Bit < Reserved * 7)
        {
            if (Bit < RegisterBits)
            {
                Bits |= 1UL << (RegisterBits - 1 - Bit);
            }
            else
            {
                dst[Start + (Bit / 7)] |= (byte)(0x40 >> (Bit % 7));
            }
        }

        Bit++;
    }

    /// <summary>Byte <paramref name="index"/> (below <see cref="RegisterBytes"/>) of the map, without its stop bit.</summary>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    public readonly byte RegisterByte(int index) => (byte)((Bits >> (RegisterBits - 7 - (7 * index))) & 0x7F);
}
