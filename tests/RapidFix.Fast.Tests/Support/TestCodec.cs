using RapidFix.Fast.Codec;
using RapidFix.Fast.Messages;
using RapidFix.Fast.Templates;

namespace RapidFix.Fast.Tests.Support;

/// <summary>Small helpers to write codec tests against inline templates and hex bytes.</summary>
internal sealed class TestCodec
{
    public TestCodec(string templatesXml, FastCodecLimits? limits = null)
    {
        Templates = new FastTemplateLoader().AddXml(Wrap(templatesXml), "test").Build(limits);
        Decoder = new FastDecoder(Templates);
        Encoder = new FastEncoder(Templates);
    }

    public FastTemplateRegistry Templates { get; }

    public FastDecoder Decoder { get; }

    public FastEncoder Encoder { get; }

    public FastMessage Message { get; } = new();

    public static string Wrap(string body) =>
        body.TrimStart().StartsWith("<templates", StringComparison.Ordinal)
            ? body
            : $"<templates xmlns=\"http://www.fixprotocol.org/ns/fast/td/1.1\">{body}</templates>";

    public static byte[] Bytes(string hex) => Convert.FromHexString(hex.Replace(" ", "", StringComparison.Ordinal));

    /// <summary>Decodes one message from hex; returns the result (the message is in <see cref="Message"/>).</summary>
    public FastResult Decode(string hex) => Decoder.Decode(Bytes(hex), Message);

    /// <summary>Decodes one message from hex and asserts success and full consumption.</summary>
    public FastMessage DecodeOk(string hex)
    {
        var bytes = Bytes(hex);
        var r = Decoder.Decode(bytes, Message);
        Assert.True(r.Ok, $"{r.Error} at {r.Offset}");
        Assert.Equal(bytes.Length, r.Length);
        return Message;
    }

    /// <summary>Encodes <see cref="Message"/> and returns the hex.</summary>
    public string Encode() => Encode(Message);

    public string Encode(FastMessage message)
    {
        var buffer = new byte[4096];
        var r = Encoder.Encode(message, buffer);
        Assert.True(r.Ok, $"encode: {r.Error} at {r.Offset}");
        return Convert.ToHexString(buffer, 0, r.Length);
    }

    public string Text() => MessageText.Normalize(MessageText.Format(Message));
}
