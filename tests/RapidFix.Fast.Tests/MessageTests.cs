using System.Text;
using RapidFix.Engine.Fields;
using RapidFix.Fast.Messages;
using RapidFix.Fast.Tests.Support;

namespace RapidFix.Fast.Tests;

/// <summary>The decoded message as a FIX view (IFieldAccessor), and built messages as encoder input.</summary>
public sealed class MessageTests
{
    private const string Order = """
        <template name="NewOrder" id="7">
          <string name="MsgType" id="35"><constant value="D"/></string>
          <string name="ClOrdID" id="11"/>
          <uInt64 name="Qty" id="38"/>
          <decimal name="Price" id="44" presence="optional"/>
          <int32 name="Offset" id="9001"/>
          <string name="SendingTime" id="52"/>
          <sequence name="Parties">
            <length name="NoPartyIDs" id="453"/>
            <string name="PartyID" id="448"/>
            <uInt32 name="PartyRole" id="452"><copy/></uInt32>
          </sequence>
        </template>
        """;

    [Fact]
    public void A_built_message_encodes_decodes_and_reads_like_a_fix_message()
    {
        var codec = new TestCodec(Order);
        var m = codec.Message;
        m.Begin(codec.Templates[7]);
        m.SetBytes(FieldScope.Message, 35, "D"u8);
        m.SetBytes(FieldScope.Message, 11, "ORD-1"u8);
        m.SetInteger(FieldScope.Message, 38, 500);
        m.SetDecimal(FieldScope.Message, 44, new FixDecimal(10125, -2));
        m.SetInteger(FieldScope.Message, 9001, -3);
        m.SetBytes(FieldScope.Message, 52, "20261121-10:00:00.000"u8);
        var first = m.SetSequence(FieldScope.Message, 453, 2);
        m.SetBytes(first, 448, "ABC"u8);
        m.SetInteger(first, 452, 1);
        var second = new FieldScope(first.Id + 1);
        m.SetBytes(second, 448, "XYZ"u8);
        m.SetInteger(second, 452, 1);
        string hex = codec.Encode();

        var reader = new TestCodec(Order);
        var decoded = reader.DecodeOk(hex);
        Check(decoded);
    }

    private static void Check<T>(T m)
        where T : IFieldAccessor
    {
        Assert.Equal("D", Encoding.ASCII.GetString(m.MsgType));
        Assert.True(m.TryGetText(FieldScope.Message, 11, out var clOrdId));
        Assert.Equal("ORD-1", Encoding.ASCII.GetString(clOrdId));
        Assert.True(m.TryGetInt(FieldScope.Message, 38, out int qty));
        Assert.Equal(500, qty);
        Assert.True(m.TryGetText(FieldScope.Message, 38, out var qtyText));
        Assert.Equal("500", Encoding.ASCII.GetString(qtyText));
        Assert.True(m.TryGetDecimal(FieldScope.Message, 44, out var px));
        Assert.Equal(101.25m, px.ToDecimal());
        Assert.True(m.TryGetText(FieldScope.Message, 44, out var pxText));
        Assert.Equal("101.25", Encoding.ASCII.GetString(pxText));
        Assert.False(m.TryGetInt(FieldScope.Message, 44, out _)); // 101.25 is not an integer
        Assert.True(m.TryGetLong(FieldScope.Message, 9001, out long offset));
        Assert.Equal(-3, offset);
        Assert.True(m.TryGetDecimal(FieldScope.Message, 38, out var qtyDecimal)); // an integer reads as a decimal
        Assert.Equal(500m, qtyDecimal.ToDecimal());
        Assert.False(m.Contains(FieldScope.Message, 58));
        Assert.False(m.TryGetText(FieldScope.Message, 58, out _));
        Assert.Equal(2, m.GetGroupCount(FieldScope.Message, 453));
        Assert.True(m.TryGetGroupEntry(FieldScope.Message, 453, 1, out var party));
        Assert.True(m.TryGetText(party, 448, out var partyId));
        Assert.Equal("XYZ", Encoding.ASCII.GetString(partyId));
        Assert.True(m.TryGetInt(party, 452, out int role));
        Assert.Equal(1, role);
        Assert.False(m.Contains(party, 11)); // top-level fields are not in an entry's scope
        Assert.False(m.TryGetGroupEntry(FieldScope.Message, 453, 2, out _));
        Assert.Equal(0, m.GetGroupCount(party, 453));
    }

    [Fact]
    public void Encoder_errors_are_results()
    {
        var codec = new TestCodec(Order);
        var m = codec.Message;
        m.Begin(codec.Templates[7]);
        m.SetBytes(FieldScope.Message, 11, "X"u8);
        var r = codec.Encoder.Encode(m, new byte[256]);
        Assert.Equal(FastErrorCode.InvalidMessage, r.Error); // mandatory Qty missing

        m.Begin(codec.Templates[7]);
        m.SetBytes(FieldScope.Message, 35, "F"u8);
        Assert.Equal(FastErrorCode.D3, codec.Encoder.Encode(m, new byte[256]).Error); // differs from the constant

        m.Begin(codec.Templates[7]);
        m.SetBytes(FieldScope.Message, 11, "ORD-1"u8);
        m.SetInteger(FieldScope.Message, 38, 500);
        m.SetInteger(FieldScope.Message, 9001, 1);
        m.SetBytes(FieldScope.Message, 52, "T"u8);
        m.SetSequence(FieldScope.Message, 453, 0);
        Assert.Equal(FastErrorCode.BufferTooSmall, codec.Encoder.Encode(m, new byte[4]).Error);
        m.SetInteger(FieldScope.Message, 9001, 1L << 40);
        Assert.Equal(FastErrorCode.D2, codec.Encoder.Encode(m, new byte[256]).Error); // int32 out of range
    }

    [Fact]
    public void Strings_larger_than_the_message_arena_are_a_capacity_error()
    {
        var codec = new TestCodec("""<template name="A" id="1"><string name="s" id="1"/></template>""");
        var small = new FastMessage(new FastMessageCapacity { ArenaBytes = 2 });
        var r = codec.Decoder.Decode(TestCodec.Bytes("C0 81 61 62 E3"), small);
        Assert.Equal(FastErrorCode.CapacityExceeded, r.Error);
    }
}
