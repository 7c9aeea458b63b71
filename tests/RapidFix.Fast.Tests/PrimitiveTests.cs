using RapidFix.Engine.Fields;
using RapidFix.Fast.Tests.Support;

namespace RapidFix.Fast.Tests;

/// <summary>Stop-bit integers, nullable values, strings, byte vectors and presence maps on the wire.</summary>
public sealed class PrimitiveTests
{
    private const string Scalars = """
        <template name="T" id="1">
          <uInt32 name="u32" id="1" presence="optional"/>
          <int32 name="i32" id="2"/>
          <uInt64 name="u64" id="3" presence="optional"/>
          <int64 name="i64" id="4" presence="optional"/>
        </template>
        """;

    [Theory]
    // pmap C0, template 1, then u32 (nullable), i32, u64 (nullable), i64 (nullable)
    [InlineData("C0 81 80 80 80 80", "T -> {1, , 0, , , }")]
    [InlineData("C0 81 81 FF 81 FF", "T -> {1, 0, -1, 0, -1, }")] // negative nullable values are not shifted
    // i32 = 64 needs a sign-extension byte (0x40 alone would be -64); i64 -65 likewise (7F BF)
    [InlineData("C0 81 82 00 C0 82 7F BF", "T -> {1, 1, 64, 1, -65, }")]
    [InlineData("C0 81 82 C0 82 FF", "T -> {1, 1, -64, 1, -1, }")]
    // the largest values: uInt32 max + 1 in 5 bytes, int32 min, nullable uInt64 max is 2^64 (the carry case), nullable int64 max is 2^63
    [InlineData("C0 81 10 00 00 00 80 78 00 00 00 80 02 00 00 00 00 00 00 00 00 80 01 00 00 00 00 00 00 00 00 80", "T -> {1, 4294967295, -2147483648, 18446744073709551615, 9223372036854775807, }")]
    [InlineData("C0 81 80 07 7F 7F 7F FF 80 7F 00 00 00 00 00 00 00 00 80", "T -> {1, , 2147483647, , -9223372036854775808, }")]
    public void Integers_decode_and_encode_back(string hex, string expected)
    {
        var codec = new TestCodec(Scalars);
        codec.DecodeOk(hex);
        Assert.Equal(expected, codec.Text());
        Assert.Equal(hex.Replace(" ", "", StringComparison.Ordinal), codec.Encode());
    }

    [Theory]
    [InlineData("C0 81 80 00 00 00 00 80 80 80 80", FastErrorCode.R6, 3)] // i32 0 in five bytes
    [InlineData("C0 81 00 81 80 80 80", FastErrorCode.R6, 2)] // u32 0 with a leading zero byte
    [InlineData("C0 81 80 7F FF 80 80", FastErrorCode.R6, 3)] // -1 with a redundant sign byte
    [InlineData("C0 81 10 00 00 00 81 80 80 80", FastErrorCode.D2, 2)] // nullable u32: 2^32 + 1 - 1 does not fit
    [InlineData("C0 81 80 08 00 00 00 80 80 80 80", FastErrorCode.D2, 3)] // i32 2^31
    [InlineData("C0 81 80 80 03 00 00 00 00 00 00 00 00 80 80", FastErrorCode.D2, 4)] // u64 past 2^64
    [InlineData("C0 81 80 80 80 01 01 01 01 01 01 01 01 01 01 01 01 01 01 81", FastErrorCode.D2, 5)] // i64 of 15 bytes: bounded
    [InlineData("C0 81 80 80", FastErrorCode.UnexpectedEnd, 4)]
    [InlineData("C0 81 80 00 00", FastErrorCode.UnexpectedEnd, 3)]
    public void Bad_integers_fail_with_their_code_and_offset(string hex, FastErrorCode code, int offset)
    {
        var codec = new TestCodec(Scalars);
        var r = codec.Decode(hex);
        Assert.Equal(code, r.Error);
        Assert.Equal(offset, r.Offset);
    }

    private const string Strings = """
        <template name="S" id="2">
          <string name="m" id="1"/>
          <string name="o" id="2" presence="optional"/>
          <byteVector name="b" id="3" presence="optional"/>
          <string name="u" id="4" charset="unicode"/>
        </template>
        """;

