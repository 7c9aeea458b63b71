using System.Text;
using RapidFix.Engine.Codec;
using RapidFix.Engine.Dictionary;
using RapidFix.Engine.Fields;
using RapidFix.Engine.Validation;
using RapidFix.Tests.Shared;

namespace RapidFix.Engine.Tests.Validation;

/// <summary>
/// Messages from the hostile-counterparty review (issue 9): each gets the Reject QuickFIX gives (or, where a limit of
/// ours is broken, a view whose header can still be read to answer it), never a silent drop.
/// </summary>
public sealed class HostileInputValidationTests
{
    private const string Header44 = "8=FIX.4.4|35=D|34=2|49=TW|52=20261121-21:30:15|56=ISLD|";
    private static readonly DataDictionary Fix40 = StandardDictionaries.Load("FIX40");
    private static readonly DataDictionary Fix44 = StandardDictionaries.Load("FIX44");

    private static ValidationResult Validate(string text, DataDictionary dictionary, ValidationOptions? options = null)
    {
        var wire = FixSamples.Wire(text);
        var m = new FixMessage();
        Assert.Equal(FixParseError.None, m.Parse(wire, 0, wire.Length, dictionary));
        var validator = new MessageValidator(dictionary, options);
        var fast = validator.Validate(m);
        Assert.Equal(fast, validator.ValidateThoroughly(m));
        return fast;
    }

    private static void AssertReject(ValidationResult r, SessionRejectReason reason, int tag)
    {
        Assert.Equal(ValidationOutcome.Reject, r.Outcome);
        Assert.Equal(reason, r.Reason);
        Assert.True(r.HasRefTag);
        Assert.Equal(tag, r.RefTagId);
    }

    [Theory]
    [InlineData("9223372036854775807")]
    [InlineData("-9223372036854775808")]
    [InlineData("79228162514264337593543950335")]
    [InlineData("12345678901234567890.5")]
    public void A_quantity_within_the_range_of_decimal_is_well_formed(string qty)
    {
        var r = Validate(Header44 + $"11=ID|21=1|38={qty}|40=1|54=1|55=INTC|60=20261121-21:30:15|", Fix44);
        Assert.True(r.IsValid, r.ToString());
    }

    [Fact]
    public void A_quantity_beyond_the_range_of_decimal_is_badly_formatted()
    {
        var r = Validate(Header44 + "11=ID|21=1|38=79228162514264337593543950336|40=1|54=1|55=INTC|60=20261121-21:30:15|", Fix44);
        AssertReject(r, SessionRejectReason.IncorrectDataFormatForValue, 38);
    }

    [Fact]
    public void The_typed_getter_reads_long_max_value_as_a_quantity()
    {
        var wire = FixSamples.Wire(Header44 + "11=ID|21=1|38=9223372036854775807|40=1|54=1|55=INTC|60=20261121-21:30:15|");
        var m = new FixMessage();
        Assert.Equal(FixParseError.None, m.Parse(wire, 0, wire.Length, Fix44));
        Assert.True(m.TryGetDecimal(38, out var qty));
        Assert.Equal(long.MaxValue, qty.Mantissa);
    }

    [Theory]
    // FIX 4.0 has no OnBehalfOfLocationID: QuickFIX files it in the header by its fixed list, so the invalid header
    // tag is reported before the body's bad OrdType (QuickFIX's fix40/ReverseRoute).
    [InlineData("115=JCD|116=CS|144=CHI|", 144)]
    [InlineData("128=JCD|129=CS|145=CHI|", 145)]
    public void An_undefined_standard_header_tag_is_reported_before_a_body_enum(string route, int tag)
    {
        var r = Validate($"8=FIX.4.0|35=D|34=6|49=TW|52=20261121-21:30:15|56=ISLD|{route}11=ID|21=1|38=100|40=w|54=1|55=INTC|", Fix40);
        AssertReject(r, SessionRejectReason.InvalidTagNumber, tag);
    }

    [Fact]
    public void Without_the_undefined_header_tag_the_body_enum_is_reported()
    {
        var r = Validate("8=FIX.4.0|35=D|34=6|49=TW|52=20261121-21:30:15|56=ISLD|115=JCD|116=CS|11=ID|21=1|38=100|40=w|54=1|55=INTC|", Fix40);
        AssertReject(r, SessionRejectReason.ValueIsIncorrect, 40);
    }

    [Fact]
    public void Group_fields_out_of_the_dictionary_order_are_rejected_with_the_group_count_tag()
    {
        // NoPartyIDs entries are PartyID(448), PartyIDSource(447), PartyRole(452): 447 after 452 is out of order.
        var r = Validate(Header44 + "11=ID|21=1|38=100|40=1|54=1|55=INTC|60=20261121-21:30:15|453=2|448=A|447=D|452=1|448=B|452=3|447=D|", Fix44);
        AssertReject(r, SessionRejectReason.RepeatingGroupFieldsOutOfOrder, 453);
    }

    [Fact]
    public void A_field_after_a_nested_group_that_belongs_before_it_is_out_of_order()
    {
        // PartyIDSource(447) comes before NoPartySubIDs(802) in a NoPartyIDs entry.
        var r = Validate(Header44 + "11=ID|21=1|38=100|40=1|54=1|55=INTC|60=20261121-21:30:15|453=1|448=A|452=1|802=1|523=X|803=2|447=D|", Fix44);
        AssertReject(r, SessionRejectReason.RepeatingGroupFieldsOutOfOrder, 453);
        Assert.True(Validate(Header44 + "11=ID|21=1|38=100|40=1|54=1|55=INTC|60=20261121-21:30:15|453=1|448=A|447=D|452=1|802=1|523=X|803=2|", Fix44).IsValid);
    }

