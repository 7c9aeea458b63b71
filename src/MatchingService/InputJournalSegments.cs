using System.Buffers.Binary;

namespace RapidFix.MatchingService;

/// <summary>What an append to the segment ring did.</summary>
internal enum SegmentAppendStatus
{
    /// <summary>Stored.</summary>
    Ok,

    /// <summary>
    /// The next segment is still needed (the persister or the restart rule has not passed it): nothing stored, the
    /// refusal counted. The caller refuses the input (back-pressure), as it does a full journal today.
    /// </summary>
    RingFull,

    /// <summary>The record is larger than a segment can hold: nothing stored, counted.</summary>
    TooLarge,

    /// <summary>An empty record: nothing stored.</summary>
    Empty,
}

/// <summary>
/// A journal roll designed for long soaks and not wired: the service keeps a write window instead (docs/store.md
/// "The input journal's write window" says why). A ring of segments, every one
/// allocated pinned and touched at startup (its pages committed once, so resident memory does not grow as the
/// journal fills), reused once both horizons have passed the segment: what the persister has written to PostgreSQL
/// and what a restart would still replay (the restart horizon, the oldest input a recovery needs). The journal then
/// holds a window of inputs, not the whole run, and a multi-day soak runs in flat memory. Positions are logical byte
/// offsets that only grow; segment <c>n</c> covers <c>[n × SegmentBytes, (n + 1) × SegmentBytes)</c> and lives in
/// slot <c>n mod SegmentCount</c>. A record never straddles two segments: one that does not fit in the current
/// segment's rest seals it and starts the next.
/// </summary>
/// <remarks>
/// One writer (the journal's appender, under the caller's lock); the horizons are advanced from any thread (the
/// persister's poller, the checkpoint writer) and read by the writer, so they are volatile. Appends and reads
/// allocate nothing. Record layout: [length u32][payload].
/// </remarks>
internal sealed class InputJournalSegments
{
    /// <summary>Bytes of a record's length prefix.</summary>
    public const int HeaderBytes = 4;

    private const int PageBytes = 4096;

    private readonly byte[][] _segments;
    private long _written;      // position just past the last record
    private long _persisted;    // the persister has written everything below this
    private long _restart;      // a restart replays nothing below this
    private long _refused;
    private long _rolls;

    /// <summary>Allocates and commits <paramref name="segmentCount"/> segments of <paramref name="segmentBytes"/> (startup).</summary>
    public InputJournalSegments(int segmentCount, int segmentBytes)
    {
        ArgumentOutOfRangeException.ThrowIfLessThan(segmentCount, 2);
        ArgumentOutOfRangeException.ThrowIfLessThan(segmentBytes, PageBytes);
        _segments = new byte[segmentCount][];
        for (int i = 0; i < segmentCount; i++)
        {
            _segments[i] = GC.AllocateUninitializedArray<byte>(segmentBytes, pinned: true);
            Commit(_segments[i]);
        }

        SegmentBytes = segmentBytes;
    }

    public int SegmentCount => _segments.Length;

    public int SegmentBytes { get; }

    /// <summary>Bytes the ring holds in memory, all committed at startup.</summary>
    public long CapacityBytes => (long)SegmentCount * SegmentBytes;

    /// <summary>Position just past the last record.</summary>
    public long WrittenPosition => Volatile.Read(ref _written);

    /// <summary>The oldest position still readable: the start of the oldest segment not yet reused.</summary>
    public long OldestPosition => Math.Max(0, (SegmentOf(WrittenPosition) - SegmentCount + 1) * SegmentBytes);

    /// <summary>Appends refused because the next segment was still needed, or too large.</summary>
    public long Refused => Interlocked.Read(ref _refused);

    /// <summary>Segments started after the first (each a reuse once the ring has gone round).</summary>
    public long Rolls => Interlocked.Read(ref _rolls);

    /// <summary>The persister has written everything below <paramref name="position"/> (never moves back).</summary>
    public void AdvancePersisted(long position) => AdvanceTo(ref _persisted, position);

    /// <summary>A restart needs nothing below <paramref name="position"/> (never moves back).</summary>
    public void AdvanceRestartHorizon(long position) => AdvanceTo(ref _restart, position);

    /// <summary>Below this, both horizons have passed: what the ring may overwrite.</summary>
    public long ReleasedPosition => Math.Min(Volatile.Read(ref _persisted), Volatile.Read(ref _restart));

