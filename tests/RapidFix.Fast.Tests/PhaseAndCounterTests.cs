using RapidFix.Fast.Codec;
using RapidFix.Fast.Messages;
using RapidFix.Fast.Templates;
using RapidFix.Fast.Tests.Support;
using RapidFix.Pools.Objects;
using RapidFix.Pools.Phases;

namespace RapidFix.Fast.Tests;

public sealed class PhaseAndCounterTests
{
    private const string Xml = """<template name="A" id="1"><uInt32 name="x" id="1"/></template>""";

    [Fact]
    public void Codec_state_can_only_be_created_during_startup()
    {
        var phases = new PhaseController("fast-test");
        var registry = new FastTemplateLoader().AddXml(TestCodec.Wrap(Xml)).Build(phases: phases);
        _ = new FastDecoder(registry, phases);
        _ = new FastEncoder(registry, phases);
        _ = new FastMessage(FastMessageCapacity.Default, phases);

        phases.EnterContinuous();
        try
        {
            Assert.Throws<PhaseViolationException>(() => new FastDecoder(registry, phases));
            Assert.Throws<PhaseViolationException>(() => new FastEncoder(registry, phases));
            Assert.Throws<PhaseViolationException>(() => new FastMessage(FastMessageCapacity.Default, phases));
            Assert.Throws<PhaseViolationException>(() => new FastTemplateLoader().AddXml(TestCodec.Wrap(Xml)).Build(phases: phases));
        }
        finally
        {
            phases.EnterShutdown();
        }
    }

    [Fact]
    public void Message_slots_come_from_the_engines_object_pool_and_exhaustion_is_counted()
    {
        var codec = new TestCodec(Xml);
        var pool = new LocalObjectPool<FastMessage>("fast-messages", 2, () => new FastMessage(new FastMessageCapacity { Values = 16, Scopes = 4, ArenaBytes = 64 }));
        Assert.True(pool.TryRent(out var first));
        Assert.True(pool.TryRent(out var second));
        Assert.False(pool.TryRent(out _)); // pre-sized: no growth, a counted failure
        Assert.Equal(1, pool.RentFailures);

        Assert.True(codec.Decoder.Decode(TestCodec.Bytes("C0 81 85"), first!).Ok);
        Assert.True(codec.Decoder.Decode(TestCodec.Bytes("80 86"), second!).Ok);
        Assert.True(first!.TryGetInt(default, 1, out int a));
        Assert.True(second!.TryGetInt(default, 1, out int b));
        Assert.Equal((5, 6), (a, b)); // each slot keeps its own message
        Assert.True(pool.Return(first));
        Assert.True(pool.TryRent(out var again));
        Assert.Same(first, again);
    }

    [Fact]
    public void The_decoder_counts_messages_and_errors_by_code()
    {
        var codec = new TestCodec(Xml);
        codec.DecodeOk("C0 81 85");
        codec.DecodeOk("80 86");
        Assert.Equal(FastErrorCode.D9, codec.Decode("C0 82 85").Error);
        Assert.Equal(FastErrorCode.UnexpectedEnd, codec.Decode("C0 81").Error);
        var small = new FastMessage(new FastMessageCapacity { Values = 1, Scopes = 1, ArenaBytes = 1 });
        Assert.Equal(FastErrorCode.CapacityExceeded, new TestCodec("""<template name="B" id="2"><string name="s" id="1"/></template>""").Decoder.Decode(TestCodec.Bytes("C0 82 61 E2"), small).Error);

        Assert.Equal(2, codec.Decoder.MessagesDecoded);
        Assert.Equal(2, codec.Decoder.Errors);
        Assert.Equal(1, codec.Decoder.ErrorCount(FastErrorCode.D9));
        Assert.Equal(1, codec.Decoder.ErrorCount(FastErrorCode.UnexpectedEnd));
        Assert.Equal(0, codec.Decoder.ErrorCount(FastErrorCode.D5));
    }
}
