using RapidFix.Engine.Fields;
using RapidFix.Fast.Tests.Support;

namespace RapidFix.Fast.Tests;

/// <summary>Sequences, groups and dynamic template references, including hostile lengths.</summary>
public sealed class StructureTests
{
    private const string Book = """
        <template name="Book" id="1">
          <uInt32 name="seq" id="34"/>
          <sequence name="Entries" presence="optional">
            <length name="NoMDEntries" id="268"><copy/></length>
            <uInt32 name="px" id="270"><delta/></uInt32>
            <uInt32 name="lvl" id="1023"><increment value="1"/></uInt32>
          </sequence>
          <group name="Extra" presence="optional">
            <string name="note" id="58"><copy/></string>
          </group>
        </template>
        """;

    [Fact]
    public void Sequences_and_optional_groups_decode_into_scopes_and_encode_back()
    {
        var codec = new TestCodec(Book);
        // pmap: tid, length bit (copy), group bit; seq 5; length 2 (nullable 3); entry pmaps with lvl bit clear
        const string hex = "F0 81 85 83 80 8A 80 81 C0 6F EB";
        var m = codec.DecodeOk(hex);
        Assert.Equal(2, m.GetGroupCount(FieldScope.Message, 268));
        Assert.True(m.TryGetGroupEntry(FieldScope.Message, 268, 1, out var second));
        Assert.True(m.TryGetInt(second, 270, out int px));
        Assert.Equal(11, px);
        Assert.True(m.TryGetInt(second, 1023, out int lvl));
        Assert.Equal(2, lvl);
        Assert.True(m.TryGetText(FieldScope.Message, 58, out var note));
        Assert.Equal("ok"u8.ToArray(), note.ToArray());
        Assert.Equal(hex.Replace(" ", "", StringComparison.Ordinal), codec.Encode());
    }

    [Fact]
    public void An_absent_optional_sequence_and_group_leave_no_fields()
    {
        var codec = new TestCodec(Book);
        var m = codec.DecodeOk("E0 81 85 80");     // length bit set with NULL; group bit clear
        Assert.Equal(0, m.GetGroupCount(FieldScope.Message, 268));
        Assert.False(m.Contains(FieldScope.Message, 268));
        Assert.False(m.Contains(FieldScope.Message, 58));

        // A fresh encoder knows the undefined length implies absence: it clears the bit instead of sending NULL.
        Assert.Equal("C08185", codec.Encode());
        var again = new TestCodec(Book);
        again.DecodeOk("C0 81 85");
        Assert.False(again.Message.Contains(FieldScope.Message, 268));
    }

    [Fact]
    public void A_huge_sequence_length_fails_at_once_with_bounded_work()
    {
        var codec = new TestCodec(Book);
        var r = codec.Decode("E0 81 85 0F 7F 7F 7F FF"); // length 2^32 - 2
        Assert.Equal(FastErrorCode.LimitExceeded, r.Error);
        Assert.Equal(3, r.Offset);

        r = codec.Decode("E0 81 85 8B 80"); // 10 entries announced, one byte left
        Assert.Equal(FastErrorCode.UnexpectedEnd, r.Error);
        Assert.Equal(3, r.Offset);
    }

    [Fact]
    public void A_sequence_longer_than_the_message_slot_holds_is_a_capacity_error()
    {
        var codec = new TestCodec(Book);
        var small = new Messages.FastMessage(new Messages.FastMessageCapacity { Values = 8, Scopes = 2, ArenaBytes = 16 });
        var r = codec.Decoder.Decode(TestCodec.Bytes("E0 81 85 84 80 8A 80 81 80 81"), small); // 3 entries, 2 slots each
        Assert.Equal(FastErrorCode.CapacityExceeded, r.Error);
    }

    [Fact]
    public void Dynamic_template_references_decode_the_named_template_in_a_nested_scope()
    {
        var codec = new TestCodec("""
            <template name="Envelope" id="1"><uInt32 name="seq" id="34"/><templateRef/></template>
            <template name="Trade" id="2"><decimal name="px" id="31"/><uInt32 name="qty" id="32"><copy/></uInt32></template>
            """);
        // Envelope: pmap C0, tid 1, seq 9; nested segment: pmap E0 (tid, qty), tid 2, px 15e-1, qty 100
        const string hex = "C0 81 89 E0 82 FF 8F E4";
        var m = codec.DecodeOk(hex);
        Assert.True(m.TryGetDecimal(FieldScope.Message, 31, out var px)); // found through the reference
        Assert.Equal(1.5m, px.ToDecimal());
        Assert.True(m.TryGetInt(FieldScope.Message, 32, out int qty));
        Assert.Equal(100, qty);
        Assert.Equal(hex.Replace(" ", "", StringComparison.Ordinal), codec.Encode());
    }

    [Fact]
    public void Self_referencing_dynamic_templates_are_bounded_by_the_nesting_limit()
    {
        var codec = new TestCodec("""<template name="Loop" id="1"><templateRef/></template>""");
        var bytes = new byte[2000];
        for (int i = 0; i < bytes.Length; i += 2)
        {
            bytes[i] = 0xC0;
            bytes[i + 1] = 0x81;
        }

        var r = codec.Decoder.Decode(bytes, codec.Message);
        Assert.Equal(FastErrorCode.LimitExceeded, r.Error);
    }

    [Fact]
    public void Reset_templates_reset_every_dictionary()
    {
        var codec = new TestCodec("""
            <template name="Data" id="1"><uInt32 name="x" id="1"><copy/></uInt32></template>
            <template name="Reset" id="120" reset="yes"/>
            """);
        codec.DecodeOk("E0 81 85");
        codec.DecodeOk("80");             // x copied: 5
        codec.DecodeOk("C0 F8");          // reset
        var r = codec.Decode("80");       // the template id is undefined again
        Assert.Equal(FastErrorCode.D5, r.Error);
        Assert.Equal(FastErrorCode.D5, codec.Decode("C0 81").Error); // x is undefined again
    }
}
