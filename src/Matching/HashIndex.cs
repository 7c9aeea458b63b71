using System.Numerics;
using System.Runtime.CompilerServices;
using System.Runtime.Intrinsics.X86;

namespace RapidFix.Matching;

/// <summary>
/// An open-addressing (linear probing) index from a 32-bit hash to rows of a table, sized at construction. Each
/// entry packs the hash and the row into 8 bytes, so a lookup compares hashes inside one or two cache lines and
/// touches a row only when its hash matches: with a million rows, chains through the rows themselves cost a cache
/// miss per link. Rows of one hash are visited in insertion order (oldest first) and removal shifts later entries
/// back (no tombstones), which keeps that order; both depend only on the sequence of adds and removes, so the
/// matcher stays deterministic. Never grows: the owner never holds more rows than the capacity given.
/// </summary>
internal sealed class HashIndex
{
    private readonly ulong[] _entries; // 0 empty, else (hash << 32) | (row + 1)
    private readonly int _mask;

    /// <summary>Allocates an index for at most <paramref name="rows"/> rows (load factor at most 2/3).</summary>
    public HashIndex(int rows)
    {
        int size = (int)BitOperations.RoundUpToPowerOf2((uint)Math.Max(16, rows + rows / 2));
        _entries = LargeTables.Allocate<ulong>(size);
        _mask = size - 1;
    }

    /// <summary>Where the probe for <paramref name="hash"/> starts (pass to <see cref="Next"/>).</summary>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    public int Start(uint hash) => (int)(hash & (uint)_mask);

    /// <summary>Starts loading the entries <paramref name="hash"/>'s probe begins with (a hint; nothing changes).</summary>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    public void Prefetch(uint hash) => Prefetcher.Touch(ref _entries[Start(hash)]);

    /// <summary>The next row whose hash is <paramref name="hash"/> from <paramref name="position"/> on, or -1 when none is left.</summary>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    public int Next(uint hash, ref int position)
    {
        var entries = _entries;
        while (true)
        {
            ulong e = entries[position];
            if (e == 0)
            {
                return -1;
            }

            position = (position + 1) & _mask;
            if ((uint)(e >> 32) == hash)
            {
                return (int)(uint)e - 1;
            }
        }
    }

    /// <summary>Adds <paramref name="row"/> under <paramref name="hash"/> (after every row already there).</summary>
    public void Add(uint hash, int row)
    {
        int i = Start(hash);
        while (_entries[i] != 0)
        {
            i = (i + 1) & _mask;
        }

        _entries[i] = Pack(hash, row);
    }

    /// <summary>
    /// Points the entry of <paramref name="row"/> (added under <paramref name="hash"/>) at <paramref name="newRow"/>
    /// in place: the entry keeps its position, so the order of the rows of one hash is unchanged; false when
    /// <paramref name="row"/> is not there.
    /// </summary>
    public bool Replace(uint hash, int row, int newRow)
    {
        ulong packed = Pack(hash, row);
        int i = Start(hash);
        while (_entries[i] != packed)
        {
            if (_entries[i] == 0)
            {
                return false;
            }

            i = (i + 1) & _mask;
        }

        _entries[i] = Pack(hash, newRow);
        return true;
    }

    /// <summary>Removes <paramref name="row"/>, added under <paramref name="hash"/>; false when it is not there.</summary>
    public bool Remove(uint hash, int row)
    {
        ulong packed = Pack(hash, row);
        int hole = Start(hash);
        while (_entries[hole] != packed)
        {
            if (_entries[hole] == 0)
            {
                return false;
            }

            hole = (hole + 1) & _mask;
        }

        // Backward shift: an entry further on moves into the hole unless its home lies after the hole (cyclically).
        int j = hole;
        while (true)
        {
            j = (j + 1) & _mask;
            ulong e = _entries[j];
            if (e == 0)
            {
                break;
            }

            int home = (int)((uint)(e >> 32) & (uint)_mask);
            if (((j - home) & _mask) >= ((j - hole) & _mask))
            {
                _entries[hole] = e;
                hole = j;
            }
        }

        _entries[hole] = 0;
        return true;
    }

    /// <summary>
    /// The mean distance of the entries from where their probe starts (a diagnostic for tests and measurements:
    /// with a well-spread hash about α / (2(1 - α)) at load α, 0.5 at half load; clustering shows as more).
    /// </summary>
    internal double MeanDisplacement()
    {
        long used = 0, displacement = 0;
        for (int i = 0; i < _entries.Length; i++)
        {
            ulong e = _entries[i];
            if (e != 0)
            {
                used++;
                displacement += (i - (int)((uint)(e >> 32) & (uint)_mask)) & _mask;
            }
        }

        return used == 0 ? 0 : displacement / (double)used;
    }

    private static ulong Pack(uint hash, int row) => ((ulong)hash << 32) | (uint)(row + 1);
}

/// <summary>Software prefetch: independent cache misses of one message overlap instead of following each other.</summary>
internal static class Prefetcher
{
    /// <summary>Asks the processor to bring <paramref name="location"/>'s cache line in (x86; nothing elsewhere).</summary>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    public static unsafe void Touch<T>(ref T location)
    {
        if (Sse.IsSupported)
        {
            // Only an address hint: a prefetch never faults and changes no state, so a stale address is harmless.
            Sse.Prefetch0(Unsafe.AsPointer(ref location));
        }
    }
}
