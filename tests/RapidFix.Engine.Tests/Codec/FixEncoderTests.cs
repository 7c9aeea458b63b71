using System.Text;
using RapidFix.Engine.Codec;
using RapidFix.Engine.Dictionary;
using RapidFix.Engine.Fields;
using RapidFix.Engine.Validation;
using RapidFix.Tests.Shared;

namespace RapidFix.Engine.Tests.Codec;

public sealed class FixEncoderTests
{
    private static readonly long SendingTime = FixTimestamp.FromDateTime(new DateTime(2026, 11, 21, 21, 30, 15, 456, DateTimeKind.Utc)).UnixNanoseconds;

    [Fact]
    public void Writes_begin_string_body_length_and_checksum_around_the_fields()
    {
        var encoder = new FixEncoder();
        var buffer = new byte[512];
        var message = FixSampleEncoding.EncodeExecutionReport(encoder, buffer, SendingTime, 5678);
        string text = FixSamples.Text(message.Span);
        Assert.StartsWith("8=FIX.4.4|9=" + message.BodyLength + "|35=8|34=5678|49=BROKER01|52=20261121-21:30:15.456|56=CLIENT01|37=BRK-998877|", text);
        Assert.EndsWith("|60=20261121-21:30:15.455|10=" + text[^4..^1] + "|", text);

        // The framer and the validator accept it as a peer's message.
        var framed = FixFramer.FrameCore(message.Span, 4096);
        Assert.Equal(FrameStatus.Complete, framed.Status);
        Assert.Equal(message.Length, framed.Length);
        var dd = StandardDictionaries.Load("FIX44");
        var view = new FixMessage();
        Assert.Equal(FixParseError.None, view.Parse(message.Buffer, message.Offset, message.Length, dd));
        Assert.True(new MessageValidator(dd).Validate(view).IsValid);
        Assert.True(view.TryGetDecimal(Tags.Price, out var px));
        Assert.Equal(412.37m, px.ToDecimal());
    }

    [Fact]
    public void Reencoding_a_parsed_message_reproduces_its_bytes()
    {
        var original = FixSamples.Wire(FixSamples.NewOrderSingle);
        var view = new FixMessage();
        view.Parse(original, 0, original.Length);
        var encoder = new FixEncoder();
        var buffer = new byte[512];
        encoder.Begin(buffer, 0, buffer.Length, view.BeginString, view.MsgType);
        for (int i = 3; i < view.FieldCount - 1; i++)
        {
            encoder.Add(view.GetTag(i), view.GetValueAt(i));
        }

        Assert.True(encoder.Finish(out var copy));
        Assert.Equal(FixSamples.Text(original), FixSamples.Text(copy.Span));
    }

    [Theory]
    [InlineData(FixTimePrecision.Seconds, "20261121-21:30:15")]
    [InlineData(FixTimePrecision.Milliseconds, "20261121-21:30:15.456")]
    [InlineData(FixTimePrecision.Microseconds, "20261121-21:30:15.456789")]
    [InlineData(FixTimePrecision.Nanoseconds, "20261121-21:30:15.456789123")]
    public void Timestamps_are_written_at_the_requested_precision(FixTimePrecision precision, string expected)
    {
        long nanos = SendingTime + 789_123;
        var encoder = new FixEncoder();
        var buffer = new byte[256];
        encoder.Begin(buffer, 0, buffer.Length, "FIX.4.4"u8, "0"u8);
        encoder.AddTimestamp(Tags.SendingTime, nanos, precision);
        encoder.AddTimestamp(Tags.SendingTime, nanos + 1_000_000_000L, precision); // next second: cache refresh
        Assert.True(encoder.Finish(out var m));
        var text = FixSamples.Text(m.Span);
        Assert.Contains("|52=" + expected + "|", text);
        Assert.Contains("|52=" + "20261121-21:30:16" + expected[17..] + "|", text);
    }

    [Fact]
    public void A_message_too_big_for_its_buffer_fails_without_writing_past_the_end()
    {
        var encoder = new FixEncoder();
        var buffer = new byte[128];
        buffer.AsSpan(100).Fill(0xAA);
        encoder.Begin(buffer, 0, 100, "FIX.4.4"u8, "B"u8);
        encoder.Add(148, Encoding.ASCII.GetBytes(new string('x', 200)));
        encoder.Add(Tags.MsgSeqNum, 1L);
        Assert.True(encoder.Overflowed);
        Assert.False(encoder.Finish(out _));
        Assert.All(buffer[100..], b => Assert.Equal(0xAA, b));

        // The encoder is usable again afterwards.
        encoder.Begin(buffer, 0, buffer.Length, "FIX.4.4"u8, "0"u8);
        Assert.True(encoder.Finish(out var ok));
        Assert.Equal(FrameStatus.Complete, FixFramer.FrameCore(ok.Span, 4096).Status);
    }

    [Fact]
    public void Encoding_an_execution_report_allocates_nothing()
    {
        var state = (encoder: new FixEncoder(), buffer: new byte[512]);
        long bytes = Allocations.Measure(state, static s => FixSampleEncoding.EncodeExecutionReport(s.encoder, s.buffer, SendingTime, 42), iterations: 100_000);
        Assert.Equal(0, bytes);
    }
}
