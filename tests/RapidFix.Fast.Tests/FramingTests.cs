using RapidFix.Fast.Codec;
using RapidFix.Fast.Framing;
using RapidFix.Fast.Messages;
using RapidFix.Fast.Tests.Support;
using RapidFix.Tests.Shared;

namespace RapidFix.Fast.Tests;

public sealed class FramingTests
{
    /// <summary>Re-frames the first messages of the corpus, reads them back and checks they decode to the same values.</summary>
    [SharedDataTheory]
    [InlineData(FastFraming.Raw)]
    [InlineData(FastFraming.LengthPrefixLittleEndian)]
    [InlineData(FastFraming.LengthPrefixBigEndian)]
    [InlineData(FastFraming.StopBitBlock)]
    [InlineData(FastFraming.CmePreamble)]
    public void Every_framing_round_trips_the_corpus(FastFraming framing)
    {
        const int count = 500;
        var decoder = new FastDecoder(Corpus.Templates);
        var encoder = new FastEncoder(Corpus.Templates);
        var message = new FastMessage();
        var source = new FastStreamReader(Corpus.Bytes, FastFraming.LengthPrefixLittleEndian);
        var framed = new byte[Corpus.Bytes.Length];
        var expected = new List<string>();
        int pos = 0;
        var scratch = new byte[4096];
        for (int i = 0; i < count; i++)
        {
            Assert.True(source.ReadNext(decoder, message).Ok);
            expected.Add(MessageText.Format(message));
            var w = encoder.Encode(message, scratch);
            Assert.True(w.Ok);
            pos += FastFrameWriter.WriteHeader(framing, framed.AsSpan(pos), w.Length, sequenceNumber: (uint)(1000 + i), subChannel: 7);
            scratch.AsSpan(0, w.Length).CopyTo(framed.AsSpan(pos));
            pos += w.Length;
        }

        var reader = new FastStreamReader(framed.AsSpan(0, pos), framing);
        var readDecoder = new FastDecoder(Corpus.Templates);
        int n = 0;
        while (!reader.End)
        {
            var r = reader.ReadNext(readDecoder, message);
            Assert.True(r.Ok, $"{framing} message {n}: {r.Error} at {r.Offset}");
            Assert.Equal(expected[n], MessageText.Format(message));
            if (framing == FastFraming.CmePreamble)
            {
                Assert.Equal((uint)(1000 + n), reader.SequenceNumber);
                Assert.Equal(7, reader.SubChannel);
            }

            n++;
        }

        Assert.Equal(count, n);
    }

    [Fact]
    public void A_zero_block_length_is_D12()
    {
        var codec = new TestCodec("""<template name="A" id="1"><uInt32 name="x" id="1"/></template>""");
        var reader = new FastStreamReader(TestCodec.Bytes("80 C0 81 85"), FastFraming.StopBitBlock);
        var r = reader.ReadNext(codec.Decoder, codec.Message);
        Assert.Equal(FastErrorCode.D12, r.Error);
        Assert.Equal(0, r.Offset);
        Assert.True(reader.End);
    }

    [Fact]
    public void A_length_prefix_beyond_the_data_is_a_truncation()
    {
        var codec = new TestCodec("""<template name="A" id="1"><uInt32 name="x" id="1"/></template>""");
        var reader = new FastStreamReader(TestCodec.Bytes("03000000 C08185 10000000 C081"), FastFraming.LengthPrefixLittleEndian);
        Assert.True(reader.ReadNext(codec.Decoder, codec.Message).Ok);
        var r = reader.ReadNext(codec.Decoder, codec.Message);
        Assert.Equal(FastErrorCode.UnexpectedEnd, r.Error);
        Assert.Equal(7, r.Offset);
    }

    [Fact]
    public void A_bad_message_in_a_length_prefixed_frame_skips_to_the_next_frame()
    {
        var codec = new TestCodec("""<template name="A" id="1"><uInt32 name="x" id="1"/></template>""");
        // frame 1 names template 9 (D9); frame 2 is good
        var reader = new FastStreamReader(TestCodec.Bytes("00000003 C08985 00000003 C08186"), FastFraming.LengthPrefixBigEndian);
        var r = reader.ReadNext(codec.Decoder, codec.Message);
        Assert.Equal(FastErrorCode.D9, r.Error);
        Assert.Equal(4, r.Offset);
        r = reader.ReadNext(codec.Decoder, codec.Message);
        Assert.True(r.Ok);
        Assert.True(codec.Message.TryGetInt(default, 1, out int x));
        Assert.Equal(6, x);
        Assert.True(reader.End);
    }

    [Fact]
    public void A_frame_may_hold_several_messages()
    {
        var codec = new TestCodec("""<template name="A" id="1"><uInt32 name="x" id="1"/></template>""");
        var reader = new FastStreamReader(TestCodec.Bytes("85 C08181 8082"), FastFraming.StopBitBlock);
        Assert.True(reader.ReadNext(codec.Decoder, codec.Message).Ok);
        Assert.True(reader.ReadNext(codec.Decoder, codec.Message).Ok);
        Assert.True(codec.Message.TryGetInt(default, 1, out int x));
        Assert.Equal(2, x);
        Assert.True(reader.End);
    }
}
