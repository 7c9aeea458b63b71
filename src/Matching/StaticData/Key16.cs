using System.Buffers.Binary;
using System.Runtime.CompilerServices;
using System.Runtime.InteropServices;

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
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
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

    /// <summary>The first word (bytes 0..7).</summary>
    internal ulong A => _a;

    /// <summary>The second word (bytes 8..15, or 0).</summary>
    internal ulong B => _b;

    /// <summary>The number of bytes (1..16; 0 only in a default, empty key).</summary>
    internal int Length => _length;

    public bool Equals(Key16 other) => _a == other._a && _b == other._b && _length == other._length;

    public override bool Equals(object? obj) => obj is Key16 k && Equals(k);

    public override int GetHashCode() => (int)(Hash(_a, _b, _length) >> 32);

    /// <summary>
    /// The 64-bit hash of the key made of these words and length: each word times an odd constant, summed. Only the
    /// high bits are well spread (every bit of a word reaches them through the product), so <see cref="KeyTable"/>
    /// takes its probe start from the top bits (<see cref="GetHashCode"/> is the top 32): two independent
    /// multiplications and an add on the lookup's path, where a full finaliser (murmur3's fmix64 after the products,
    /// as before) added two dependent multiplications and three shifts. With the low bits, IDs that differ only in
    /// their last characters (a counter at the end of an ISIN or a participant ID) would pile up (with the bare
    /// products' low bits, 100,000 ISINs lay 50 entries on average from where their probe started).
    /// </summary>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    internal static ulong Hash(ulong a, ulong b, int length) =>
        (a * 0x9E3779B97F4A7C15UL) + ((b + (ulong)length) * 0xC2B2AE3D27D4EB4FUL);
}

/// <summary>
/// A frozen open-addressing table from <see cref="Key16"/> to an index, built once after loading: a lookup hashes
/// the key and compares it in place (a dictionary adds a bucket-to-entry indirection and a comparer per probe).
/// Key, value and a payload (the facts about the row a matcher checks next: a participant's roles, an account's
/// manager) sit side by side in one 32-byte entry, so a probe reads one cache line, not one for the key, another
/// for the value and a chain of loads for the row's facts: with many thousand securities the table no longer fits
/// the first-level caches, and every lookup stays O(1) at load factor at most 1/2.
/// </summary>
internal sealed class KeyTable
{
    private const int EntryShift = 5; // 32-byte entries

    // The entries, in a pinned byte array from its first 64-byte boundary on (an Entry[] starts wherever the
    // allocator put it, and half its 32-byte entries would straddle two lines).
    private readonly byte[] _data;
    private readonly int _offset;
    private readonly int _mask;
    private readonly int _shift; // the probe starts at the hash's top log2(size) bits

    /// <summary>Copies <paramref name="map"/> (load factor at most 1/2); <paramref name="payload"/> gives each value's payload (0 without).</summary>
    public unsafe KeyTable(Dictionary<Key16, int> map, Func<int, int>? payload = null)
    {
        int size = (int)System.Numerics.BitOperations.RoundUpToPowerOf2((uint)Math.Max(16, map.Count * 2));
        _data = GC.AllocateArray<byte>((size << EntryShift) + 64, pinned: true);
        long address = (long)Unsafe.AsPointer(ref MemoryMarshal.GetArrayDataReference(_data));
        _offset = (int)((64 - (address & 63)) & 63);
        _mask = size - 1;
        _shift = 64 - System.Numerics.BitOperations.Log2((uint)size);
        foreach (var (key, value) in map)
        {
            int i = Start(key.A, key.B, key.Length);
            while (At(i).Length != 0)
            {
                i = (i + 1) & _mask;
            }

            At(i) = new Entry { A = key.A, B = key.B, Length = key.Length, Value = value, Payload = payload?.Invoke(value) ?? 0 };
        }
    }

    /// <summary>The index of <paramref name="id"/>, or -1 (inlined: a message makes four to six lookups).</summary>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    public int Find(ReadOnlySpan<byte> id) => Find(id, out _);

    /// <summary>The index of <paramref name="id"/> and its payload, or -1 (and 0).</summary>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    public int Find(ReadOnlySpan<byte> id, out int payload)
    {
        payload = 0;
        if (!Key16.TryCreate(id, out var key))
        {
            return -1;
        }

        for (int i = Start(key.A, key.B, key.Length); ; i = (i + 1) & _mask)
        {
            ref var e = ref At(i);
            if (e.Length == 0)
            {
                return -1;
            }

            if (e.A == key.A && e.B == key.B && e.Length == key.Length)
            {
                payload = e.Payload;
                return e.Value;
            }
        }
    }

    /// <summary>The mean distance of the keys from where their probe starts (a diagnostic for tests: about 0.5 at half load when the hash spreads them).</summary>
    internal double MeanDisplacement()
    {
        long used = 0, displacement = 0;
        for (int i = 0; i <= _mask; i++)
        {
            ref var e = ref At(i);
            if (e.Length != 0)
            {
                used++;
                displacement += (i - Start(e.A, e.B, e.Length)) & _mask;
            }
        }

        return used == 0 ? 0 : displacement / (double)used;
    }

    /// <summary>Entry <paramref name="i"/> (at most the mask: every caller masks it).</summary>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    private ref Entry At(int i) =>
        ref Unsafe.As<byte, Entry>(ref Unsafe.Add(ref MemoryMarshal.GetArrayDataReference(_data), _offset + (i << EntryShift)));

    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    private int Start(ulong a, ulong b, int length) => (int)(Key16.Hash(a, b, length) >> _shift);

    [StructLayout(LayoutKind.Sequential, Size = 1 << EntryShift)]
    private struct Entry
    {
        public ulong A;
        public ulong B;
        public int Length;
        public int Value;
        public int Payload; // with the padding: 32 bytes, two entries a cache line
    }
}
