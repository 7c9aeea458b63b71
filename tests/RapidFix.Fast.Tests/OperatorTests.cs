using RapidFix.Engine.Fields;
using RapidFix.Fast.Tests.Support;

namespace RapidFix.Fast.Tests;

/// <summary>Field operators: presence map use, nullability and previous-value states (undefined, empty, assigned).</summary>
public sealed class OperatorTests
{
    [Fact]
    public void Copy_uses_the_initial_value_then_the_previous_one_and_an_absent_optional_makes_it_empty()
    {
        var codec = new TestCodec("""
            <template name="C" id="1">
              <uInt32 name="m" id="1"><copy value="7"/></uInt32>
              <uInt32 name="o" id="2" presence="optional"><copy/></uInt32>
            </template>
            """);
        codec.DecodeOk("C0 81");                // both bits clear: m = initial 7, o undefined without initial: absent (now empty)
        Assert.Equal("C -> {1, 7, , }", codec.Text());
        codec.DecodeOk("B0 85 8A");             // both present: m = 5, o = 9 (nullable: 10 - 1)
        Assert.Equal("C -> {1, 5, 9, }", codec.Text());
        codec.DecodeOk("80");                   // both copied
        Assert.Equal("C -> {1, 5, 9, }", codec.Text());
        codec.DecodeOk("90 80");                // o present as NULL: absent, previous becomes empty
        Assert.Equal("C -> {1, 5, , }", codec.Text());
        codec.DecodeOk("80");                   // o empty: stays absent
        Assert.Equal("C -> {1, 5, , }", codec.Text());
    }

    [Fact]
    public void Copy_of_a_mandatory_field_without_value_is_D5_or_D6()
    {
        var codec = new TestCodec("""
            <template name="C" id="1">
              <uInt32 name="m" id="1"><copy/></uInt32>
              <uInt32 name="o" id="2" presence="optional"><copy key="m"/></uInt32>
            </template>
            """);
        Assert.Equal(FastErrorCode.D5, codec.Decode("C0 81").Error); // undefined, no initial value

        codec.Decoder.Reset();
        codec.DecodeOk("F0 81 83 80");   // m = 3, then o (same key) NULL: the shared previous value becomes empty
        Assert.Equal(FastErrorCode.D6, codec.Decode("80").Error); // m not in stream, previous empty
    }

    [Fact]
    public void Increment_adds_one_to_the_previous_value()
    {
        var codec = new TestCodec("""<template name="I" id="1"><uInt32 name="seq" id="34"><increment value="10"/></uInt32></template>""");
        codec.DecodeOk("C0 81");
        Assert.Equal("I -> {1, 10, }", codec.Text());
        codec.DecodeOk("80");
        Assert.Equal("I -> {1, 11, }", codec.Text());
        codec.DecodeOk("A0 94");
        Assert.Equal("I -> {1, 20, }", codec.Text());
        codec.DecodeOk("80");
        Assert.Equal("I -> {1, 21, }", codec.Text());
    }

    [Fact]
    public void Increment_past_the_type_maximum_is_D2()
    {
        var codec = new TestCodec("""<template name="I" id="1"><uInt32 name="seq" id="34"><increment/></uInt32></template>""");
        codec.DecodeOk("E0 81 0F 7F 7F 7F FF"); // 4294967295
        Assert.Equal(FastErrorCode.D2, codec.Decode("80").Error);
    }

    [Fact]
    public void Delta_integers_add_to_the_previous_value_and_a_null_delta_leaves_it()
    {
        var codec = new TestCodec("""
            <template name="D" id="1">
              <int64 name="px" id="1"><delta value="100"/></int64>
              <int32 name="qty" id="2" presence="optional"><delta/></int32>
            </template>
            """);
        codec.DecodeOk("C0 81 85 86");   // px = 100 + 5; qty = 0 + 5 (nullable 6)
        Assert.Equal("D -> {1, 105, 5, }", codec.Text());
        codec.DecodeOk("80 FD 80");      // px = 105 - 3; qty NULL: absent
        Assert.Equal("D -> {1, 102, , }", codec.Text());
        codec.DecodeOk("80 80 82");      // qty = 5 + 1: the NULL did not change the base
        Assert.Equal("D -> {1, 102, 6, }", codec.Text());
    }

    [Fact]
    public void Delta_strings_append_or_prepend_and_a_subtraction_past_the_base_is_D7()
    {
        var codec = new TestCodec("""<template name="S" id="1"><string name="s" id="1"><delta value="abcdef"/></string></template>""");
        codec.DecodeOk("C0 81 82 78 F9");        // remove 2 from the back, append "xy"
        Assert.Equal("S -> {1, abcdxy, }", codec.Text());
        codec.DecodeOk("80 FD 31 B2");           // -3: remove 2 from the front (excess-1), prepend "12"
        Assert.Equal("S -> {1, 12cdxy, }", codec.Text());
        codec.DecodeOk("80 FF 80");              // -1: remove nothing from the front, prepend ""
        Assert.Equal("S -> {1, 12cdxy, }", codec.Text());
        var r = codec.Decode("80 87 80");        // remove 7 of 6
        Assert.Equal(FastErrorCode.D7, r.Error);
        Assert.Equal(1, r.Offset);
    }

