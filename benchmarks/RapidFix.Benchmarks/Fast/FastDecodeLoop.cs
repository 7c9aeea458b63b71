using RapidFix.Benchmarks.Diagnostics;
using RapidFix.Fast.Codec;
using RapidFix.Fast.Framing;
using RapidFix.Fast.Messages;
using RapidFix.Fast.Templates;

namespace RapidFix.Benchmarks.Fast;

/// <summary>
/// A plain loop that decodes the complex30000 corpus (or, with <c>trivial</c>, 30,001 two-byte messages of the
/// one-field template "Done", which leaves only the per-message path; with <c>encode</c>, the corpus decoded and each
/// message encoded again at once, as in <c>FastCodecBenchmarks.DecodeAndEncode</c>) a given number of times after a warm-up,
/// for counting instructions with <c>perf stat</c>: the difference between two pass counts divided by the
/// messages between them is the instructions per message, unlike time nearly unaffected by other work on the
/// machine (benchmarks/count-instructions.sh). Not a BenchmarkDotNet run.
/// </summary>
internal static class FastDecodeLoop
{
    public static int Run(int passes, string mode, TextWriter output)
    {
        bool trivial = mode == "trivial";
        byte[] data = File.ReadAllBytes(FastCorpus.PathOf("complex30000.dat"));
        if (trivial)
        {
            // A 2-byte length prefix value, then the presence map (template identifier's bit) and identifier 99.
            data = new byte[FastCorpus.MessageCount * 6];
            for (int i = 0; i < FastCorpus.MessageCount; i++)
            {
                data[i * 6] = 2;
                data[(i * 6) + 4] = 0xC0;
                data[(i * 6) + 5] = 0x80 | 99;
            }
        }

        var decoder = new FastDecoder(FastTemplateLoader.LoadFile(FastCorpus.PathOf("complex30000-templates.xml")));
        var message = new FastMessage();
        var encoder = mode == "encode" ? new FastEncoder(decoder.Templates) : null;
        var encoded = new byte[64 * 1024];
        long errors = CountingLoop.Run(passes, FastCorpus.MessageCount, () => Pass(decoder, encoder, encoded, data, message), out double perMessage);
        output.WriteLine($"{passes} passes, {perMessage:F1} ns/message, {errors} errors");
        return errors == 0 ? 0 : 1;
    }

    private static int Pass(FastDecoder decoder, FastEncoder? encoder, byte[] encoded, byte[] data, FastMessage message)
    {
        int errors = 0;
        decoder.Reset();
        encoder?.Reset();
        var reader = new FastStreamReader(data, FastFraming.LengthPrefixLittleEndian);
        while (!reader.End)
        {
            if (!reader.ReadNext(decoder, message).Ok || (encoder is not null && !encoder.Encode(message, encoded).Ok))
            {
                errors++;
            }
        }

        return errors;
    }
}
