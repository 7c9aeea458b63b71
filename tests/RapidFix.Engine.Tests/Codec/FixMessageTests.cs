using System.Text;
using RapidFix.Engine.Codec;
using RapidFix.Engine.Dictionary;
using RapidFix.Engine.Fields;
using RapidFix.Tests.Shared;

namespace RapidFix.Engine.Tests.Codec;

public sealed class FixMessageTests
{
    private static readonly DataDictionary Fix44 = StandardDictionaries.Load("FIX44");

    private static FixMessage Parse(string text, DataDictionary? dictionary = null)
    {
        var wire = FixSamples.Wire(text);
        var message = new FixMessage();
        Assert.Equal(FixParseError.None, message.Parse(wire, 0, wire.Length, dictionary));
        return message;
    }

    [Fact]
    public void Splits_every_field_in_one_pass_and_reads_header_fields()
    {
        var m = Parse(FixSamples.NewOrderSingle);
        Assert.Equal("FIX.4.4", Encoding.ASCII.GetString(m.BeginString));
        Assert.Equal("D", Encoding.ASCII.GetString(m.MsgType));
        Assert.Equal(19, m.FieldCount);
        Assert.Equal(Tags.CheckSum, m.GetTag(m.FieldCount - 1));
        Assert.True(m.TryGetInt(Tags.MsgSeqNum, out int seq));
        Assert.Equal(1234, seq);
        Assert.Equal("CLIENT01", Encoding.ASCII.GetString(m.GetValue(Tags.SenderCompID)));
        Assert.False(m.Contains(Tags.Text));
        Assert.True(m.GetValue(Tags.Text).IsEmpty);
    }

    [Fact]
    public void Typed_getters_read_values_without_copying()
    {
        var m = Parse(FixSamples.NewOrderSingle);
        Assert.True(m.TryGetDecimal(Tags.Price, out var price));
        Assert.Equal(41237, price.Mantissa);
        Assert.Equal(-2, price.Exponent);
        Assert.Equal(412.37m, price.ToDecimal());
        Assert.True(m.TryGetLong(Tags.OrderQty, out long qty));
        Assert.Equal(1500, qty);
        Assert.True(m.TryGetChar(Tags.Side, out byte side));
        Assert.Equal((byte)'1', side);
        Assert.True(m.TryGetTimestamp(Tags.SendingTime, out var sent));
        Assert.Equal(new DateTime(2026, 11, 21, 21, 30, 15, 123, DateTimeKind.Utc), sent.ToDateTime());
        Assert.Equal(FixTimePrecision.Milliseconds, sent.Precision);
        Assert.False(m.TryGetInt(Tags.SenderCompID, out _)); // not a number
        Assert.False(m.TryGetBool(Tags.Side, out _));
    }

    [Fact]
    public void Groups_are_resolved_with_a_dictionary_entry_by_entry()
    {
        var m = Parse(FixSamples.MarketDataSnapshot, Fix44);
        var entries = m.GetGroup(268);
        Assert.True(entries.Exists);
        Assert.Equal(10, entries.Count);
        Assert.Equal(10, entries.DeclaredCount);
        for (int i = 0; i < entries.Count; i++)
        {
            var e = entries[i];
            Assert.True(e.TryGetChar(269, out byte type));
            Assert.Equal(i % 2 == 0 ? (byte)'0' : (byte)'1', type);
            Assert.True(e.TryGetLong(271, out long size));
            Assert.Equal(100 * (i + 1), size);
            Assert.True(e.TryGetInt(290, out int level));
            Assert.Equal((i / 2) + 1, level);
        }

        // Group fields are not top-level fields.
        Assert.False(m.Contains(270));
        Assert.Equal("MSFT", Encoding.ASCII.GetString(m.GetValue(Tags.Symbol)));
        Assert.False(m.HasRepeatedTag);
    }

