using System.Buffers.Binary;
using RapidFix.Engine.Fields;
using RapidFix.Fast.Codec;
using RapidFix.Fast.Framing;
using RapidFix.Fast.Messages;
using RapidFix.Fast.Templates;
using RapidFix.Fast.Tests.Support;
using RapidFix.Tests.Shared;
using RapidFix.Tests.Shared.Fast;

namespace RapidFix.Fast.Tests;

/// <summary>The continuous phase allocates nothing: decode, encode and the accessors, after warm-up.</summary>
public sealed class AllocationTests
{
    [SharedDataFact]
    public void Decoding_the_corpus_into_a_message_slot_allocates_nothing()
    {
        var state = new CorpusState();
        long allocated = Allocations.Measure(state, static s => s.DecodeAll(), iterations: 3, warmup: 3);
        Assert.Equal(0, allocated);
        Assert.Equal(Corpus.MessageCount, state.Decoded);
    }

    [SharedDataFact]
    public void Decoding_the_corpus_with_a_struct_handler_allocates_nothing()
    {
        var state = new CorpusState();
        long allocated = Allocations.Measure(state, static s => s.DecodeAllWithHandler(), iterations: 3, warmup: 3);
        Assert.Equal(0, allocated);
        Assert.True(state.HandlerValues > Corpus.MessageCount);
    }

    [SharedDataFact]
    public void Encoding_the_corpus_allocates_nothing()
    {
        var state = new CorpusState();
        long allocated = Allocations.Measure(state, static s => s.DecodeAndEncodeAll(), iterations: 3, warmup: 3);
        Assert.Equal(0, allocated);
        Assert.Equal(Corpus.Bytes.Length, state.Encoded);
    }

    [SharedDataFact]
    public void The_field_accessors_allocate_nothing()
    {
        var state = new CorpusState();
        state.DecodeFirstMarketData();

        // The accessor method is generic over a class (shared code): the runtime fills its generic dictionary lazily,
        // once, when tiered-up code first runs. Let tiering finish so that one-time fill is part of the warm-up.
        for (int i = 0; i < 200_000; i++)
        {
            state.ReadThroughAccessor(state.Message);
        }

        Thread.Sleep(500);
        long allocated = Allocations.Measure(state, static s => s.ReadThroughAccessor(s.Message), iterations: 100_000, warmup: 50_000);
        Assert.Equal(0, allocated);
        Assert.True(state.Checksum != 0);
    }

    [SharedDataFact]
    public void The_struct_view_reads_the_same_and_allocates_nothing()
    {
        var state = new CorpusState();
        state.DecodeFirstMarketData();
        state.ReadThroughAccessor(state.Message);
        long viaClass = state.Checksum;
        state.Checksum = 0;
        state.ReadThroughAccessor(state.Message.View);
        Assert.Equal(viaClass, state.Checksum);

        long allocated = Allocations.Measure(state, static s => s.ReadThroughAccessor(s.Message.View), iterations: 100_000, warmup: 50_000);
        Assert.Equal(0, allocated);
    }

    private sealed class CorpusState
    {
        public readonly FastDecoder Decoder = new(Corpus.Templates);
        public readonly FastEncoder Encoder = new(Corpus.Templates);
        public readonly FastMessage Message = new();
        public readonly byte[] Output = new byte[Corpus.Bytes.Length];
        public int Decoded;
        public int Encoded;
        public long HandlerValues;
        public long Checksum;

        public void DecodeAll()
        {
            Decoder.Reset();
            Decoded = 0;
            var reader = new FastStreamReader(Corpus.Bytes, FastFraming.LengthPrefixLittleEndian);
            while (!reader.End)
            {
                if (reader.ReadNext(Decoder, Message).Ok)
                {
                    Decoded++;
                }
            }
        }

        public void DecodeAllWithHandler()
        {
            Decoder.Reset();
            var handler = new CountingFastHandler();
            var reader = new FastStreamReader(Corpus.Bytes, FastFraming.LengthPrefixLittleEndian);
            while (!reader.End)
            {
                reader.ReadNext(Decoder, ref handler);
            }

            HandlerValues = handler.Values;
        }

        public void DecodeAndEncodeAll()
        {
            Decoder.Reset();
            Encoder.Reset();
            Encoded = 0;
            var reader = new FastStreamReader(Corpus.Bytes, FastFraming.LengthPrefixLittleEndian);
            while (!reader.End)
            {
                reader.ReadNext(Decoder, Message);
                var w = Encoder.Encode(Message, Output.AsSpan(Encoded + 4));
                BinaryPrimitives.WriteInt32LittleEndian(Output.AsSpan(Encoded), w.Length);
                Encoded += 4 + w.Length;
            }
        }

        public void DecodeFirstMarketData()
        {
            var reader = new FastStreamReader(Corpus.Bytes, FastFraming.LengthPrefixLittleEndian);
            while (reader.ReadNext(Decoder, Message).TemplateId != 1)
            {
            }
        }

        /// <summary>Generic over the accessor, as engine code is: the calls are constrained, not virtual.</summary>
        public void ReadThroughAccessor<T>(T message)
            where T : IFieldAccessor
        {
            long sum = message.MsgType.Length;
            message.TryGetLong(FieldScope.Message, 34, out long seq);
            sum += seq;
            if (message.TryGetText(FieldScope.Message, 49, out var sender))
            {
                sum += sender.Length;
            }

            int n = message.GetGroupCount(FieldScope.Message, 268);
            for (int i = 0; i < n; i++)
            {
                message.TryGetGroupEntry(FieldScope.Message, 268, i, out var entry);
                if (message.TryGetDecimal(entry, 270, out var px))
                {
                    sum += px.Mantissa;
                }

                if (message.TryGetText(entry, 270, out var text))
                {
                    sum += text.Length;
                }

                message.TryGetInt(entry, 48, out int id);
                sum += id + (message.Contains(entry, 1023) ? 1 : 0);
            }

            Checksum += sum;
        }
    }
}
