using System.Runtime.CompilerServices;

namespace RapidFix.Fast.Codec;

/// <summary>
/// A presence map being read: 7 bits a byte, most significant first; bits past the last byte are implicitly 0.
/// Holds a window of the current byte's bits, left-aligned, and where the next byte is.
/// </summary>
internal struct PresenceMap
{
    private ulong _bits;
    private int _available;
    private int _next;
    private int _end;

    public PresenceMap(int start, int end)
    {
        _bits = 0;
        _available = 0;
        _next = start;
        _end = end;
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

    /// <summary>False when every bit was read or is implicitly 0: then <see cref="HasUnreadSetBits"/> is false too.</summary>
    public readonly bool MayHaveUnreadBits => _bits != 0 || _next < _end;

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