    [Fact]
    public void A_view_without_the_value_screen_builds_the_same_groups_and_is_never_clean()
    {
        var wire = FixSamples.Wire(FixSamples.MarketDataSnapshot);
        var screened = new FixMessage();
        var unscreened = new FixMessage(new FixMessageOptions { ScreenValues = false });
        Assert.Equal(FixParseError.None, screened.Parse(wire, 0, wire.Length, Fix44));
        Assert.Equal(FixParseError.None, unscreened.Parse(wire, 0, wire.Length, Fix44));
        Assert.True(screened.IsClean);
        Assert.False(unscreened.IsClean); // the screen did not run: the validator must walk the fields itself

        Assert.Equal(screened.FieldCount, unscreened.FieldCount);
        var a = screened.GetGroup(268);
        var b = unscreened.GetGroup(268);
        Assert.Equal(a.Count, b.Count);
        for (int i = 0; i < a.Count; i++)
        {
            Assert.True(b[i].TryGetLong(271, out long size));
            Assert.True(a[i].TryGetLong(271, out long expected));
            Assert.Equal(expected, size);
        }

        Assert.Equal("MSFT", Encoding.ASCII.GetString(unscreened.GetValue(Tags.Symbol)));
        Assert.False(unscreened.Contains(270));
    }

    [Fact]
    public void A_view_without_the_value_screen_still_has_a_bad_value_rejected_by_the_validator()
    {
        // 54 (Side) has no value 'Z': the screened view flags it, and the unscreened view leaves it to the validator's
        // own field checks, which reject it the same way (the screen is a shortcut, never the only check).
        var wire = FixSamples.Wire(FixSamples.NewOrderSingle.Replace("|54=1|", "|54=Z|", StringComparison.Ordinal));
        var validator = new RapidFix.Engine.Validation.MessageValidator(Fix44);
        var screened = new FixMessage();
        var unscreened = new FixMessage(new FixMessageOptions { ScreenValues = false });
        Assert.Equal(FixParseError.None, screened.Parse(wire, 0, wire.Length, Fix44));
        Assert.Equal(FixParseError.None, unscreened.Parse(wire, 0, wire.Length, Fix44));
        var expected = validator.Validate(screened);
        var actual = validator.Validate(unscreened);
        Assert.False(expected.IsValid);
        Assert.False(actual.IsValid);
        Assert.Equal(expected.Reason, actual.Reason);
        Assert.Equal(expected.RefTagId, actual.RefTagId);
    }

    [Fact]
    public void Nested_groups_are_scoped_to_their_entry()
    {
        // NewOrderList (E) -> NoOrders (73) -> NoPartyIDs (453) nested in each order.
        var m = Parse(
            "8=FIX.4.4|35=E|34=1|49=A|52=20261121-21:30:15.123|56=B|66=LIST1|394=1|68=2|73=2|" +
            "11=O1|67=1|453=2|448=P1|447=D|452=1|448=P2|447=D|452=3|55=MSFT|54=1|38=10|40=1|" +
            "11=O2|67=2|453=1|448=P3|447=D|452=1|55=IBM|54=2|38=20|40=1|", Fix44);
        var orders = m.GetGroup(73);
        Assert.Equal(2, orders.Count);
        var first = orders[0];
        Assert.Equal("O1", Encoding.ASCII.GetString(first.GetValue(11)));
        var parties = first.GetGroup(453);
        Assert.Equal(2, parties.Count);
        Assert.Equal("P2", Encoding.ASCII.GetString(parties[1].GetValue(448)));
        Assert.Equal("MSFT", Encoding.ASCII.GetString(first.GetValue(55)));
        var second = orders[1];
        Assert.Equal("IBM", Encoding.ASCII.GetString(second.GetValue(55)));
        Assert.Equal(1, second.GetGroup(453).Count);
        Assert.Equal("P3", Encoding.ASCII.GetString(second.GetGroup(453)[0].GetValue(448)));
        Assert.False(second.Contains(448)); // belongs to the nested entry, not the order entry

        // The same through the format-neutral accessor.
        IFieldAccessor accessor = m;
        Assert.Equal(2, accessor.GetGroupCount(FieldScope.Message, 73));
        Assert.True(accessor.TryGetGroupEntry(FieldScope.Message, 73, 1, out var order2));
        Assert.True(accessor.TryGetGroupEntry(order2, 453, 0, out var party));
        Assert.True(accessor.TryGetText(party, 448, out var partyId));
        Assert.Equal("P3", Encoding.ASCII.GetString(partyId));
    }

