using System.Buffers;
using System.Text;
using RapidFix.Engine.Codec;
using RapidFix.Tests.Shared;

namespace RapidFix.Engine.Tests.Codec;

public sealed class FixFramerTests
{
    private static readonly byte[] Heartbeat = FixSamples.Wire("8=FIX.4.4|35=0|34=2|49=TW|52=20261121-21:00:00.000|56=ISLD|");

    [Fact]
    public void Frames_a_whole_message_and_verifies_its_checksum()
    {
        var framer = new FixFramer();
        var r = framer.Frame(Heartbeat);
        Assert.Equal(FrameStatus.Complete, r.Status);
        Assert.Equal(0, r.Start);
        Assert.Equal(Heartbeat.Length, r.Length);
        Assert.Equal(Heartbeat.Length, r.Consumed);
        Assert.Equal(1, framer.Messages);
    }

    [Fact]
    public void Partial_messages_wait_for_more_bytes_at_every_cut()
    {
        for (int cut = 0; cut < Heartbeat.Length; cut++)
        {
            var r = FixFramer.FrameCore(Heartbeat.AsSpan(0, cut), 4096);
            Assert.Equal(FrameStatus.NeedMoreData, r.Status);
            Assert.Equal(0, r.Consumed);
        }
    }

    [Fact]
    public void Once_body_length_is_known_the_required_length_is_reported()
    {
        var r = FixFramer.FrameCore(Heartbeat.AsSpan(0, 30), 4096);
        Assert.Equal(FrameStatus.NeedMoreData, r.Status);
        Assert.Equal(Heartbeat.Length, r.RequiredLength);
    }

    [Fact]
    public void Garbage_before_a_begin_string_is_skipped_and_counted()
    {
        var framer = new FixFramer();
        var input = Encoding.ASCII.GetBytes("noise\u0001more noise").Concat(Heartbeat).ToArray();
        var r = framer.Frame(input);
        Assert.Equal(FrameStatus.Complete, r.Status);
        Assert.Equal(16, r.Start);
        Assert.Equal(16, r.SkippedBytes);
        Assert.Equal(input.Length, r.Consumed);
        Assert.Equal(16, framer.SkippedBytes);
    }

    [Fact]
    public void Pure_garbage_is_dropped_except_a_possible_begin_string_prefix()
    {
        var r = FixFramer.FrameCore(Encoding.ASCII.GetBytes("garbage garbage 8=FI"), 4096);
        Assert.Equal(FrameStatus.NeedMoreData, r.Status);
        Assert.Equal(16, r.Consumed); // "8=FI" is kept: the rest of "8=FIX" may follow
    }

    [Fact]
    public void Bad_checksum_is_reported_and_the_message_consumed()
    {
        var bad = (byte[])Heartbeat.Clone();
        int checksumDigit = bad.Length - 2;
        bad[checksumDigit] = (byte)(bad[checksumDigit] == '9' ? '0' : bad[checksumDigit] + 1);
        var framer = new FixFramer();
        var r = framer.Frame(bad);
        Assert.Equal(FrameStatus.BadChecksum, r.Status);
        Assert.Equal(bad.Length, r.Consumed);
        Assert.Equal(1, framer.BadChecksums);
    }

    [Fact]
    public void Checksum_value_above_255_is_a_bad_checksum()
    {
        var text = FixSamples.Text(Heartbeat);
        var bad = FixSamples.Wire(text[..text.LastIndexOf("10=", StringComparison.Ordinal)] + "10=256|");
        Assert.Equal(FrameStatus.BadChecksum, FixFramer.FrameCore(bad, 4096).Status);
    }

    [Fact]
    public void Body_length_too_small_drops_the_message_through_its_own_checksum()
    {
        // As in the QuickFIX acceptance test 2m: the next message must survive.
        var wrong = FixSamples.Wire("8=FIX.4.4|9=30|35=D|34=2|49=TW|52=20261121-21:00:00|56=ISLD|11=ID|21=3|40=1|54=1|55=INTC|10=000|");
        var input = wrong.Concat(Heartbeat).ToArray();
        var r = FixFramer.FrameCore(input, 4096);
        Assert.Equal(FrameStatus.Garbled, r.Status);
        Assert.Equal(FrameError.BodyLengthMismatch, r.Error);
        Assert.Equal(wrong.Length, r.Consumed);
        var next = FixFramer.FrameCore(input.AsSpan(r.Consumed), 4096);
        Assert.Equal(FrameStatus.Complete, next.Status);
    }

