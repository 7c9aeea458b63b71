using RapidFix.Engine.Fields;
using RapidFix.Fast.Codec;
using RapidFix.Fast.Messages;
using RapidFix.Fast.Tests.Support;

namespace RapidFix.Fast.Tests;

/// <summary>
/// The encoder's presence maps, built against an independent construction of the expected bytes: the shortest map
/// (trailing zero bytes dropped, the fields moved up behind it), for maps inside and past the 63 bits the encoder
/// keeps in a register, compiled and interpreted alike.
/// </summary>
public sealed class PresenceMapEncodingTests
{
    [Theory]
    [InlineData(5)]
    [InlineData(20)]
    [InlineData(61)] // with the template identifier's bit, 62 bits: 9 bytes
    [InlineData(62)] // 63 bits: the register exactly
    [InlineData(63)] // 64 bits: one bit in memory
    [InlineData(80)]
    public void The_shortest_presence_map_is_written_wherever_the_last_set_bit_is(int fields)
    {
        // Copy fields with initial value i: a field whose value is i is implied by its previous value (bit clear),
        // any other value is sent (bit set).
        var xml = new System.Text.StringBuilder();
        for (int i = 0; i < fields; i++)
        {
            xml.Append($"<uInt32 name=\"f{i}\" id=\"{i + 1}\"><copy value=\"{i}\"/></uInt32>");
        }

        string templates = $"<template name=\"P\" id=\"3\">{xml}</template>";
        foreach (bool compile in new[] { true, false })
        {
            // The last sent field anywhere from the first to the last: every map length, every gap left behind, and
            // the fields moved up behind the map from 1 byte to over 64.
            for (int last = -1; last < fields; last++)
            {
                var codec = new TestCodec(templates, new FastCodecLimits { CompileTemplates = compile });
                var sent = new bool[fields];
                for (int i = 0; i <= last; i++)
                {
                    sent[i] = i == last || i % 2 == 0;
                }

                var m = codec.Message;
                m.Begin(codec.Templates[3]);
                for (int i = 0; i < fields; i++)
                {
                    m.SetInteger(FieldScope.Message, i + 1, sent[i] ? 1_000 + i : i);
                }

                var output = new byte[1024];
                var r = codec.Encoder.Encode(m, output);
                Assert.True(r.Ok, $"{r.Error} at {r.Offset} (compiled {compile}, last {last})");
                Assert.Equal(
                    Convert.ToHexString(Expected(sent)),
                    Convert.ToHexString(output, 0, r.Length));

                // And it decodes to the same values.
                var d = codec.Decoder.Decode(output.AsSpan(0, r.Length), codec.Message);
                Assert.True(d.Ok, $"{d.Error} at {d.Offset}");
                for (int i = 0; i < fields; i++)
                {
                    Assert.True(codec.Message.TryGetLong(FieldScope.Message, i + 1, out long value));
                    Assert.Equal(sent[i] ? 1_000 + i : i, value);
                }
            }
        }
    }

    /// <summary>The template identifier's bit (set), then one bit per field; the identifier 3; the sent values.</summary>
    private static byte[] Expected(bool[] sent)
    {
        var bits = new List<bool> { true };
        bits.AddRange(sent);
        while (bits.Count > 1 && !bits[^1])
        {
            bits.RemoveAt(bits.Count - 1);
        }

        var bytes = new byte[(bits.Count + 6) / 7];
        for (int i = 0; i < bits.Count; i++)
        {
            if (bits[i])
            {
                bytes[i / 7] |= (byte)(0x40 >> (i % 7));
            }
        }

        bytes[^1] |= 0x80;
        var result = new List<byte>(bytes) { 0x83 };
        for (int i = 0; i < sent.Length; i++)
        {
            if (sent[i])
            {
                int value = 1_000 + i; // two stop-bit bytes: the high seven bits, then the low seven with the stop bit
                result.Add((byte)(value >> 7));
                result.Add((byte)(0x80 | (value & 0x7F)));
            }
        }

        return result.ToArray();
    }
}