    [Fact]
    public void Data_fields_may_contain_soh_and_equals()
    {
        var raw = "a\u0001b=c\u0001";
        var m = Parse($"8=FIX.4.4|35=B|34=1|49=A|52=20261121-21:30:15.123|56=B|148=news|95={raw.Length}|96={raw.Replace('\u0001', '|')}|");
        Assert.Equal(raw, Encoding.ASCII.GetString(m.GetValue(96)));
        var withDictionary = Parse($"8=FIX.4.4|35=B|34=1|49=A|52=20261121-21:30:15.123|56=B|148=news|95={raw.Length}|96={raw.Replace('\u0001', '|')}|", Fix44);
        Assert.Equal(raw, Encoding.ASCII.GetString(withDictionary.GetValue(96)));
    }

    [Theory]
    [InlineData("8=FIX.4.4|9=5|35=0|4x9=TW|10=000|", FixParseError.InvalidTag)]
    [InlineData("8=FIX.4.4|9=5|35=0|=TW|10=000|", FixParseError.InvalidTag)]
    [InlineData("8=FIX.4.4|9=5|35=0|10=000|49", FixParseError.MissingEquals)]
    [InlineData("8=FIX.4.4|9=5|35=0|49=TW", FixParseError.MissingDelimiter)]
    [InlineData("8=FIX.4.4|9=5|34=1|35=0|10=000|", FixParseError.FirstThreeFieldsOutOfOrder)]
    [InlineData("8=FIX.4.4|9=5|35=0|49=TW|", FixParseError.MissingCheckSum)]
    [InlineData("8=FIX.4.4|9=5|35=0|95=50|96=short|10=000|", FixParseError.DataLengthMismatch)]
    [InlineData("8=FIX.4.4|9=5|35=0|2147483648=x|10=000|", FixParseError.TagOutOfRange)]
    [InlineData("8=FIX.4.4|9=5|35=0|12345678901234567890=x|10=000|", FixParseError.TagOutOfRange)]
    public void Malformed_bodies_fail_with_a_specific_error(string text, FixParseError expected)
    {
        var wire = Encoding.ASCII.GetBytes(text.Replace('|', '\u0001'));
        var m = new FixMessage();
        Assert.Equal(expected, m.Parse(wire, 0, wire.Length));
        Assert.False(m.IsParsed);
    }

    [Fact]
    public void Negative_and_zero_tags_are_kept_so_a_reject_can_quote_them()
    {
        var m = Parse("8=FIX.4.4|35=0|34=4|49=TW|52=20261121-21:30:15|56=ISLD|-1=HI|0=HO|");
        Assert.Equal("HI", Encoding.ASCII.GetString(m.GetValue(-1)));
        Assert.Equal("HO", Encoding.ASCII.GetString(m.GetValue(0)));
    }

    [Fact]
    public void Out_of_order_and_repeated_fields_are_recorded_not_fatal()
    {
        var m = Parse("8=FIX.4.4|35=D|11=id|21=3|40=1|54=1|55=MSFT|60=20261121-21:30:15|34=2|49=TW|52=20261121-21:30:15|56=ISLD|40=2|", Fix44);
        Assert.True(m.HasFieldOutOfOrder);
        Assert.Equal(34, m.FieldOutOfOrderTag);
        Assert.True(m.HasRepeatedTag);
        Assert.Equal(40, m.RepeatedTag);
        Assert.Equal("1", Encoding.ASCII.GetString(m.GetValue(40))); // first occurrence wins
    }

    [Fact]
    public void Table_overflow_is_an_error_not_growth()
    {
        var sb = new StringBuilder("8=FIX.4.4|35=0|34=1|49=A|52=20261121-21:30:15|56=B|");
        for (int i = 0; i < 40; i++)
        {
            sb.Append("58=x|");
        }

        var wire = FixSamples.Wire(sb.ToString());
        var m = new FixMessage(new FixMessageOptions { MaxFields = 16 });
        Assert.Equal(FixParseError.TooManyFields, m.Parse(wire, 0, wire.Length));
        var small = new FixMessage(new FixMessageOptions { MaxMessageSize = 64 });
        Assert.Equal(FixParseError.MessageTooLarge, small.ParseCopy(wire));
    }

