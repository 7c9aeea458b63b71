using System.Runtime.CompilerServices;

namespace RapidFix.Fast.Codec;

/// <summary>
/// A presence map being read: 7 bits a byte, most significant first; bits past the last byte are implicitly 0.
/// Holds a window of the loaded bits, left-aligned (up to 63 of them), and where the next unloaded byte is.
/// </summary>
internal struct PresenceMap
{
    private ulong _bits;
    private int _available;
    private int _next;
    private int _end;

    /// <summary>The presence map in <paramref name="data"/> from <paramref name="start"/> to <paramref name="end"/>, its first 9 bytes (63 bits) loaded.</summary>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    public PresenceMap(ReadOnlySpan<byte> data, int start, int end)
    {
        int loaded = Math.Min(end - start, MaxLoadedBits / 7);
        ulong bits = 0;
        for (int i = 0; i < loaded; i++)
        {
            bits |= (ulong)(data[start + i] & 0x7F) << (57 - (7 * i));
        }

        _bits = bits;
        _available = 7 * loaded;
        _next = start + loaded;
        _end = end;
    }

    /// <summary>
    /// A presence map of the one byte <paramref name="value"/> that ends at <paramref name="end"/> (the usual message
    /// map), its first bit (the template identifier's) already read.
    /// </summary>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    public static PresenceMap OneByteAfterFirstBit(byte value, int end)
    {
        PresenceMap pm;
        pm._bits = (ulong)(value & 0x3F) << 58;
        pm._available = 6;
        pm._next = end;
        pm._end = end;
        return pm;
    }

    /// <summary>Bits loaded when the map is read: a body that reads no more can use <see cref="NextLoaded()"/>.</summary>
    public const int MaxLoadedBits = 63;

    /// <summary>
    /// Reads the next bit of a map whose reader takes at most <see cref="MaxLoadedBits"/> bits in all (compiled
    /// bodies): those are all loaded, and the bits past the map's end are 0, so no byte is read here.
    /// </summary>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    public bool NextLoaded()
    {
        bool bit = (long)_bits < 0;
        _bits <<= 1;
        return bit;
    }

    /// <summary>
    /// The loaded window alone, for compiled bodies: they keep it in a local of their own (a lone <c>ulong</c> the
    /// JIT keeps in a register more readily than a field of this struct) and read it with
    /// <see cref="NextLoaded(ref ulong)"/>.
    /// </summary>
    public ulong LoadedBits
    {
        readonly get => _bits;
        set => _bits = value;
    }

    /// <summary><see cref="NextLoaded()"/> on a window held by the caller.</summary>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    public static bool NextLoaded(ref ulong bits)
    {
        bool bit = (long)bits < 0;
        bits <<= 1;
        return bit;
    }

    /// <summary>Reads the next bit.</summary>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    public bool Next(ReadOnlySpan<byte> data)
    {
        if (_available == 0)
        {
            if (_next >= _end)
            {
                return false;
            }

            _bits = (ulong)(data[_next++] & 0x7F) << 57;
            _available = 7;
        }

        bool bit = (long)_bits < 0;
        _bits <<= 1;
        _available--;
        return bit;
    }

    /// <summary>True when a bit that no instruction read is set (R8: more bits than required).</summary>
    public readonly bool HasUnreadSetBits(ReadOnlySpan<byte> data)
    {
        if (_bits != 0)
        {
            return true;
        }

        for (int i = _next; i < _end; i++)
        {
            if ((data[i] & 0x7F) != 0)
            {
                return true;
            }
        }

        return false;
    }
}
