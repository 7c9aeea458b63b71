using RapidFix.Fast.Codec;
using RapidFix.Fast.Framing;
using RapidFix.Fast.Messages;
using RapidFix.Fast.Templates;
using RapidFix.Fast.Tests.Support;
using RapidFix.Tests.Shared;

namespace RapidFix.Fast.Tests;

/// <summary>
/// Template bodies compiled at startup must decode exactly as the interpreter does (same messages, same error
/// codes at the same offsets, on the corpus and on mutated packets) and encode the same bytes.
/// </summary>
public sealed class CompiledDecoderTests
{
    private static FastTemplateRegistry Load(bool compile) =>
        new FastTemplateLoader().AddFile(SharedData.PathOf("fast", "complex30000-templates.xml")).Build(new FastCodecLimits { CompileTemplates = compile });

    [SharedDataFact]
    public void Templates_are_compiled_by_default_and_can_be_interpreted()
    {
        Assert.True(BodyCompiler.IsSupported);
        Assert.NotNull(Load(compile: true).Find("MarketData")!.Body.Compiled);
        Assert.Null(Load(compile: false).Find("MarketData")!.Body.Compiled);
    }

    [SharedDataFact]
    public void Compiled_and_interpreted_decoding_agree_on_the_corpus()
    {
        var compiled = new FastDecoder(Load(compile: true));
        var interpreted = new FastDecoder(Load(compile: false));
        var a = new FastMessage();
        var b = new FastMessage();
        var ra = new FastStreamReader(Corpus.Bytes, FastFraming.LengthPrefixLittleEndian);
        var rb = new FastStreamReader(Corpus.Bytes, FastFraming.LengthPrefixLittleEndian);
        int n = 0;
        while (!ra.End)
        {
            var x = ra.ReadNext(compiled, a);
            var y = rb.ReadNext(interpreted, b);
            Assert.Equal(y, x);
            Assert.Equal(MessageText.Format(b), MessageText.Format(a));
            n++;
        }

        Assert.Equal(Corpus.MessageCount, n);
    }

    [SharedDataTheory]
    [InlineData(true)]
    [InlineData(false)]
    public void Compiled_and_interpreted_encoding_both_reproduce_the_corpus(bool compile)
    {
        var registry = Load(compile);
        Assert.Equal(compile, registry.Find("MarketData")!.Body.CompiledEncoder is not null);
        var decoder = new FastDecoder(registry);
        var encoder = new FastEncoder(registry);
        var message = new FastMessage();
        var output = new byte[Corpus.Bytes.Length];
        var reader = new FastStreamReader(Corpus.Bytes, FastFraming.LengthPrefixLittleEndian);
        int pos = 0;
        while (!reader.End)
        {
            Assert.True(reader.ReadNext(decoder, message).Ok);
            var w = encoder.Encode(message, output.AsSpan(pos + 4));
            Assert.True(w.Ok, $"{w.Error} at {w.Offset}");
            BitConverter.TryWriteBytes(output.AsSpan(pos), w.Length);
            pos += 4 + w.Length;
        }

        Assert.Equal(Corpus.Bytes.Length, pos);
        Assert.True(Corpus.Bytes.AsSpan().SequenceEqual(output));
    }

    [SharedDataFact]
    public void Compiled_and_interpreted_decoding_agree_on_mutated_packets()
    {
        var compiled = new FastDecoder(Load(compile: true));
        var interpreted = new FastDecoder(Load(compile: false));
        var a = new FastMessage();
        var b = new FastMessage();
        var random = new Random(7);
        var data = Corpus.Bytes;
        var buffer = new byte[4096];
        int pos = 0;
        int errors = 0;
        for (int i = 0; i < 20_000; i++)
        {
            if (pos >= data.Length)
            {
                pos = 0;
            }

            int length = BitConverter.ToInt32(data, pos);
            data.AsSpan(pos + 4, length).CopyTo(buffer);
            pos += 4 + length;
            for (int k = random.Next(0, 3); k > 0; k--)
            {
                buffer[random.Next(length)] ^= (byte)(1 << random.Next(8));
            }

            if (random.Next(4) == 0)
            {
                length = random.Next(length);
            }

            var x = compiled.Decode(buffer.AsSpan(0, length), a);
            var y = interpreted.Decode(buffer.AsSpan(0, length), b);
            Assert.Equal(y, x);
            if (x.Ok)
            {
                Assert.Equal(MessageText.Format(b), MessageText.Format(a));
            }
            else
            {
                errors++;
            }
        }

        Assert.True(errors > 1_000, $"only {errors} mutated packets failed");
    }
}
