using System.Numerics;
using System.Runtime.CompilerServices;
using System.Runtime.InteropServices;
using System.Runtime.Intrinsics;
using System.Runtime.Intrinsics.X86;

namespace RapidFix.Matching;

/// <summary>
/// An open-addressing (linear probing) index from a 32-bit hash to rows of a table, sized at construction, never
/// growing. The ID and trade-key indices are what a message touches at random in a matcher holding a million open
/// trades, and what decides their cost is how far a probe walks: every step is a compare whose outcome the processor
/// cannot predict, and a walk that leaves the cache line its start was fetched into waits for memory again. So the
/// index is kept sparse (by default at most one row in <see cref="DefaultEntriesPerRow"/> entries, its owner may
/// choose another density, so a probe usually ends at its first entry) and its entries small (4 bytes), which pays for the
/// sparseness. An entry packs the row (+1; 0 is empty),
/// its distance from where its probe starts (so that removal's backward shift needs no hash; a distance too large
/// for its field asks the owner for the row's hash) and the hash's top bits (a tag). A lookup yields the rows whose
/// tag and probe start agree with the hash: nearly only the right ones, and the caller compares the row's content
/// anyway. Rows of one hash are visited in insertion
/// order (oldest first) and removal shifts later entries back (no tombstones), which keeps that order; both depend
/// only on the sequence of adds and removes, so the matcher stays deterministic.
/// </summary>
internal sealed class HashIndex
{
    /// <summary>
    /// Entries per row an index is sized for unless its owner says otherwise, rounded up to a power of two: a load of
    /// at most 1/4 with every row present. Measured at a million open trades (docs/matching.md, tenth round): the
    /// batch path took about 250 ns a message with the ID index at a load of 0.55 and 200-210 ns at 0.14.
    /// </summary>
    internal const int DefaultEntriesPerRow = 4;

    private const int DistanceBits = 4;
    private const uint Saturated = (1u << DistanceBits) - 1;

    private readonly uint[] _entries;
    private readonly int _mask;
    private readonly int _rowBits;
    private readonly uint _rowMask;
    private readonly uint _tagMask; // the hash's top bits, kept in place in the entry (0 when no bit is left)
    private readonly Func<int, uint> _rowHash;
    private readonly Func<int, bool>? _rowIsDead;

    /// <summary>
    /// An index for at most <paramref name="rows"/> rows at once, numbered from 0 to less than <paramref name="rowLimit"/>,
    /// with <paramref name="entriesPerRow"/> entries a row (at least 2), rounded up to a power of two; <paramref name="rowHash"/> gives
    /// the hash a row was added under (called only for an entry 15 or more places from where its probe starts: rare
    /// at this load). An owner whose rows can die while their entries stay (<see cref="Sweep"/> removes them
    /// later) passes <paramref name="rowIsDead"/>: a dead row's hash is never asked for, and the diagnostics skip it.
    /// </summary>
    public HashIndex(int rows, int rowLimit, Func<int, uint> rowHash, int entriesPerRow = DefaultEntriesPerRow, Func<int, bool>? rowIsDead = null)
    {
        ArgumentNullException.ThrowIfNull(rowHash);
        ArgumentOutOfRangeException.ThrowIfLessThan(rowLimit, rows);
        int size = SizeFor(rows, entriesPerRow);
        _rowBits = 32 - BitOperations.LeadingZeroCount((uint)rowLimit); // row + 1 is at most rowLimit
        if (_rowBits + DistanceBits > 32)
        {
            throw new ArgumentOutOfRangeException(nameof(rowLimit), rowLimit, "too many rows for 4-byte index entries");
        }

        _entries = LargeTables.Allocate<uint>(size);
        _mask = size - 1;
        _rowMask = (1u << _rowBits) - 1;
        int tagShift = _rowBits + DistanceBits;
        _tagMask = tagShift >= 32 ? 0 : ~0u << tagShift;
        _rowHash = rowHash;
        _rowIsDead = rowIsDead;
    }

    /// <summary>The entries an index for <paramref name="rows"/> rows at <paramref name="entriesPerRow"/> entries a row has (a power of two).</summary>
    public static int SizeFor(int rows, int entriesPerRow = DefaultEntriesPerRow)
    {
        ArgumentOutOfRangeException.ThrowIfLessThan(entriesPerRow, 2);
        long wanted = Math.Max(16L, (long)rows * entriesPerRow);
        if (wanted > 1L << 30)
        {
            throw new ArgumentOutOfRangeException(nameof(rows), rows, "too many rows for one index");
        }

        return (int)BitOperations.RoundUpToPowerOf2((uint)wanted);
    }

    /// <summary>Entries in the index (4 bytes each).</summary>
    internal int Size => _entries.Length;

    /// <summary>Where the probe for <paramref name="hash"/> starts (pass to <see cref="Next"/>).</summary>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    public int Start(uint hash) => (int)(hash & (uint)_mask);

    /// <summary>Starts loading the entries <paramref name="hash"/>'s probe begins with (a hint; nothing changes).</summary>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    public void Prefetch(uint hash) => Prefetcher.Touch(ref _entries[Start(hash)]);

