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

    [Theory]
    [InlineData(61, true)] // with the template identifier's bit, 62 bits: 9 presence map bytes
    [InlineData(62, true)] // 63 bits: the whole window a presence map loads
    [InlineData(63, false)] // 64 bits: interpreted
    [InlineData(75, false)]
    public void Bodies_with_long_presence_maps_decode_alike_compiled_or_not(int fields, bool compiled)
    {
        // A template and a sequence entry of `fields` copy fields each; every third field's bit is clear (its previous value).
        var xml = new System.Text.StringBuilder();
        var entry = new System.Text.StringBuilder();
        for (int i = 0; i < fields; i++)
        {
            xml.Append($"<uInt32 name=\"t{i}\" id=\"{i + 1}\"><copy value=\"{i}\"/></uInt32>");
            entry.Append($"<uInt32 name=\"e{i}\" id=\"{i + 1001}\"><copy value=\"{i}\"/></uInt32>");
        }

        string templates = $"<template name=\"P\" id=\"3\">{xml}<sequence name=\"S\"><length name=\"n\" id=\"999\"/>{entry}</sequence></template>";
        var on = new TestCodec(templates);
        var off = new TestCodec(templates, new FastCodecLimits { CompileTemplates = false });
        var body = on.Templates.Find("P")!.Body;
        Assert.Equal(compiled, body.Compiled is not null);
        Assert.Equal(compiled, body.Instructions[^1].Body!.CompiledEntries is not null);

        var bytes = new List<byte>();
        bytes.AddRange(Pmap(fields, withTemplateId: true));
        bytes.Add(0x83);
        AppendValues(bytes, fields, 50);
        bytes.Add(0x82); // two entries
        for (int e = 0; e < 2; e++)
        {
            bytes.AddRange(Pmap(fields, withTemplateId: false));
            AppendValues(bytes, fields, 20 * e);
        }

        var data = bytes.ToArray();
        for (int pass = 0; pass < 2; pass++)
        {
            var x = on.Decoder.Decode(data, on.Message);
            var y = off.Decoder.Decode(data, off.Message);
            Assert.True(x.Ok, $"{x.Error} at {x.Offset}");
            Assert.Equal(y, x);
            Assert.Equal(data.Length, x.Length);
            Assert.Equal(off.Text(), on.Text());
        }
    }

    [Fact]
    public void Bodies_longer_than_one_compiled_method_decode_alike_compiled_or_not()
    {
        // 150 fields, every fifth a copy with a presence bit (30 bits): compiled in parts of 64 fields, each part a
        // method of its own, with the position and the presence map window handed from part to part.
        var xml = new System.Text.StringBuilder("<template name=\"L\" id=\"7\">");
        for (int i = 0; i < 150; i++)
        {
            xml.Append(i % 5 == 0 ? $"<uInt32 name=\"f{i}\" id=\"{i + 1}\"><copy/></uInt32>" : $"<int64 name=\"f{i}\" id=\"{i + 1}\"/>");
        }

        xml.Append("</template>");
        var on = new TestCodec(xml.ToString());
        var off = new TestCodec(xml.ToString(), new FastCodecLimits { CompileTemplates = false });
        Assert.NotNull(on.Templates.Find("L")!.Body.Compiled);
        var random = new Random(23);
        int decoded = 0;
        for (int i = 0; i < 2_000; i++)
        {
            var bytes = RandomPmap(random, 31);
            bytes.Add(0x87);
            for (int k = 0; k < 150; k++)
            {
                // Mostly one-byte values; now and then any integer (overlong, too large...), so some messages fail.
                if (random.Next(100) == 0)
                {
                    AppendRandomInteger(bytes, random);
                }
                else
                {
                    bytes.Add((byte)(0x80 | random.Next(0x80)));
                }
            }

            if (DecodeAlike(on, off, bytes.ToArray()))
            {
                decoded++;
            }
        }

        Assert.InRange(decoded, 100, 1_990);
    }

    /// <summary>
    /// A presence map with every third field's bit clear (and the template identifier's bit first, set, when asked);
    /// its last byte always has a bit set (not overlong).
    /// </summary>
    private static byte[] Pmap(int fields, bool withTemplateId)
    {
        var bits = new List<bool>();
        if (withTemplateId)
        {
            bits.Add(true);
        }

        for (int i = 0; i < fields; i++)
        {
            bits.Add(i % 3 != 1);
        }

        var result = new byte[(bits.Count + 6) / 7];
        for (int i = 0; i < bits.Count; i++)
        {
            if (bits[i])
            {
                result[i / 7] |= (byte)(0x40 >> (i % 7));
            }
        }

        result[^1] |= 0x80;
        return result;
    }

    private static void AppendValues(List<byte> bytes, int fields, int offset)
    {
        for (int i = 0; i < fields; i++)
        {
            if (i % 3 != 1)
            {
                bytes.Add((byte)(0x80 | (offset + i))); // below 128 for up to 75 fields
            }
        }
    }

    [Fact]
    public void Compiled_and_interpreted_decoding_agree_on_integers_of_every_length()
    {
        const string templates = """
            <template name="I" id="4">
              <uInt64 name="a" id="1"/>
              <uInt32 name="b" id="2"/>
              <uInt64 name="c" id="3" presence="optional"/>
            </template>
            """;
        var on = new TestCodec(templates);
        var off = new TestCodec(templates, new FastCodecLimits { CompileTemplates = false });
        var random = new Random(11);
        int decoded = 0;
        for (int i = 0; i < 2_000; i++)
        {
            // Values of 1 to 10 stop-bit bytes; a trailing byte or none, so some reads end at the input's last byte.
            var bytes = new List<byte> { 0xC0, 0x84 };
            for (int field = 0; field < 3; field++)
            {
                ulong r = ((ulong)random.NextInt64() << 1) | (uint)random.Next(2);
                ulong value = random.Next(8) == 0 ? ulong.MaxValue - (r & 0xFF) : r >> random.Next(field == 1 ? 32 : 0, 64);
                StopBit(bytes, value);
            }

            if (random.Next(2) == 0)
            {
                bytes.Add(0x80);
            }

            if (DecodeAlike(on, off, bytes.ToArray()))
            {
                decoded++;
            }
        }

        Assert.True(decoded > 1_000, $"only {decoded} decoded");
    }

    [Fact]
    public void Compiled_and_interpreted_decoding_agree_on_presence_bits_taken_by_every_kind_of_field()
    {
        // Each kind of operation that takes a presence bit, in one body: compiled code knows at compile time which
        // bit each reads, except after a decimal whose mantissa has a bit only when its exponent is present.
        const string templates = """
            <template name="B" id="5">
              <uInt32 name="a" id="1"><copy/></uInt32>
              <decimal name="d" id="2" presence="optional">
                <exponent><default value="-2"/></exponent>
                <mantissa><copy/></mantissa>
              </decimal>
              <uInt32 name="b" id="3"><default value="7"/></uInt32>
              <string name="s" id="4"><copy/></string>
              <uInt32 name="c" id="5" presence="optional"><constant value="3"/></uInt32>
              <string name="t" id="6" presence="optional"><default value="X"/></string>
              <sequence name="q" presence="optional">
                <length name="n" id="7"><copy/></length>
                <uInt32 name="e" id="8"><copy/></uInt32>
                <uInt32 name="g" id="9"><increment/></uInt32>
              </sequence>
              <uInt32 name="f" id="10"><increment/></uInt32>
              <decimal name="h" id="11"><copy/></decimal>
            </template>
            """;
        var on = new TestCodec(templates);
        var off = new TestCodec(templates, new FastCodecLimits { CompileTemplates = false });
        var random = new Random(5);
        byte[] values = [0x80, 0x81, 0x82, 0x80, 0x81, 0x82, 0x83, 0xC1, 0xFF, 0x01];
        int decoded = 0;
        for (int i = 0; i < 20_000; i++)
        {
            // A random two-byte presence map (template identifier bit set), the identifier, then random small values
            // (most messages fail, with the same error at the same offset both ways; about 900 of them decode).
            var bytes = new List<byte> { (byte)(0x40 | random.Next(0x40)), (byte)(0x80 | random.Next(0x80)), 0x85 };
            int count = random.Next(8, 32);
            for (int k = 0; k < count; k++)
            {
                bytes.Add(values[random.Next(values.Length)]);
            }

            if (DecodeAlike(on, off, bytes.ToArray()))
            {
                decoded++;
            }
        }

        Assert.True(decoded > 500, $"only {decoded} decoded");
    }

    /// <summary>
    /// Every integer operator the compiler emits as IL (none, constant, default with and without a value, copy,
    /// increment and delta, with and without initial values), for each integer type, mandatory and optional, and
    /// split decimals, against the interpreter: random values of 1 to 10 bytes, NULLs, overlong forms and range
    /// extremes, in streams of messages that carry the dictionaries from one message to the next (undefined,
    /// empty and assigned previous values, and a key shared by fields of different types).
    /// </summary>
    [Fact]
    public void Compiled_and_interpreted_decoding_agree_on_every_emitted_integer_operator()
    {
        var templates = new System.Text.StringBuilder();
        string[] types = ["uInt32", "int32", "uInt64", "int64"];
        for (int t = 0; t < types.Length; t++)
        {
            string initial = t % 2 == 0 ? "5" : "-4";
            templates.Append($"<template name=\"T{t}\" id=\"{10 + t}\" dictionary=\"template\">");
            int id = 1;
            foreach (var presence in new[] { "mandatory", "optional" })
            {
                string[] operators =
                [
                    "", $"<constant value=\"{initial}\"/>", $"<default value=\"{initial}\"/>", "<copy/>", $"<copy value=\"{initial}\"/>",
                    "<increment/>", $"<increment value=\"{initial}\"/>", "<delta/>", $"<delta value=\"{initial}\"/>",
                ];
                foreach (var op in presence == "optional" ? [.. operators, "<default/>"] : operators)
                {
                    templates.Append($"<{types[t]} name=\"f{id}\" id=\"{id}\" presence=\"{presence}\">{op}</{types[t]}>");
                    id++;
                }
            }

            templates.Append("</template>");
        }

        templates.Append("""
            <template name="D" id="20">
              <decimal name="a" id="1"><exponent><default value="-2"/></exponent><mantissa><delta/></mantissa></decimal>
              <decimal name="b" id="2"><exponent/><mantissa><copy/></mantissa></decimal>
              <decimal name="c" id="3"><exponent><constant value="1"/></exponent><mantissa><increment value="3"/></mantissa></decimal>
              <decimal name="d" id="4"><exponent><default value="0"/></exponent><mantissa><default value="9"/></mantissa></decimal>
              <decimal name="e" id="5" presence="optional"><exponent><default/></exponent><mantissa><delta/></mantissa></decimal>
              <decimal name="f" id="6" presence="optional"><exponent><constant value="-1"/></exponent><mantissa><copy/></mantissa></decimal>
              <decimal name="g" id="7" presence="optional"><exponent/><mantissa/></decimal>
              <decimal name="h" id="8" presence="optional"><exponent><copy/></exponent><mantissa><delta/></mantissa></decimal>
            </template>
            <template name="K" id="21">
              <uInt32 name="c" id="3" presence="optional"><increment key="k"/></uInt32>
              <uInt32 name="a" id="1"><copy key="k"/></uInt32>
              <int64 name="b" id="2"><delta key="k"/></int64>
              <int32 name="d" id="4"><copy key="k"/></int32>
            </template>
            """);
        var on = new TestCodec(templates.ToString());
        var off = new TestCodec(templates.ToString(), new FastCodecLimits { CompileTemplates = false });
        Assert.All(on.Templates.Templates, t => Assert.NotNull(t.Body.Compiled));

        uint[] ids = [10, 11, 12, 13, 20, 21];
        var random = new Random(13);
        var codes = new Dictionary<FastErrorCode, int>();
        for (int i = 0; i < 40_000; i++)
        {
            uint id = ids[random.Next(ids.Length)];
            Assert.True(on.Templates.TryGet(id, out var template));
            var bytes = RandomPmap(random, template.Body.PmapBits + 1);
            bytes.Add((byte)(0x80 | id));
            int count = random.Next(4, 30);
            for (int k = 0; k < count; k++)
            {
                AppendRandomInteger(bytes, random);
            }

            var x = on.Decoder.Decode(bytes.ToArray(), on.Message);
            var y = off.Decoder.Decode(bytes.ToArray(), off.Message);
            Assert.Equal(y, x);
            if (x.Ok)
            {
                Assert.Equal(off.Text(), on.Text());
            }

            codes[x.Error] = codes.GetValueOrDefault(x.Error) + 1;
        }

        // Both the inline code and its cold paths ran: decoded messages, and the errors they hand over.
        var seen = string.Join(", ", codes.Select(c => $"{c.Key}: {c.Value}"));
        Assert.True(codes.GetValueOrDefault(FastErrorCode.None) > 2_000, seen);
        Assert.All(new[] { FastErrorCode.D2, FastErrorCode.D4, FastErrorCode.D6, FastErrorCode.R1 }, c => Assert.True(codes.ContainsKey(c), $"no {c}: {seen}"));
    }

    /// <summary>
    /// Every ASCII string operator the compiler emits as IL (none, constant, default with and without a value, copy
    /// with and without one), mandatory and optional, and byte vectors, against the interpreter: NULLs, empty strings, "\0", one
    /// character, longer strings (past the 8-byte word copy too), missing stop bits, and a message arena that fills
    /// up (the interpreter then reports the capacity error), in streams that carry the dictionary across messages.
    /// </summary>
    [Theory]
    [InlineData(64 * 1024)]
    [InlineData(12)]
    public void Compiled_and_interpreted_decoding_agree_on_every_emitted_string_operator(int arenaBytes)
    {
        var templates = new System.Text.StringBuilder("<template name=\"S\" id=\"30\">");
        int id = 1;
        foreach (var presence in new[] { "mandatory", "optional" })
        {
            string[] operators = ["", "<constant value=\"AB\"/>", "<default value=\"C\"/>", "<copy/>", "<copy value=\"DEF\"/>", "<constant value=\"\"/>"];
            foreach (var op in presence == "optional" ? [.. operators, "<default/>"] : operators)
            {
                templates.Append($"<string name=\"s{id}\" id=\"{id}\" presence=\"{presence}\">{op}</string>");
                id++;
            }
        }

        templates.Append("</template>");

        // Byte vectors share the emitted template and previous-value paths; their wire values are interpreted.
        templates.Append("<template name=\"V\" id=\"31\"><byteVector name=\"v1\" id=\"101\"/><byteVector name=\"v2\" id=\"102\" presence=\"optional\"><copy/></byteVector>");
        templates.Append("<byteVector name=\"v3\" id=\"103\"><constant value=\"4142\"/></byteVector><byteVector name=\"v4\" id=\"104\" presence=\"optional\"><default/></byteVector>");
        templates.Append("<byteVector name=\"v5\" id=\"105\"><copy/></byteVector></template>");
        var capacity = new FastMessageCapacity { ArenaBytes = arenaBytes };
        var on = new TestCodec(templates.ToString());
        var off = new TestCodec(templates.ToString(), new FastCodecLimits { CompileTemplates = false });
        Assert.NotNull(on.Templates.Find("S")!.Body.Compiled);
        Assert.NotNull(on.Templates.Find("V")!.Body.Compiled);
        var a = new FastMessage(capacity);
        var b = new FastMessage(capacity);
        var random = new Random(17);
        var codes = new Dictionary<FastErrorCode, int>();
        for (int i = 0; i < 30_000; i++)
        {
            bool vectors = random.Next(4) == 0;
            var bytes = RandomPmap(random, on.Templates.Find(vectors ? "V" : "S")!.Body.PmapBits + 1);
            bytes.Add((byte)(vectors ? 0x80 | 31 : 0x80 | 30));
            int count = random.Next(2, 16);
            for (int k = 0; k < count; k++)
            {
                if (vectors)
                {
                    // A length (nullable for optional fields), then that many bytes.
                    int length = random.Next(0, 6);
                    bytes.Add((byte)(0x80 | length));
                    for (int n = 0; n < length; n++)
                    {
                        bytes.Add((byte)random.Next(256));
                    }
                }
                else
                {
                    AppendRandomString(bytes, random);
                }
            }

            var x = on.Decoder.Decode(bytes.ToArray(), a);
            var y = off.Decoder.Decode(bytes.ToArray(), b);
            Assert.Equal(y, x);
            if (x.Ok)
            {
                Assert.Equal(MessageText.Format(b), MessageText.Format(a));
            }

            codes[x.Error] = codes.GetValueOrDefault(x.Error) + 1;
        }

        var seen = string.Join(", ", codes.Select(c => $"{c.Key}: {c.Value}"));
        Assert.True(codes.GetValueOrDefault(FastErrorCode.None) > 1_000, seen);
        Assert.True(codes.ContainsKey(arenaBytes < 100 ? FastErrorCode.CapacityExceeded : FastErrorCode.UnexpectedEnd), seen);
    }

    /// <summary>A random ASCII string on the wire: NULL or empty, "\0", one character, 2 to 12, or no stop bit for a while.</summary>
    private static void AppendRandomString(List<byte> bytes, Random random)
    {
        switch (random.Next(7))
        {
            case 0:
                bytes.Add(0x80);
                break;
            case 1:
                bytes.Add(0x00);
                bytes.Add(0x80);
                break;
            case 2:
            case 3:
                bytes.Add((byte)(0x80 | random.Next(0x20, 0x7F)));
                break;
            case 4:
            case 5:
                int length = random.Next(2, 13);
                for (int k = 0; k < length - 1; k++)
                {
                    bytes.Add((byte)random.Next(0x20, 0x7F));
                }

                bytes.Add((byte)(0x80 | random.Next(0x20, 0x7F)));
                break;
            default:
                for (int k = random.Next(1, 20); k > 0; k--)
                {
                    bytes.Add((byte)random.Next(0x01, 0x7F));
                }

                break;
        }
    }

    /// <summary>
    /// A presence map of <paramref name="bits"/> random bits, the first (the template identifier's) set and none past
    /// the last (R8 otherwise).
    /// </summary>
    private static List<byte> RandomPmap(Random random, int bits)
    {
        var bytes = new List<byte>();
        for (int k = 0; k < (bits + 6) / 7; k++)
        {
            int used = Math.Min(7, bits - 7 * k);
            int b = random.Next(0x80) & (0x7F << (7 - used)) & 0x7F;
            bytes.Add((byte)(k == 0 ? b | 0x40 : b));
        }

        bytes[^1] |= 0x80;
        return bytes;
    }

    /// <summary>
    /// A random stop-bit integer: a NULL or zero, one or two bytes (overlong forms included), 3 to 10 bytes, or a
    /// value at a type's edge.
    /// </summary>
    private static void AppendRandomInteger(List<byte> bytes, Random random)
    {
        switch (random.Next(8))
        {
            case 0:
                bytes.Add(0x80);
                break;
            case 1:
            case 2:
                bytes.Add((byte)(0x80 | random.Next(0x80)));
                break;
            case 3:
                bytes.Add((byte)(random.Next(8) == 0 ? (random.Next(2) == 0 ? 0x00 : 0x7F) : random.Next(0x80)));
                bytes.Add((byte)(0x80 | random.Next(0x80)));
                break;
            case 4:
            case 5:
                int length = random.Next(4) == 0 ? random.Next(6, 11) : random.Next(3, 6);
                bytes.Add((byte)(random.Next(12) == 0 ? 0x00 : random.Next(0x80)));
                for (int k = 1; k < length - 1; k++)
                {
                    bytes.Add((byte)random.Next(0x80));
                }

                bytes.Add((byte)(0x80 | random.Next(0x80)));
                break;
            case 6:
                ulong[] unsignedEdges = [uint.MaxValue, (ulong)uint.MaxValue + 1, (ulong)uint.MaxValue + 2, ulong.MaxValue, long.MaxValue];
                StopBit(bytes, unsignedEdges[random.Next(unsignedEdges.Length)]);
                break;
            default:
                long[] signedEdges = [int.MaxValue, (long)int.MaxValue + 1, int.MinValue, (long)int.MinValue - 1, long.MaxValue, long.MinValue, -1, 63, 64, -64, -65];
                SignedStopBit(bytes, signedEdges[random.Next(signedEdges.Length)]);
                break;
        }
    }

    private static void SignedStopBit(List<byte> bytes, long value)
    {
        var groups = new List<byte>();
        while (true)
        {
            groups.Add((byte)(value & 0x7F));
            long rest = value >> 7;
            bool done = (rest == 0 && (value & 0x40) == 0) || (rest == -1 && (value & 0x40) != 0);
            value = rest;
            if (done)
            {
                break;
            }
        }

        for (int i = groups.Count - 1; i >= 0; i--)
        {
            bytes.Add((byte)(groups[i] | (i == 0 ? 0x80 : 0)));
        }
    }

    [Fact]
    public void Stop_bit_groups_join_alike_with_and_without_pext()
    {
        // Word reads join 7-bit groups with PEXT where it is fast and pairwise elsewhere: both must give the value a
        // byte-by-byte loop gives, whichever this machine uses.
        var random = new Random(19);
        for (int i = 0; i < 100_000; i++)
        {
            ulong x = (ulong)random.NextInt64() & 0x7F7F7F7F7F7F7F7FUL;
            ulong expected = 0;
            for (int b = 7; b >= 0; b--)
            {
                expected = (expected << 7) | ((x >> (8 * b)) & 0x7F);
            }

            Assert.Equal(expected, CompiledOps.JoinGroupsPairwise(x));
            if (System.Runtime.Intrinsics.X86.Bmi2.X64.IsSupported)
            {
                Assert.Equal(expected, System.Runtime.Intrinsics.X86.Bmi2.X64.ParallelBitExtract(x, 0x7F7F7F7F7F7F7F7FUL));
            }
        }
    }

    [Fact]
    public void Dictionary_string_buffers_hold_at_least_one_byte()
    {
        // Compiled code writes a one-character previous value without a bounds check.
        Assert.Throws<ArgumentOutOfRangeException>(() => new FastCodecLimits { MaxStringBytes = 0 });
        Assert.Equal(1, new FastCodecLimits { MaxStringBytes = 1 }.MaxStringBytes);
    }

    /// <summary>Decodes <paramref name="data"/> compiled and interpreted: same result, same error offset, same message when it decodes.</summary>
    private static bool DecodeAlike(TestCodec on, TestCodec off, byte[] data)
    {
        var x = on.Decoder.Decode(data, on.Message);
        var y = off.Decoder.Decode(data, off.Message);
        Assert.Equal(y, x);
        if (x.Ok)
        {
            Assert.Equal(off.Text(), on.Text());
        }

        return x.Ok;
    }

    private static void StopBit(List<byte> bytes, ulong value)
    {
        var groups = new List<byte>();
        do
        {
            groups.Add((byte)(value & 0x7F));
            value >>= 7;
        }
        while (value != 0);

        for (int i = groups.Count - 1; i >= 0; i--)
        {
            bytes.Add((byte)(groups[i] | (i == 0 ? 0x80 : 0)));
        }
    }
}
