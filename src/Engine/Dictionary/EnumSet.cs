using System.Runtime.CompilerServices;

namespace RapidFix.Engine.Dictionary;

/// <summary>
/// The allowed values of an enumerated field, compiled for allocation-free membership tests: one-byte values in a
/// 128-bit map, values of 2 to 8 bytes packed into sorted 64-bit keys, longer values compared byte by byte.
/// </summary>
public sealed class EnumSet
{
    private readonly ulong _singleLow;
    private readonly ulong _singleHigh;
    private readonly ulong[] _packed;
    private readonly byte[][] _long;
    private readonly Dictionary<string, string> _descriptions;

    internal EnumSet(IReadOnlyList<(string Value, string Description)> values)
    {
        var packed = new List<ulong>();
        var longValues = new List<byte[]>();
        _descriptions = new Dictionary<string, string>(StringComparer.Ordinal);
        foreach (var (value, description) in values)
        {
            _descriptions[value] = description;
            var bytes = System.Text.Encoding.ASCII.GetBytes(value);
            if (bytes.Length == 1 && bytes[0] < 128)
            {
                if (bytes[0] < 64)
                {
                    _singleLow |= 1UL << bytes[0];
                }
                else
                {
                    _singleHigh |= 1UL << (bytes[0] - 64);
                }
            }
            else if (bytes.Length is >= 1 and <= 8)
            {
                packed.Add(Pack(bytes));
            }
            else
            {
                longValues.Add(bytes);
            }
        }

        packed.Sort();
        _packed = packed.Distinct().ToArray();
        _long = longValues.ToArray();
        Count = _descriptions.Count;
    }

    /// <summary>Number of distinct values.</summary>
    public int Count { get; }

    /// <summary>The values and their descriptions, as the dictionary lists them.</summary>
    public IReadOnlyDictionary<string, string> Descriptions => _descriptions;

    /// <summary>True when <paramref name="value"/> is one of the allowed values.</summary>
    public bool Contains(ReadOnlySpan<byte> value)
    {
        if (value.Length == 1)
        {
            byte b = value[0];
            return b < 64 ? ((_singleLow >> b) & 1) != 0 : b < 128 && ((_singleHigh >> (b - 64)) & 1) != 0;
        }

        if (value.Length is >= 2 and <= 8)
        {
            return Array.BinarySearch(_packed, Pack(value)) >= 0;
        }

        foreach (var candidate in _long)
        {
            if (value.SequenceEqual(candidate))
            {
                return true;
            }
        }

        return false;
    }

    /// <summary>True when every space-separated token of <paramref name="value"/> is allowed (MultipleValueString and friends).</summary>
    public bool ContainsAll(ReadOnlySpan<byte> value)
    {
        if (value.Length == 0)
        {
            return false;
        }

        while (true)
        {
            int space = value.IndexOf((byte)' ');
            var token = space < 0 ? value : value.Slice(0, space);
            if (!Contains(token))
            {
                return false;
            }

            if (space < 0)
            {
                return true;
            }

            value = value.Slice(space + 1);
        }
    }

    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    private static ulong Pack(ReadOnlySpan<byte> bytes)
    {
        // Little-endian packing padded with zero bytes; FIX values never contain NUL, so keys are unambiguous.
        ulong key = 0;
        for (int i = 0; i < bytes.Length; i++)
        {
            key |= (ulong)bytes[i] << (8 * i);
        }

        return key;
    }
}