    /// <summary>
    /// The next row that may have been added under <paramref name="hash"/> from <paramref name="position"/> on (its
    /// tag and probe start agree with the hash; the caller checks the row itself), or -1 when none is left.
    /// <paramref name="position"/> starts as <see cref="Start"/> of the same hash.
    /// </summary>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    public int Next(uint hash, ref int position)
    {
        var entries = _entries;
        uint tag = Tag(hash);
        int start = Start(hash);
        while (true)
        {
            int at = position;
            uint e = entries[at];
            if (e == 0)
            {
                return -1;
            }

            position = (at + 1) & _mask;
            if (Tag(e) == tag)
            {
                uint distance = (e >> _rowBits) & Saturated;
                if (distance == Saturated || distance == (uint)((at - start) & _mask))
                {
                    return (int)(e & _rowMask) - 1;
                }
            }
        }
    }

    /// <summary>Adds <paramref name="row"/> under <paramref name="hash"/> (after every row already there).</summary>
    public void Add(uint hash, int row)
    {
        int start = Start(hash);
        int i = start;
        while (_entries[i] != 0)
        {
            i = (i + 1) & _mask;
        }

        _entries[i] = Tag(hash) | Distance((i - start) & _mask) | (uint)(row + 1);
    }

    /// <summary>
    /// Points the entry of <paramref name="row"/> (added under <paramref name="hash"/>) at <paramref name="newRow"/>
    /// in place: the entry keeps its position, so the order of the rows of one hash is unchanged; false when
    /// <paramref name="row"/> is not there. The owner's row hash must give <paramref name="newRow"/> the same hash.
    /// </summary>
    public bool Replace(uint hash, int row, int newRow)
    {
        int i = Find(hash, row);
        if (i < 0)
        {
            return false;
        }

        _entries[i] = (_entries[i] & ~_rowMask) | (uint)(newRow + 1);
        return true;
    }

    /// <summary>Removes <paramref name="row"/>, added under <paramref name="hash"/>; false when it is not there.</summary>
    public bool Remove(uint hash, int row)
    {
        int hole = Find(hash, row);
        if (hole < 0)
        {
            return false;
        }

        RemoveAt(hole);
        return true;
    }

    /// <summary>
    /// Removes the entries of dead rows among the <paramref name="count"/> entries from <paramref name="from"/> on
    /// (cyclically; both multiples of 8) and returns where the next sweep starts: the rows <paramref name="window"/>
    /// numbers whose number lies outside its live window. An owner that lets rows die without removing their
    /// entries (a random access each) sweeps the index in order instead, a few entries at a time: sequential reads,
    /// eight entries tested at once, and the next sweep's lines prefetched.
    /// </summary>
    [MethodImpl(MethodImplOptions.AggressiveOptimization)] // its tier-0 code (OSR patchpoints in the loop) stayed in use: docs/matching.md, thirteenth round
    public int Sweep(int from, int count, in RowWindow window)
    {
        var entries = _entries;
        ref uint first = ref MemoryMarshal.GetArrayDataReference(entries);
        var rowMask = Vector256.Create(_rowMask);
        var one = Vector256.Create(1);
        var lastLive = Vector256.Create(window.First - 1);
        var origin = Vector256.Create(window.First + window.Start);
        var span = Vector256.Create(window.Span);
        var countLess1 = Vector256.Create(window.Count - 1);
        int i = from & _mask;
        for (int n = 0; n < count; n += Vector256<uint>.Count)
        {
            // Positions advance eight at a time from a multiple of 8 (the size is a power of two, at least 16).
            while (true)
            {
                var row = (Vector256.LoadUnsafe(ref first, (nuint)i) & rowMask).AsInt32() - one; // -1: empty
                var number = row - origin;
                number += Vector256.LessThan(number, Vector256<int>.Zero) & span;
                uint dead = (Vector256.GreaterThan(row, lastLive) & Vector256.GreaterThan(number, countLess1)).ExtractMostSignificantBits();
                if (dead == 0)
                {
                    break;
                }

                // Dead entries go, first to last; when a removal shifts entries back (rare at this load: the next
                // entry is empty) the eight are tested again.
                do
                {
                    int hole = i + BitOperations.TrailingZeroCount(dead);
                    if (entries[(hole + 1) & _mask] != 0)
                    {
                        RemoveAt(hole);
                        goto Retest;
                    }

                    entries[hole] = 0;
                    dead &= dead - 1;
                }
                while (dead != 0);

                break;
            Retest:;
            }

            i = (i + Vector256<uint>.Count) & _mask;
        }

        // The next sweep's entries (read when the drops owe it again, a few trades from now): one prefetch a line.
        for (int n = 0; n < count; n += 16)
        {
            Prefetcher.Touch(ref entries[(i + n) & _mask]);
        }

        return i;
    }

