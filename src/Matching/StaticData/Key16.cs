using System.Buffers.Binary;

namespace RapidFix.Matching.StaticData;

/// <summary>
/// Up to 16 bytes packed into two integers with the length: a dictionary key for IDs and codes that compares and
/// hashes without allocating (and without the process-randomised string hash, so lookups are deterministic).
/// </summary>
internal readonly struct Key16 : IEquatable<Key16>
{
    private readonly ulong _a;
    private readonly ulong _b;
    private readonly int _length;

    private Key16(ulong a, ulong b, int length)
    {
        _a = a;
        _b = b;
        _length = length;
    }

    /// <summary>False when <paramref name="bytes"/> is empty or longer than 16.</summary>
    public static bool TryCreate(ReadOnlySpan<byte> bytes, out Key16 key)
    {
        if (bytes.Length is 0 or > 16)
        {
            key = default;
            return false;
        }

        // Two words read straight from the bytes (overlapping reads for lengths that are not 8 or 16); with the
        // length in the key this is one-to-one, and load and lookup build keys the same way.
        key = bytes.Length > 8
            ? new Key16(BinaryPrimitives.ReadUInt64LittleEndian(bytes), Load8(bytes[8..]), bytes.Length)
            : new Key16(Load8(bytes), 0, bytes.Length);
        return true;
    }

    /// <summary>Up to 8 bytes as one word (overlapping reads for 4 to 7 bytes).</summary>
    internal static ulong Load8(ReadOnlySpan<byte> bytes)
    {
        int n = bytes.Length;
        if (n >= 8)
        {
            return BinaryPrimitives.ReadUInt64LittleEndian(bytes);
        }

        if (n >= 4)
        {
            return BinaryPrimitives.ReadUInt32LittleEndian(bytes) | ((ulong)BinaryPrimitives.ReadUInt32LittleEndian(bytes[(n - 4)..]) << 32);
        }

        ulong v = 0;
        for (int i = 0; i < n; i++)
        {
            v |= (ulong)bytes[i] << (8 * i);
        }

        return v;
    }

    public bool Equals(Key16 other) => _a == other._a && _b == other._b && _length == other._length;

    public override bool Equals(object? obj) => obj is Key16 k && Equals(k);

    public override int GetHashCode()
    {
        ulong h = (_a * 0x9E3779B97F4A7C15UL) ^ (_b + (ulong)_length) * 0xC2B2AE3D27D4EB4FUL;
        return (int)(h ^ (h >> 32));
    }
}

/// <summary>
/// A frozen open-addressing table from <see cref="Key16"/> to an index, built once after loading: a lookup hashes
/// the key and compares it in place (a dictionary adds a bucket-to-entry indirection and a comparer per probe).
/// </summary>
internal sealed class KeyTable
{
    private readonly Key16[] _keys;
    private readonly int[] _values; // -1 empty
    private readonly int _mask;

    /// <summary>Copies <paramref name="map"/> (load factor at most 1/2).</summary>
    public KeyTable(Dictionary<Key16, int> map)
    {
        int size = (int)System.Numerics.BitOperations.RoundUpToPowerOf2((uint)Math.Max(16, map.Count * 2));
        _keys = new Key16[size];
        _values = new int[size];
        _mask = size - 1;
        Array.Fill(_values, -1);
        foreach (var (key, value) in map)
        {
            int i = key.GetHashCode() & _mask;
            while (_values[i] >= 0)
            {
                i = (i + 1) & _mask;
            }

            _keys[i] = key;
            _values[i] = value;
        }
    }

    /// <summary>The index of <paramref name="id"/>, or -1.</summary>
    public int Find(ReadOnlySpan<byte> id)
    {
        if (!Key16.TryCreate(id, out var key))
        {
            return -1;
        }

        for (int i = key.GetHashCode() & _mask; ; i = (i + 1) & _mask)
        {
            int v = _values[i];
            if (v < 0 || _keys[i].Equals(key))
            {
                return v;
            }
        }
    }
}
