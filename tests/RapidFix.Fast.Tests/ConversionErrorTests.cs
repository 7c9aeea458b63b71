using System.Text;
using RapidFix.Engine.Fields;
using RapidFix.Fast.Messages;
using RapidFix.Fast.Tests.Support;

namespace RapidFix.Fast.Tests;

/// <summary>
/// Converting a decoded value to another application type reports FAST's conversion errors: D10 (a string that is
/// not a number), R2 (a value a decimal cannot hold), R3 (unicode beyond ASCII), R4 (an integer too large for the
/// type), R5 (a decimal with a fraction read as an integer). The plain accessors answer false for the same cases.
/// </summary>
public sealed class ConversionErrorTests
{
    private const string Template = """
        <template name="Values" id="3">
          <uInt64 name="Big" id="1"/>
          <int64 name="Wide" id="2"/>
          <decimal name="Price" id="3"/>
          <decimal name="Round" id="4"/>
          <string name="NumberText" id="5"/>
          <string name="Word" id="6"/>
          <string name="HugeNumber" id="7"/>
          <string name="DecimalText" id="8"/>
          <string name="HugeExponent" id="9"/>
          <string name="Name" id="10" charset="unicode"/>
          <string name="Plain" id="11" charset="unicode"/>
          <decimal name="Scaled" id="12"/>
        </template>
        """;

    private static FastMessage Decoded()
    {
        var codec = new TestCodec(Template);
        var m = codec.Message;
        m.Begin(codec.Templates[3]);
        m.SetInteger(FieldScope.Message, 1, unchecked((long)ulong.MaxValue));
        m.SetInteger(FieldScope.Message, 2, 5_000_000_000);
        m.SetDecimal(FieldScope.Message, 3, new FixDecimal(10125, -2));
        m.SetDecimal(FieldScope.Message, 4, new FixDecimal(42000, -3));
        m.SetBytes(FieldScope.Message, 5, "-1234"u8);
        m.SetBytes(FieldScope.Message, 6, "twelve"u8);
        m.SetBytes(FieldScope.Message, 7, "123456789012345678901234"u8);
        m.SetBytes(FieldScope.Message, 8, "12.5x"u8);
        m.SetBytes(FieldScope.Message, 9, "1234567890123456789012345.5"u8);
        m.SetBytes(FieldScope.Message, 10, Encoding.UTF8.GetBytes("Zürich"));
        m.SetBytes(FieldScope.Message, 11, "Zurich"u8);
        m.SetDecimal(FieldScope.Message, 12, new FixDecimal(5, 20));
        string hex = codec.Encode();
        return new TestCodec(Template).DecodeOk(hex);
    }

    [Theory]
    [InlineData(1, FastErrorCode.R4)]  // a uInt64 above Int64.MaxValue
    [InlineData(3, FastErrorCode.R5)]  // 101.25
    [InlineData(6, FastErrorCode.D10)] // "twelve"
    [InlineData(7, FastErrorCode.R4)]  // digits beyond int64
    [InlineData(12, FastErrorCode.R4)] // 5E20
    public void An_integer_that_does_not_convert_names_the_rule(int tag, FastErrorCode expected)
    {
        var m = Decoded();
        Assert.False(m.TryGetLong(FieldScope.Message, tag, out _, out var error));
        Assert.Equal(expected, error);
        Assert.False(m.TryGetLong(FieldScope.Message, tag, out _));
    }

    [Fact]
    public void Integers_that_convert_have_no_error_and_an_int32_out_of_range_is_R4()
    {
        var m = Decoded();
        Assert.True(m.TryGetLong(FieldScope.Message, 4, out long round, out var error)); // 42.000
        Assert.Equal((42L, FastErrorCode.None), (round, error));
        Assert.True(m.TryGetInt(FieldScope.Message, 5, out int text, out error));
        Assert.Equal((-1234, FastErrorCode.None), (text, error));
        Assert.True(m.TryGetLong(FieldScope.Message, 2, out long wide, out error));
        Assert.Equal(5_000_000_000, wide);
        Assert.False(m.TryGetInt(FieldScope.Message, 2, out _, out error));
        Assert.Equal(FastErrorCode.R4, error);
        Assert.False(m.TryGetInt(FieldScope.Message, 3, out _, out error));
        Assert.Equal(FastErrorCode.R5, error);
    }

    [Theory]
    [InlineData(1, FastErrorCode.R2)]  // a uInt64 above Int64.MaxValue: no int64 mantissa holds it
    [InlineData(6, FastErrorCode.D10)] // "twelve"
    [InlineData(8, FastErrorCode.D10)] // "12.5x"
    [InlineData(9, FastErrorCode.R2)]  // a decimal number with a mantissa beyond int64
    public void A_decimal_that_does_not_convert_names_the_rule(int tag, FastErrorCode expected)
    {
        var m = Decoded();
        Assert.False(m.TryGetDecimal(FieldScope.Message, tag, out _, out var error));
        Assert.Equal(expected, error);
        Assert.False(m.TryGetDecimal(FieldScope.Message, tag, out _));
    }

    [Fact]
    public void Unicode_beyond_ascii_is_R3_and_an_absent_field_is_no_error()
    {
        var m = Decoded();
        Assert.False(m.TryGetAscii(FieldScope.Message, 10, out _, out var error));
        Assert.Equal(FastErrorCode.R3, error);
        Assert.True(m.TryGetAscii(FieldScope.Message, 11, out var plain, out error));
        Assert.Equal(("Zurich", FastErrorCode.None), (Encoding.ASCII.GetString(plain), error));
        Assert.True(m.TryGetAscii(FieldScope.Message, 3, out var price, out error)); // numbers render as ASCII
        Assert.Equal("101.25", Encoding.ASCII.GetString(price));
        Assert.True(m.TryGetDecimal(FieldScope.Message, 5, out var fromText, out error));
        Assert.Equal(-1234m, fromText.ToDecimal());

        Assert.False(m.TryGetLong(FieldScope.Message, 99, out _, out error));
        Assert.Equal(FastErrorCode.None, error);
        Assert.False(m.TryGetDecimal(FieldScope.Message, 99, out _, out error));
        Assert.Equal(FastErrorCode.None, error);
    }

    [Fact]
    public void Converting_allocates_nothing()
    {
        var m = Decoded();
        var state = m;
        long bytes = RapidFix.Tests.Shared.Allocations.Measure(state, static s =>
        {
            s.TryGetLong(FieldScope.Message, 3, out _, out _);
            s.TryGetLong(FieldScope.Message, 7, out _, out _);
            s.TryGetDecimal(FieldScope.Message, 9, out _, out _);
            s.TryGetAscii(FieldScope.Message, 10, out _, out _);
            s.TryGetInt(FieldScope.Message, 2, out _, out _);
        }, iterations: 10_000);
        Assert.Equal(0, bytes);
    }
}