    [Fact]
    public void Group_fields_in_order_with_optional_ones_left_out_are_valid_and_the_check_can_be_turned_off()
    {
        Assert.True(Validate(Header44 + "11=ID|21=1|38=100|40=1|54=1|55=INTC|60=20261121-21:30:15|453=2|448=A|452=1|448=B|447=D|", Fix44).IsValid);
        var unordered = Header44 + "11=ID|21=1|38=100|40=1|54=1|55=INTC|60=20261121-21:30:15|453=1|448=A|452=1|447=D|";
        Assert.True(Validate(unordered, Fix44, new ValidationOptions { CheckUnorderedGroupFields = false }).IsValid);
    }

    [Fact]
    public void An_soh_inside_a_non_data_value_is_reported_against_that_field()
    {
        var r = Validate(Header44 + "11=ID|21=1|38=100|40=1|54=1|55=INTC|58=hello|world|60=20261121-21:30:15|", Fix44);
        AssertReject(r, SessionRejectReason.NonDataValueIncludesFieldDelimiter, 58);
    }

    [Fact]
    public void Bytes_after_an_soh_that_hold_an_equals_sign_are_still_a_garbled_tag()
    {
        // The QuickFIX acceptance scripts (2d/3c_GarbledMessage) expect these to be ignored as garbled.
        var wire = FixSamples.Wire(Header44 + "11=ID|21=1|38=100|40=1|54=1|55=INTC|58=hello|wor=ld|60=20261121-21:30:15|");
        Assert.Equal(FixParseError.InvalidTag, new FixMessage().Parse(wire, 0, wire.Length, Fix44));
    }

    [Fact]
    public void A_ten_digit_tag_is_a_tag_and_is_reported_as_invalid()
    {
        var r = Validate(Header44 + "11=ID|21=1|38=100|40=1|54=1|55=INTC|60=20261121-21:30:15|1234567890=x|", Fix44);
        AssertReject(r, SessionRejectReason.InvalidTagNumber, 1234567890);
        Assert.True(Validate(Header44 + "11=ID|21=1|38=100|40=1|54=1|55=INTC|60=20261121-21:30:15|1234567890=x|", Fix44,
            new ValidationOptions { CheckUserDefinedFields = false }).IsValid);
    }

    [Fact]
    public void A_tag_beyond_int_range_fails_the_parse_but_leaves_the_header_readable()
    {
        var wire = FixSamples.Wire("8=FIX.4.4|35=D|99999999999=x|34=7|49=TW|52=20261121-21:30:15|56=ISLD|11=ID|");
        var m = new FixMessage();
        Assert.Equal(FixParseError.TagOutOfRange, m.Parse(wire, 0, wire.Length, Fix44));
        Assert.True(m.IsPartial);
        Assert.False(m.IsParsed);
        Assert.True(m.TryGetInt(Tags.MsgSeqNum, out int seq));
        Assert.Equal(7, seq);
        Assert.Equal("D", Encoding.ASCII.GetString(m.MsgType));
    }

    [Fact]
    public void Too_many_fields_leaves_the_header_readable()
    {
        var sb = new StringBuilder("8=FIX.4.4|35=0|34=9|49=TW|52=20261121-21:30:15|56=ISLD|");
        for (int i = 0; i < 40; i++)
        {
            sb.Append("58=x|");
        }

        var wire = FixSamples.Wire(sb.ToString());
        var m = new FixMessage(new FixMessageOptions { MaxFields = 16 });
        Assert.Equal(FixParseError.TooManyFields, m.Parse(wire, 0, wire.Length, Fix44));
        Assert.True(m.IsPartial);
        Assert.Equal(16, m.FieldCount);
        Assert.True(m.TryGetInt(Tags.MsgSeqNum, out int seq));
        Assert.Equal(9, seq);
        Assert.Equal("0", Encoding.ASCII.GetString(m.MsgType));
    }

    [Fact]
    public void Too_many_group_entries_names_the_group_and_leaves_the_header_readable()
    {
        var sb = new StringBuilder(Header44 + "11=ID|21=1|38=100|40=1|54=1|55=INTC|60=20261121-21:30:15|453=10|");
        for (int i = 0; i < 10; i++)
        {
            sb.Append("448=P").Append(i).Append('|');
        }

        var wire = FixSamples.Wire(sb.ToString());
        var m = new FixMessage(new FixMessageOptions { MaxGroupEntries = 4 });
        Assert.Equal(FixParseError.TooManyGroupEntries, m.Parse(wire, 0, wire.Length, Fix44));
        Assert.True(m.IsPartial);
        Assert.Equal(453, m.ErrorTag);
        Assert.True(m.TryGetInt(Tags.MsgSeqNum, out int seq));
        Assert.Equal(2, seq);
        Assert.Equal("ISLD", Encoding.ASCII.GetString(m.GetValue(Tags.TargetCompID)));

        // The same view parses a message within the limits afterwards.
        var ok = FixSamples.Wire(Header44 + "11=ID|21=1|38=100|40=1|54=1|55=INTC|60=20261121-21:30:15|453=2|448=A|448=B|");
        Assert.Equal(FixParseError.None, m.Parse(ok, 0, ok.Length, Fix44));
        Assert.Equal(2, m.GetGroup(453).Count);
    }

    [Fact]
    public void Limits_that_cannot_make_a_view_are_refused_at_construction()
    {
        Assert.Throws<ArgumentOutOfRangeException>(() => new FixMessage(new FixMessageOptions { MaxFields = 3 }));
        Assert.Throws<ArgumentOutOfRangeException>(() => new FixMessage(new FixMessageOptions { MaxGroupEntries = 0 }));
    }
}