    [Fact]
    public void Tags_beyond_the_direct_index_are_found_by_scan()
    {
        var m = Parse("8=FIX.4.4|35=0|34=1|49=A|52=20261121-21:30:15|56=B|9001=custom|20005=more|");
        Assert.Equal("custom", Encoding.ASCII.GetString(m.GetValue(9001)));
        Assert.Equal("more", Encoding.ASCII.GetString(m.GetValue(20005)));
        var dup = Parse("8=FIX.4.4|35=0|34=1|49=A|52=20261121-21:30:15|56=B|9001=a|9001=b|");
        Assert.True(dup.HasRepeatedTag);
        Assert.Equal(9001, dup.RepeatedTag);
    }

    [Fact]
    public void Parse_copy_owns_its_bytes_and_a_view_is_reusable()
    {
        var wire = FixSamples.Wire(FixSamples.ExecutionReport);
        var m = new FixMessage();
        Assert.Equal(FixParseError.None, m.ParseCopy(wire));
        Array.Clear(wire);
        Assert.Equal("EXE-5566778899", Encoding.ASCII.GetString(m.GetValue(Tags.ExecID)));

        var nos = FixSamples.Wire(FixSamples.NewOrderSingle);
        Assert.Equal(FixParseError.None, m.Parse(nos, 0, nos.Length));
        Assert.False(m.Contains(Tags.ExecID)); // nothing left over from the previous message
        Assert.Equal("D", Encoding.ASCII.GetString(m.MsgType));
    }

    [Fact]
    public void Parsing_validating_and_reading_every_field_allocates_nothing()
    {
        var validator = new RapidFix.Engine.Validation.MessageValidator(Fix44);
        var messages = new[]
        {
            FixSamples.Wire(FixSamples.NewOrderSingle),
            FixSamples.Wire(FixSamples.ExecutionReport),
            FixSamples.Wire(FixSamples.MarketDataSnapshot),
        };
        var view = new FixMessage();
        foreach (var wire in messages)
        {
            Assert.Equal(FixParseError.None, view.Parse(wire, 0, wire.Length, Fix44));
            Assert.True(validator.Validate(view).IsValid, validator.Validate(view).ToString());
        }

        var state = (view, validator, messages);
        long bytes = Allocations.Measure(state, static s =>
        {
            foreach (var wire in s.messages)
            {
                s.view.Parse(wire, 0, wire.Length, Fix44);
                if (!s.validator.Validate(s.view).IsValid)
                {
                    throw new InvalidOperationException("invalid");
                }

                ReadAll(s.view);
            }
        }, iterations: 100_000);
        Assert.Equal(0, bytes);
    }

    /// <summary>Reads every top-level field and every group entry field with the getter its type calls for.</summary>
    internal static long ReadAll(FixMessage m)
    {
        long checksum = 0;
        for (int i = 0; i < m.FieldCount; i++)
        {
            int tag = m.GetTag(i);
            var scope = m.GetScopeAt(i);
            var field = Fix44.GetField(tag);
            switch (field?.Format)
            {
                case ValueFormat.Integer:
                    if (((IFieldAccessor)m).Contains(scope, tag) && m.TryGetLong(scope, tag, out long l))
                    {
                        checksum += l;
                    }

                    break;
                case ValueFormat.Decimal:
                    if (m.TryGetDecimal(scope, tag, out var d))
                    {
                        checksum += d.Mantissa;
                    }

                    break;
                case ValueFormat.Char:
                    if (m.TryGetChar(scope, tag, out byte c))
                    {
                        checksum += c;
                    }

                    break;
                case ValueFormat.UtcTimestamp:
                    if (m.TryGetTimestamp(scope, tag, out var ts))
                    {
                        checksum += ts.UnixNanoseconds;
                    }

                    break;
                default:
                    if (m.TryGetText(scope, tag, out var text))
                    {
                        checksum += text.Length;
                    }

                    break;
            }
        }

        var group = m.GetGroup(268);
        for (int i = 0; i < group.Count; i++)
        {
            if (group[i].TryGetDecimal(270, out var px))
            {
                checksum += px.Mantissa;
            }
        }

        return checksum;
    }
}
