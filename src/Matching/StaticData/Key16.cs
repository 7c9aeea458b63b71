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

        Span<byte> buffer = stackalloc byte[16];
        buffer.Clear();
        bytes.CopyTo(buffer);
        key = new Key16(BinaryPrimitives.ReadUInt64LittleEndian(buffer), BinaryPrimitives.ReadUInt64LittleEndian(buffer[8..]), bytes.Length);
        return true;
    }

    public bool Equals(Key16 other) => _a == other._a && _b == other._b && _length == other._length;

    public override bool Equals(object? obj) => obj is Key16 k && Equals(k);

    public override int GetHashCode()
    {
        ulong h = (_a * 0x9E3779B97F4A7C15UL) ^ (_b + (ulong)_length) * 0xC2B2AE3D27D4EB4FUL;
        return (int)(h ^ (h >> 32));
    }
}