    /// <summary>Empties entry <paramref name="hole"/> and shifts the entries after it back where their probes allow.</summary>
    private void RemoveAt(int hole)
    {
        // Backward shift: an entry further on moves into the hole unless its probe starts after the hole (cyclically).
        int j = hole;
        while (true)
        {
            j = (j + 1) & _mask;
            uint e = _entries[j];
            if (e == 0)
            {
                break;
            }

            int distance = DistanceAt(e, j);
            int gap = (j - hole) & _mask;
            if (distance >= gap)
            {
                _entries[hole] = (e & ~(Saturated << _rowBits)) | Distance(distance - gap);
                hole = j;
            }
        }

        _entries[hole] = 0;
    }

    /// <summary>
    /// The mean distance of the entries from where their probe starts (a diagnostic for tests and measurements:
    /// with a well-spread hash about α / (2(1 - α)) at load α; clustering shows as more).
    /// </summary>
    internal double MeanDisplacement()
    {
        long used = 0, displacement = 0;
        for (int i = 0; i < _entries.Length; i++)
        {
            uint e = _entries[i];
            if (e != 0 && !IsDead(e))
            {
                used++;
                displacement += DistanceAt(e, i);
            }
        }

        return used == 0 ? 0 : displacement / (double)used;
    }

    /// <summary>
    /// What is wrong with the entries (tests): an entry whose tag or distance disagrees with its row's hash, an
    /// empty entry between an entry and where its probe starts, or a row twice; null when nothing is.
    /// </summary>
    internal string? Inconsistency()
    {
        var seen = new HashSet<uint>();
        for (int i = 0; i < _entries.Length; i++)
        {
            uint e = _entries[i];
            if (e == 0 || IsDead(e))
            {
                continue; // a dead row's entry only waits for a sweep
            }

            int row = (int)(e & _rowMask) - 1;
            uint hash = _rowHash(row);
            int distance = (i - Start(hash)) & _mask;
            if (!seen.Add(e & _rowMask))
            {
                return $"row {row} twice";
            }

            if (Tag(e) != Tag(hash) || ((e >> _rowBits) & Saturated) != (uint)Math.Min(distance, (int)Saturated))
            {
                return $"entry {i} (row {row}): tag or distance {(e >> _rowBits) & Saturated} disagrees with its hash (distance {distance})";
            }

            for (int d = 0; d < distance; d++)
            {
                if (_entries[(Start(hash) + d) & _mask] == 0)
                {
                    return $"entry {i} (row {row}): an empty entry between it and its start";
                }
            }
        }

        return null;
    }

    /// <summary>Live entries (tests and measurements: dead rows' entries not counted).</summary>
    internal int Count() => CountEntries(dead: false);

    /// <summary>Entries of dead rows still in the index (tests and measurements).</summary>
    internal int DeadCount() => CountEntries(dead: true);

    private int CountEntries(bool dead)
    {
        int n = 0;
        foreach (uint e in _entries)
        {
            n += e != 0 && IsDead(e) == dead ? 1 : 0;
        }

        return n;
    }

    private bool IsDead(uint e) => _rowIsDead is not null && _rowIsDead((int)(e & _rowMask) - 1);

    /// <summary>Where <paramref name="row"/> (added under <paramref name="hash"/>) lies, or -1.</summary>
    private int Find(uint hash, int row)
    {
        uint want = (uint)(row + 1);
        int i = Start(hash);
        while (true)
        {
            uint e = _entries[i];
            if (e == 0)
            {
                return -1;
            }

            if ((e & _rowMask) == want)
            {
                return i;
            }

            i = (i + 1) & _mask;
        }
    }

    /// <summary>How far entry <paramref name="e"/>, at <paramref name="at"/>, lies from where its probe starts.</summary>
    private int DistanceAt(uint e, int at)
    {
        uint distance = (e >> _rowBits) & Saturated;
        if (distance != Saturated)
        {
            return (int)distance;
        }

        // Rare: too far for the field; the owner knows the hash the row was added under. A dead row's hash may be
        // gone: its entry may move back anywhere (nothing looks it up; a sweep removes it).
        int row = (int)(e & _rowMask) - 1;
        if (_rowIsDead is not null && _rowIsDead(row))
        {
            return _mask;
        }

        return (at - Start(_rowHash(row))) & _mask;
    }

    /// <summary>The bits of <paramref name="value"/> above the row and distance fields (a hash's tag, or an entry's), in place.</summary>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    private uint Tag(uint value) => value & _tagMask;

    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    private uint Distance(int distance) => (uint)Math.Min(distance, (int)Saturated) << _rowBits;
}

/// <summary>
/// Rows <see cref="First"/> to <see cref="First"/> + <see cref="Span"/> - 1 of a <see cref="HashIndex"/> numbered
/// cyclically from <see cref="First"/> (number = row - First); those whose number lies in the window of
/// <see cref="Count"/> numbers from <see cref="Start"/> (cyclically) are live, the others of the range dead (their
/// entries wait for <see cref="HashIndex.Sweep"/>). Rows below <see cref="First"/> are always live.
/// </summary>
internal readonly record struct RowWindow(int First, int Span, int Start, int Count)
{
    /// <summary>True when <paramref name="row"/>'s entry only waits to be removed.</summary>
    public bool IsDead(int row)
    {
        int number = row - First - Start;
        if (number < 0)
        {
            number += Span;
        }

        return row >= First && number >= Count;
    }
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