    [Fact]
    public void Tail_replaces_the_end_of_the_previous_value()
    {
        var codec = new TestCodec("""<template name="T" id="1"><string name="s" id="1" presence="optional"><tail value="ABCD"/></string></template>""");
        codec.DecodeOk("C0 81");              // not in stream, undefined with initial: ABCD
        Assert.Equal("T -> {1, ABCD, }", codec.Text());
        codec.DecodeOk("A0 58 DA");           // tail "XZ": ABXZ
        Assert.Equal("T -> {1, ABXZ, }", codec.Text());
        codec.DecodeOk("A0 31 32 33 34 B5");  // a tail longer than the base replaces it
        Assert.Equal("T -> {1, 12345, }", codec.Text());
        codec.DecodeOk("A0 80");              // NULL: absent, previous value empty
        Assert.Equal("T -> {1, , }", codec.Text());
        codec.DecodeOk("A0 E1");              // empty previous: the base is the initial value
        Assert.Equal("T -> {1, ABCa, }", codec.Text());
    }

    [Fact]
    public void Default_and_optional_constant_use_the_bit_without_touching_the_dictionary()
    {
        var codec = new TestCodec("""
            <template name="D" id="1">
              <uInt32 name="d" id="1"><default value="5"/></uInt32>
              <string name="c" id="2" presence="optional"><constant value="K"/></string>
              <uInt32 name="od" id="3" presence="optional"><default/></uInt32>
            </template>
            """);
        codec.DecodeOk("C0 81");                // d default, c absent, od absent
        Assert.Equal("D -> {1, 5, , , }", codec.Text());
        codec.DecodeOk("F8 81 87 84");          // d = 7, c present (K), od = 3
        Assert.Equal("D -> {1, 7, K, 3, }", codec.Text());
        codec.DecodeOk("80");                   // default again: not the previous 7
        Assert.Equal("D -> {1, 5, , , }", codec.Text());
    }

    [Fact]
    public void Decimals_with_one_operator_and_with_separate_exponent_and_mantissa_operators()
    {
        var codec = new TestCodec("""
            <template name="P" id="1">
              <decimal name="px" id="270"><delta/></decimal>
              <decimal name="sz" id="271" presence="optional">
                <exponent><default value="-2"/></exponent>
                <mantissa><delta/></mantissa>
              </decimal>
            </template>
            """);
        codec.DecodeOk("C0 81 FE 08 9F 81");            // px = 1055e-2; sz: exponent default -2, mantissa +1
        Assert.True(codec.Message.TryGetDecimal(FieldScope.Message, 270, out var px));
        Assert.Equal(new FixDecimal(1055, -2), px);
        Assert.True(codec.Message.TryGetDecimal(FieldScope.Message, 271, out var sz));
        Assert.Equal(0.01m, sz.ToDecimal());
        codec.DecodeOk("A0 80 FF 80");                   // px += (0, -1): 10.54; sz exponent NULL: the decimal is absent, no mantissa
        Assert.True(codec.Message.TryGetDecimal(FieldScope.Message, 270, out px));
        Assert.Equal(10.54m, px.ToDecimal());
        Assert.False(codec.Message.Contains(FieldScope.Message, 271));
        Assert.Equal("A080FF80", EncodeBothAgain());
    }

    private static string EncodeBothAgain()
    {
        // Encode both messages again with a fresh encoder: the second must come out as decoded.
        var fresh = new TestCodec("""
            <template name="P" id="1">
              <decimal name="px" id="270"><delta/></decimal>
              <decimal name="sz" id="271" presence="optional">
                <exponent><default value="-2"/></exponent>
                <mantissa><delta/></mantissa>
              </decimal>
            </template>
            """);
        fresh.DecodeOk("C0 81 FE 08 9F 81");
        Assert.Equal("C081FE089F81", fresh.Encode());
        fresh.DecodeOk("A0 80 FF 80");
        return fresh.Encode();
    }

    [Fact]
    public void An_exponent_outside_minus_63_to_63_is_R1()
    {
        var codec = new TestCodec("""<template name="P" id="1"><decimal name="px" id="1"/></template>""");
        Assert.Equal(FastErrorCode.R1, codec.Decode("C0 81 C0 81").Error); // exponent -64
        Assert.Equal(FastErrorCode.R1, codec.Decode("C0 81 00 C0 81").Error); // exponent 64
    }

    [Fact]
    public void A_previous_value_of_another_type_is_D4()
    {
        var codec = new TestCodec("""
            <template name="A" id="1"><uInt32 name="x" id="1"><copy key="shared"/></uInt32></template>
            <template name="B" id="2"><int64 name="y" id="2"><copy key="shared"/></int64></template>
            """);
        codec.DecodeOk("E0 81 85");
        Assert.Equal(FastErrorCode.D4, codec.Decode("C0 82").Error);
    }

    [Fact]
    public void An_unknown_template_id_is_D9_and_a_missing_one_is_D5()
    {
        var codec = new TestCodec("""<template name="A" id="1"><uInt32 name="x" id="1"/></template>""");
        Assert.Equal(FastErrorCode.D5, codec.Decode("80 81").Error);
        var r = codec.Decode("C0 85 81");
        Assert.Equal(FastErrorCode.D9, r.Error);
        Assert.Equal(5u, r.TemplateId);
    }
}