    [Fact]
    public void Body_length_too_large_swallows_through_the_next_checksum_like_quickfix()
    {
        var wrong = FixSamples.Wire("8=FIX.4.4|9=80|35=0|34=2|49=TW|52=20261121-21:00:00|56=ISLD|10=000|");
        var input = wrong.Concat(Heartbeat).Concat(Heartbeat).ToArray();
        var r = FixFramer.FrameCore(input, 4096);
        Assert.Equal(FrameStatus.Garbled, r.Status);
        Assert.Equal(wrong.Length + Heartbeat.Length, r.Consumed);
        Assert.Equal(FrameStatus.Complete, FixFramer.FrameCore(input.AsSpan(r.Consumed), 4096).Status);
    }

    [Fact]
    public void Huge_body_length_is_refused_at_once_without_waiting()
    {
        var input = Encoding.ASCII.GetBytes("8=FIX.4.4\u00019=9999999999\u000135=0\u0001");
        var r = FixFramer.FrameCore(input, 4096);
        Assert.Equal(FrameStatus.Garbled, r.Status);
        Assert.Equal(FrameError.InvalidBodyLength, r.Error);

        var big = Encoding.ASCII.GetBytes("8=FIX.4.4\u00019=100000\u000135=0\u0001");
        var r2 = FixFramer.FrameCore(big, 4096);
        Assert.Equal(FrameStatus.Garbled, r2.Status);
        Assert.Equal(FrameError.MessageTooLarge, r2.Error);
        Assert.Equal(2, r2.Consumed);
    }

    [Theory]
    [InlineData("8=FIX.4.4\u000135=0\u00019=5\u0001", FrameError.MissingBodyLength)]
    [InlineData("8=FIX.4.4\u00019=\u000135=0\u0001", FrameError.InvalidBodyLength)]
    [InlineData("8=FIX.4.4\u00019=1x\u000135=0\u0001", FrameError.InvalidBodyLength)]
    [InlineData("8=FIX.4.4.4.4.4.4.4.4.4.4.4.4.4.4.4\u00019=5\u0001", FrameError.InvalidBeginString)]
    public void Malformed_envelopes_are_garbled_with_a_specific_reason(string text, FrameError error)
    {
        var r = FixFramer.FrameCore(Encoding.ASCII.GetBytes(text), 4096);
        Assert.Equal(FrameStatus.Garbled, r.Status);
        Assert.Equal(error, r.Error);
        Assert.True(r.Consumed >= 2);
    }

    [Fact]
    public void Messages_split_across_sequence_segments_are_framed_through_the_slow_path()
    {
        var framer = new FixFramer();
        var two = Heartbeat.Concat(Heartbeat).ToArray();
        for (int cut = 1; cut < two.Length - 1; cut++)
        {
            var seq = Segments(two, cut);
            var r = framer.Frame(seq, out var message);
            Assert.Equal(FrameStatus.Complete, r.Status);
            Assert.True(message.SequenceEqual(Heartbeat), $"cut at {cut}");
        }
    }

    [Fact]
    public void Framing_allocates_nothing()
    {
        var framer = new FixFramer();
        var seq = Segments(Heartbeat, 17);
        long bytes = Allocations.Measure(framer, f =>
        {
            f.Frame(Heartbeat);
            f.Frame(seq, out _);
        }, iterations: 100_000);
        Assert.Equal(0, bytes);
    }

    private static ReadOnlySequence<byte> Segments(byte[] data, int cut)
    {
        var first = new Segment(data.AsMemory(0, cut));
        var last = first.Append(data.AsMemory(cut));
        return new ReadOnlySequence<byte>(first, 0, last, last.Memory.Length);
    }

    private sealed class Segment : ReadOnlySequenceSegment<byte>
    {
        public Segment(ReadOnlyMemory<byte> memory) => Memory = memory;

        public Segment Append(ReadOnlyMemory<byte> memory)
        {
            var next = new Segment(memory) { RunningIndex = RunningIndex + Memory.Length };
            Next = next;
            return next;
        }
    }
}
