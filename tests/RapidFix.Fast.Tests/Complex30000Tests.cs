using System.Buffers.Binary;
using RapidFix.Engine.Fields;
using RapidFix.Fast.Codec;
using RapidFix.Fast.Framing;
using RapidFix.Fast.Messages;
using RapidFix.Fast.Tests.Support;
using RapidFix.Tests.Shared;

namespace RapidFix.Fast.Tests;

public sealed class Complex30000Tests
{
    [SharedDataFact]
    public void Decodes_all_30001_messages_without_error()
    {
        var decoder = new FastDecoder(Corpus.Templates);
        var message = new FastMessage();
        var reader = new FastStreamReader(Corpus.Bytes, FastFraming.LengthPrefixLittleEndian);
        int count = 0;
        var perTemplate = new Dictionary<uint, int>();
        while (!reader.End)
        {
            var r = reader.ReadNext(decoder, message);
            Assert.True(r.Ok, $"message {count}: {r.Error} at offset {r.Offset}");
            perTemplate[r.TemplateId] = perTemplate.GetValueOrDefault(r.TemplateId) + 1;
            count++;
        }

        Assert.Equal(Corpus.MessageCount, count);
        Assert.Equal([1u, 2u, 99u], perTemplate.Keys.Order());
    }

    [SharedDataFact]
    public void Decoded_market_data_reads_through_the_fix_accessors()
    {
        var decoder = new FastDecoder(Corpus.Templates);
        var message = new FastMessage();
        var reader = new FastStreamReader(Corpus.Bytes, FastFraming.LengthPrefixLittleEndian);
        FastResult r;
        do
        {
            r = reader.ReadNext(decoder, message);
            Assert.True(r.Ok);
        }
        while (r.TemplateId != 1);

        Assert.Equal("X"u8.ToArray(), message.MsgType.ToArray());
        Assert.True(message.TryGetText(FieldScope.Message, 49, out var sender));
        Assert.Equal("Test Exchange"u8.ToArray(), sender.ToArray());
        Assert.True(message.TryGetLong(FieldScope.Message, 34, out long seqNum));
        Assert.True(seqNum > 0);
        int entries = message.GetGroupCount(FieldScope.Message, 268);
        Assert.True(entries > 0);
        for (int i = 0; i < entries; i++)
        {
            Assert.True(message.TryGetGroupEntry(FieldScope.Message, 268, i, out var entry));
            Assert.True(message.TryGetDecimal(entry, 270, out _));
            Assert.True(message.TryGetInt(entry, 48, out int securityId));
            Assert.True(securityId > 0);
            Assert.True(message.TryGetInt(entry, 22, out int source));
            Assert.Equal(9, source); // constant
        }

        Assert.False(message.TryGetGroupEntry(FieldScope.Message, 268, entries, out _));
    }

    [SharedDataFact]
    public void Reencodes_to_identical_bytes()
    {
        var decoder = new FastDecoder(Corpus.Templates);
        var encoder = new FastEncoder(Corpus.Templates);
        var message = new FastMessage();
        var input = Corpus.Bytes;
        var output = new byte[input.Length];
        var reader = new FastStreamReader(input, FastFraming.LengthPrefixLittleEndian);
        int outPos = 0;
        int count = 0;
        while (!reader.End)
        {
            var r = reader.ReadNext(decoder, message);
            Assert.True(r.Ok, $"decode {count}: {r.Error} at {r.Offset}");
            var w = encoder.Encode(message, output.AsSpan(outPos + 4));
            Assert.True(w.Ok, $"encode {count}: {w.Error}");
            BinaryPrimitives.WriteInt32LittleEndian(output.AsSpan(outPos), w.Length);
            int start = outPos;
            outPos += 4 + w.Length;
            if (!input.AsSpan(start, outPos - start).SequenceEqual(output.AsSpan(start, outPos - start)))
            {
                Assert.Fail($"message {count} differs: expected {Convert.ToHexString(input, start, Math.Min(input.Length - start, outPos - start))} got {Convert.ToHexString(output, start, outPos - start)}");
            }

            count++;
        }

        Assert.Equal(input.Length, outPos);
        Assert.True(input.AsSpan().SequenceEqual(output));
    }
}