    /// <summary>
    /// Appends one record; returns its position in <paramref name="position"/>. Anything but
    /// <see cref="SegmentAppendStatus.Ok"/> stored nothing.
    /// </summary>
    public SegmentAppendStatus Append(ReadOnlySpan<byte> payload, out long position)
    {
        position = -1;
        if (payload.IsEmpty)
        {
            return SegmentAppendStatus.Empty;
        }

        int size = HeaderBytes + payload.Length;
        if (size > SegmentBytes)
        {
            Interlocked.Increment(ref _refused);
            return SegmentAppendStatus.TooLarge;
        }

        long at = _written;
        int offset = (int)(at % SegmentBytes);
        int sealAt = -1;
        if (offset + size > SegmentBytes)
        {
            sealAt = offset; // seal this segment: its rest stays unused
            at += SegmentBytes - offset;
            offset = 0;
        }

        long segment = at / SegmentBytes;
        if (offset == 0 && segment >= SegmentCount && ReleasedPosition < (segment - SegmentCount + 1) * SegmentBytes)
        {
            // Starting this segment overwrites the slot's previous one, which a horizon still needs.
            Interlocked.Increment(ref _refused);
            return SegmentAppendStatus.RingFull;
        }

        if (sealAt >= 0 && sealAt + HeaderBytes <= SegmentBytes)
        {
            // A zero length marks the seal: the rest may hold the previous round's records, which a reader must not take.
            BinaryPrimitives.WriteUInt32LittleEndian(_segments[(segment - 1) % SegmentCount].AsSpan(sealAt), 0);
        }

        var slot = _segments[segment % SegmentCount].AsSpan(offset, size);
        BinaryPrimitives.WriteUInt32LittleEndian(slot, (uint)payload.Length);
        payload.CopyTo(slot[HeaderBytes..]);
        if (offset == 0 && segment > 0)
        {
            Interlocked.Increment(ref _rolls);
        }

        position = at;
        Volatile.Write(ref _written, at + size);
        return SegmentAppendStatus.Ok;
    }

    /// <summary>
    /// The record at <paramref name="position"/> and the position of the next one; false when the position is not
    /// a record the ring still holds (reused, not yet written, or past a sealed segment's end: the next record then
    /// starts the following segment, which <paramref name="next"/> names).
    /// </summary>
    public bool TryRead(long position, out ReadOnlySpan<byte> payload, out long next)
    {
        payload = default;
        next = position;
        long written = WrittenPosition;
        if (position < OldestPosition || position >= written)
        {
            return false;
        }

        int offset = (int)(position % SegmentBytes);
        var segment = _segments[position / SegmentBytes % SegmentCount];
        int length = offset + HeaderBytes <= SegmentBytes ? (int)BinaryPrimitives.ReadUInt32LittleEndian(segment.AsSpan(offset)) : 0;
        if (length == 0 || offset + HeaderBytes + length > SegmentBytes || position + HeaderBytes + length > written)
        {
            next = ((position / SegmentBytes) + 1) * SegmentBytes; // a sealed segment's unused rest
            return false;
        }

        payload = segment.AsSpan(offset + HeaderBytes, length);
        next = position + HeaderBytes + length;
        return true;
    }

    /// <summary>
    /// Segments for a soak: enough for <paramref name="retainedInputs"/> inputs of <paramref name="bytesPerInput"/>
    /// (the persister's worst lag plus the restart window), one being written and one spare for the seal.
    /// </summary>
    public static int SegmentsFor(long retainedInputs, long bytesPerInput, int segmentBytes) =>
        checked((int)((((retainedInputs * bytesPerInput) + segmentBytes - 1) / segmentBytes) + 2));

    // Writes one byte a page so the kernel commits the whole segment now, not as the journal first reaches it.
    private static void Commit(byte[] segment)
    {
        for (int i = 0; i < segment.Length; i += PageBytes)
        {
            segment[i] = 0;
        }

        segment[^1] = 0;
    }

    private static void AdvanceTo(ref long horizon, long position)
    {
        long current = Volatile.Read(ref horizon);
        while (position > current)
        {
            long seen = Interlocked.CompareExchange(ref horizon, position, current);
            if (seen == current)
            {
                return;
            }

            current = seen;
        }
    }

    private long SegmentOf(long position) => position / SegmentBytes;
}