    [Theory]
    // mandatory "" is 80; optional NULL is 80; byte vector NULL is 80; unicode "" is length 0
    [InlineData("C0 82 80 80 80 80", "", null, null, "")]
    // optional "" is 00 80; mandatory "\0" is 00 80; optional "\0" is 00 00 80
    [InlineData("C0 82 00 80 00 80 81 80", "\0", "", "", "")]
    [InlineData("C0 82 61 E2 00 00 80 83 01 02 83 C3 A9 41", "ab", "\0", "0102", "\u00e9A")]
    public void Strings_and_byte_vectors_follow_the_null_and_empty_rules(string hex, string mandatory, string? optional, string? bytes, string unicode)
    {
        var codec = new TestCodec(Strings);
        var m = codec.DecodeOk(hex);
        Assert.True(m.TryGetBytes(FieldScope.Message, 1, out var v1));
        Assert.Equal(mandatory, System.Text.Encoding.ASCII.GetString(v1));
        Assert.Equal(optional is not null, m.TryGetBytes(FieldScope.Message, 2, out var v2));
        if (optional is not null)
        {
            Assert.Equal(optional, System.Text.Encoding.ASCII.GetString(v2));
        }

        Assert.Equal(bytes is not null, m.TryGetBytes(FieldScope.Message, 3, out var v3));
        if (bytes is not null)
        {
            Assert.Equal(bytes, Convert.ToHexString(v3));
        }

        Assert.True(m.TryGetBytes(FieldScope.Message, 4, out var v4));
        Assert.Equal(unicode, System.Text.Encoding.UTF8.GetString(v4));
        Assert.Equal(hex.Replace(" ", "", StringComparison.Ordinal), codec.Encode());
    }

    [Theory]
    [InlineData("C0 82 00 41 C2 80 80 80", FastErrorCode.R9, 2)] // "\0AB"-like overlong string
    [InlineData("C0 82 80 80 80 85 41", FastErrorCode.UnexpectedEnd, 5)] // unicode length 5 with 1 byte left
    [InlineData("C0 82 61 62", FastErrorCode.UnexpectedEnd, 2)] // string without a stop bit
    public void Bad_strings_fail(string hex, FastErrorCode code, int offset)
    {
        var codec = new TestCodec(Strings);
        var r = codec.Decode(hex);
        Assert.Equal(code, r.Error);
        Assert.Equal(offset, r.Offset);
    }

    private const string ManyCopies = """
        <template name="P" id="3">
          <uInt32 name="a" id="1"><copy value="1"/></uInt32>
          <uInt32 name="b" id="2"><copy value="2"/></uInt32>
          <uInt32 name="c" id="3"><copy value="3"/></uInt32>
          <uInt32 name="d" id="4"><copy value="4"/></uInt32>
          <uInt32 name="e" id="5"><copy value="5"/></uInt32>
          <uInt32 name="f" id="6"><copy value="6"/></uInt32>
          <uInt32 name="g" id="7"><copy value="7"/></uInt32>
          <uInt32 name="h" id="8"><copy value="8"/></uInt32>
        </template>
        """;

    [Fact]
    public void Presence_map_bits_past_the_last_byte_are_zero_and_the_encoder_drops_trailing_zero_bytes()
    {
        var codec = new TestCodec(ManyCopies);

        // 9 bits (template id + 8 fields): one byte says "template id present", the 8 copies take their initial values.
        codec.DecodeOk("C0 83");
        Assert.Equal("P -> {3, 1, 2, 3, 4, 5, 6, 7, 8, }", codec.Text());

        // The second byte carries the last two bits (g and h present).
        codec.DecodeOk("00 E0 89 8A");
        Assert.Equal("P -> {3, 1, 2, 3, 4, 5, 6, 9, 10, }", codec.Text());

        codec.Encoder.Reset();
        codec.Message.Begin(codec.Templates.Find("P")!);
        for (int tag = 1; tag <= 8; tag++)
        {
            codec.Message.SetInteger(FieldScope.Message, tag, tag);
        }

        Assert.Equal("C083", codec.Encode());
    }

    [Theory]
    [InlineData(ManyCopies, "40 80 83", FastErrorCode.R7, 0)] // a two-byte pmap whose last byte is all zero (overlong)
    [InlineData(ManyCopies, "40 90 83", FastErrorCode.R8, 0)] // bit 10 set: the template needs 9
    [InlineData(ManyCopies, "40 00 C0 83", FastErrorCode.R8, 0)] // three bytes where two suffice
    [InlineData(Scalars, "E0 81 80 80 80 80", FastErrorCode.R8, 0)] // the template needs only the template id bit
    public void Bad_presence_maps_fail(string templates, string hex, FastErrorCode code, int offset)
    {
        var codec = new TestCodec(templates);
        var r = codec.Decode(hex);
        Assert.Equal(code, r.Error);
        Assert.Equal(offset, r.Offset);
    }

    [Fact]
    public void An_endless_presence_map_fails_after_a_bounded_scan()
    {
        var codec = new TestCodec(ManyCopies);
        var bytes = new byte[100_000]; // all zero bits, no stop bit
        var r = codec.Decoder.Decode(bytes, codec.Message);
        Assert.Equal(FastErrorCode.R7, r.Error);
        Assert.Equal(0, r.Offset);
    }

    [Fact]
    public void Reportable_errors_can_be_accepted_when_configured()
    {
        var codec = new TestCodec(Scalars, new FastCodecLimits { RejectReportableErrors = false });
        codec.DecodeOk("C0 81 80 00 00 00 00 80 80 80");
        Assert.True(codec.Message.TryGetInt(FieldScope.Message, 2, out int v));
        Assert.Equal(0, v);
    }
}
