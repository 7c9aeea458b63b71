using System.Buffers.Binary;
using RapidFix.Tests.Shared;

namespace RapidFix.MatchingService.Tests.Measurement;

/// <summary>
/// The input journal's segment ring (designed, not wired: docs/store.md "The input journal's write window"): segments committed at startup and
/// reused once the persister and the restart rule have passed them, so a soak of any length runs in the same memory;
/// a horizon that has not passed is back-pressure, counted, with nothing stored or overwritten.
/// </summary>
public sealed class JournalSegmentsTests
{
    private const int Segment = 64 * 1024;

    [Fact]
    public void Records_come_back_in_order_across_sealed_segments()
    {
        var ring = new InputJournalSegments(4, Segment);
        var positions = new List<long>();
        for (int i = 0; i < 300; i++)
        {
            Assert.Equal(SegmentAppendStatus.Ok, ring.Append(Record(i, 500 + (i % 300)), out long at));
            positions.Add(at);
        }

        // 300 records of 500-800 bytes fill more than one segment: each that did not fit sealed the one before.
        Assert.True(ring.Rolls >= 1, $"rolls {ring.Rolls}");
        long position = 0;
        for (int i = 0; i < 300; i++)
        {
            if (!ring.TryRead(position, out var payload, out long next))
            {
                Assert.True(next > position, "a sealed segment's rest points at the next segment");
                Assert.True(ring.TryRead(next, out payload, out next), $"record {i} after a seal");
            }

            Assert.Equal(i, BinaryPrimitives.ReadInt32LittleEndian(payload));
            Assert.Equal(500 + (i % 300), payload.Length);
            Assert.Equal(positions[i] + InputJournalSegments.HeaderBytes + payload.Length, next);
            position = next;
        }

        Assert.False(ring.TryRead(position, out _, out _), "nothing past the last record");
    }

    [Fact]
    public void A_segment_is_reused_only_once_both_the_persister_and_the_restart_rule_have_passed_it()
    {
        var ring = new InputJournalSegments(2, Segment);
        int written = FillUntilRefused(ring, 1000, out var status);

        // Two segments hold what they hold; the third would overwrite the first, which both horizons still need.
        Assert.Equal(SegmentAppendStatus.RingFull, status);
        Assert.Equal(1, ring.Refused);
        long end = ring.WrittenPosition;
        Assert.True(written > 100);

        ring.AdvancePersisted(Segment); // the persister has passed the first segment, a restart still needs it
        Assert.Equal(SegmentAppendStatus.RingFull, ring.Append(Record(-1, 1000), out _));
        Assert.Equal(end, ring.WrittenPosition);   // refused: nothing stored
        Assert.Equal(2, ring.Refused);
        Assert.True(ring.TryRead(0, out var first, out _), "the first segment is intact");
        Assert.Equal(0, BinaryPrimitives.ReadInt32LittleEndian(first));

        ring.AdvanceRestartHorizon(Segment); // now both have: the first segment's slot is reused
        Assert.Equal(SegmentAppendStatus.Ok, ring.Append(Record(written, 1000), out long at));
        Assert.Equal(2L * Segment, at);
        Assert.Equal(Segment, ring.OldestPosition);
        Assert.False(ring.TryRead(0, out _, out _), "the reused segment's records are gone");
        Assert.True(ring.TryRead(at, out var reused, out _));
        Assert.Equal(written, BinaryPrimitives.ReadInt32LittleEndian(reused));
    }

    [Fact]
    public void Horizons_never_move_back()
    {
        var ring = new InputJournalSegments(2, Segment);
        ring.AdvancePersisted(5000);
        ring.AdvanceRestartHorizon(7000);
        ring.AdvancePersisted(10);
        ring.AdvanceRestartHorizon(20);

        Assert.Equal(5000, ring.ReleasedPosition);
    }

    [Fact]
    public void A_soak_many_times_the_ring_runs_in_the_memory_committed_at_startup_and_allocates_nothing()
    {
        var ring = new InputJournalSegments(4, Segment);
        var record = Record(0, 770); // a generated input's average size
        var state = (ring, record, count: new long[1]);
        // The persister and the restart rule follow close behind: every append is released a little later.
        long bytes = Allocations.Measure(state, static s =>
        {
            BinaryPrimitives.WriteInt32LittleEndian(s.record, (int)s.count[0]++);
            if (s.ring.Append(s.record, out long at) != SegmentAppendStatus.Ok)
            {
                throw new InvalidOperationException("refused although the horizons follow");
            }

            s.ring.AdvancePersisted(at);
            s.ring.AdvanceRestartHorizon(at);
            if (!s.ring.TryRead(at, out var back, out _) || BinaryPrimitives.ReadInt32LittleEndian(back) != (int)(s.count[0] - 1))
            {
                throw new InvalidOperationException("the record did not read back");
            }
        }, iterations: 50_000, warmup: 5_000);

        Assert.Equal(0, bytes);
        // 55,000 records of 774 bytes are about 160 times the ring's 256 KiB: it went round, reusing its segments.
        Assert.True(ring.WrittenPosition > 100 * ring.CapacityBytes, $"written {ring.WrittenPosition}");
        Assert.True(ring.Rolls > 100 * ring.SegmentCount);
        Assert.Equal(0, ring.Refused);
        Assert.True(ring.OldestPosition > ring.WrittenPosition - ring.CapacityBytes);
    }

    [Fact]
    public void A_record_larger_than_a_segment_or_empty_is_refused_without_storing_anything()
    {
        var ring = new InputJournalSegments(2, Segment);

        Assert.Equal(SegmentAppendStatus.TooLarge, ring.Append(new byte[Segment], out _));
        Assert.Equal(SegmentAppendStatus.Empty, ring.Append([], out _));
        Assert.Equal(0, ring.WrittenPosition);
        Assert.Equal(1, ring.Refused);
    }

    [Fact]
    public void A_soak_ring_is_sized_for_the_window_it_must_hold_not_the_run()
    {
        // 3,000 inputs/s with the persister up to 60 s behind and a restart window of 100,000 inputs: 280,000 inputs
        // of 800 bytes in 64 MiB segments, plus the segment being written and the seal's spare.
        int segments = InputJournalSegments.SegmentsFor(280_000, 800, 64 << 20);

        Assert.Equal(6, segments);
        Assert.True((long)segments * (64 << 20) >= 280_000L * 800);
    }

    private static byte[] Record(int number, int length)
    {
        var record = new byte[length];
        BinaryPrimitives.WriteInt32LittleEndian(record, number);
        return record;
    }

    private static int FillUntilRefused(InputJournalSegments ring, int length, out SegmentAppendStatus status)
    {
        for (int i = 0; ; i++)
        {
            status = ring.Append(Record(i, length), out _);
            if (status != SegmentAppendStatus.Ok)
            {
                return i;
            }
        }
    }
}
