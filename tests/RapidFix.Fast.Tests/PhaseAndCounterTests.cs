using RapidFix.Fast.Codec;
using RapidFix.Fast.Messages;
using RapidFix.Fast.Templates;
using RapidFix.Fast.Tests.Support;
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
