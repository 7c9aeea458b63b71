using RapidFix.Fast.Codec;
using RapidFix.Fast.Messages;
using RapidFix.Fast.Templates;
using RapidFix.Fast.Tests.Support;
using RapidFix.Tests.Shared;

namespace RapidFix.Fast.Tests;

/// <summary>The 21 tests of openfast's Tests-SampleXmlTest.xml: decode the bits to the expected messages, encode them back to the bits.</summary>
public sealed class ConformanceTests
{
    public static IEnumerable<object[]> Cases => ConformanceFile.Names();

    [SharedDataFact]
    public void The_file_has_21_tests()
    {
        Assert.Equal(21, ConformanceFile.Load().Count);
    }

    [SharedDataTheory]
    [MemberData(nameof(Cases))]
    public void Decodes_the_bits_to_the_expected_messages(string name)
    {
        var test = ConformanceFile.Load().Single(c => c.Name == name);
        var registry = new FastTemplateLoader().AddElement(test.Templates, name).Build();
        var decoded = DecodeAll(registry, test.Bytes);

        if (test.Messages.Length > 0)
        {
            Assert.Equal(test.Messages, decoded);
        }
        else
        {
            // Decode-only tests list no messages: the stream must still decode completely and without error.
            Assert.NotEmpty(decoded);
        }
    }

    [SharedDataTheory]
    [MemberData(nameof(Cases))]
    public void Encodes_the_decoded_messages_back_to_the_same_bits(string name)
    {
        var test = ConformanceFile.Load().Single(c => c.Name == name);
        var registry = new FastTemplateLoader().AddElement(test.Templates, name).Build();
        var decoder = new FastDecoder(registry);
        var encoder = new FastEncoder(registry);
        var message = new FastMessage();
        var output = new byte[test.Bytes.Length + 64];
        int inPos = 0;
        int outPos = 0;
        while (inPos < test.Bytes.Length)
        {
            var r = decoder.Decode(test.Bytes.AsSpan(inPos), message);
            Assert.True(r.Ok, $"decode: {r.Error} at {inPos + r.Offset}");
            var w = encoder.Encode(message, output.AsSpan(outPos));
            Assert.True(w.Ok, $"encode: {w.Error} at {outPos + w.Offset}");
            Assert.Equal(Hex(test.Bytes.AsSpan(inPos, r.Length)), Hex(output.AsSpan(outPos, w.Length)));
            inPos += r.Length;
            outPos += w.Length;
        }

        Assert.Equal(test.Bytes.Length, outPos);
    }

    [SharedDataTheory]
    [MemberData(nameof(Cases))]
    public void Encodes_the_expected_messages_to_the_bits(string name)
    {
        var test = ConformanceFile.Load().Single(c => c.Name == name);
        if (test.Action != "all")
        {
            return; // decode-only tests give no messages to encode
        }

        var registry = new FastTemplateLoader().AddElement(test.Templates, name).Build();
        var encoder = new FastEncoder(registry);
        var message = new FastMessage();
        var output = new byte[test.Bytes.Length + 64];
        int outPos = 0;
        foreach (var text in test.Messages)
        {
            MessageText.Parse(text, registry, message);
            var w = encoder.Encode(message, output.AsSpan(outPos));
            Assert.True(w.Ok, $"encode: {w.Error} at {outPos + w.Offset} for {text}");
            outPos += w.Length;
        }

        Assert.Equal(Hex(test.Bytes), Hex(output.AsSpan(0, outPos)));
    }

    internal static List<string> DecodeAll(FastTemplateRegistry registry, byte[] bytes)
    {
        var decoder = new FastDecoder(registry);
        var message = new FastMessage();
        var decoded = new List<string>();
        int pos = 0;
        while (pos < bytes.Length)
        {
            var r = decoder.Decode(bytes.AsSpan(pos), message);
            Assert.True(r.Ok, $"message {decoded.Count}: {r.Error} at byte {pos + r.Offset}");
            decoded.Add(MessageText.Normalize(MessageText.Format(message)));
            pos += r.Length;
        }

        return decoded;
    }

    internal static string Hex(ReadOnlySpan<byte> bytes) => Convert.ToHexString(bytes);
}
