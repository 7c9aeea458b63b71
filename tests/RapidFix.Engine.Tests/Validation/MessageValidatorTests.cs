using RapidFix.Engine.Codec;
using RapidFix.Engine.Dictionary;
using RapidFix.Engine.Validation;
using RapidFix.Tests.Shared;

namespace RapidFix.Engine.Tests.Validation;

/// <summary>
/// Each case is a message from the QuickFIX acceptance scripts (fix44/14a..14i, 2q, 2r, 21) with the reason and
/// tag the script expects in the Reject.
/// </summary>
public sealed class MessageValidatorTests
{
    private const string Header = "8=FIX.4.4|35={0}|34=2|49=TW|52=20261121-21:30:15|56=ISLD|";
    private static readonly DataDictionary Fix44 = StandardDictionaries.Load("FIX44");
    private static readonly MessageValidator Validator = new(Fix44);

    private static ValidationResult Validate(string text, MessageValidator? validator = null)
    {
        validator ??= Validator;
        var wire = FixSamples.Wire(text);
        var m = new FixMessage();
        Assert.Equal(FixParseError.None, m.Parse(wire, 0, wire.Length, validator.Dictionary));
        return validator.Validate(m);
    }

    private static string Msg(string type, string body) => string.Format(Header, type) + body;

    [Theory]
    [InlineData("0", "999=HI|", SessionRejectReason.InvalidTagNumber, 999)]
    [InlineData("0", "0=HI|", SessionRejectReason.InvalidTagNumber, 0)]
    [InlineData("0", "-1=HI|", SessionRejectReason.InvalidTagNumber, -1)]
    [InlineData("0", "5000=HI|", SessionRejectReason.InvalidTagNumber, 5000)]
    [InlineData("D", "11=ID|21=4|40=1|54=1|38=002000.00|55=INTC|60=20261121-21:30:15|", SessionRejectReason.ValueIsIncorrect, 21)]
    [InlineData("D", "11=ID|21=1|40=1|54=1|38=002000.00|55=INTC|60=20261121-21:30:15|167=BOO|", SessionRejectReason.ValueIsIncorrect, 167)]
    [InlineData("D", "11=ID|21=1|40=1|54=1|38=+200.00|55=INTC|60=20261121-21:30:15|", SessionRejectReason.IncorrectDataFormatForValue, 38)]
    [InlineData("D", "11=ID|21=1|40=1|40=2|54=1|38=200.00|55=INTC|60=20261121-21:30:15|", SessionRejectReason.TagAppearsMoreThanOnce, 40)]
    [InlineData("D", "11=ID|21=1|40=1|54=1|38=200.00|55=INTC|386=3|336=PRE-OPEN|336=AFTER-HOURS|60=20261121-21:30:15|", SessionRejectReason.IncorrectNumInGroupCountForRepeatingGroup, 386)]
    [InlineData("D", "11=ID|21=1|40=1|54=1|38=200.00|55=INTC|60=20261121-21:30:15|58=|", SessionRejectReason.TagSpecifiedWithoutAValue, 58)]
    [InlineData("D", "11=ID|21=1|40=1|54=1|38=200.00|55=INTC|60=20261121-21:30:15|148=not-in-NOS|", SessionRejectReason.TagNotDefinedForThisMessageType, 148)]
    [InlineData("D", "11=ID|21=1|40=1|54=1|38=200.00|55=INTC|60=2026-11-21|", SessionRejectReason.IncorrectDataFormatForValue, 60)]
    [InlineData("D", "21=1|40=1|54=1|38=200.00|60=20261121-21:30:15|", SessionRejectReason.RequiredTagMissing, 11)]
    public void Rejects_with_the_reason_and_tag_quickfix_gives(string type, string body, SessionRejectReason reason, int tag)
    {
        var r = Validate(Msg(type, body));
        Assert.Equal(ValidationOutcome.Reject, r.Outcome);
        Assert.Equal(reason, r.Reason);
        Assert.True(r.HasRefTag);
        Assert.Equal(tag, r.RefTagId);
    }

    [Fact]
    public void Missing_header_field_is_reported_before_body_problems()
    {
        var r = Validate("8=FIX.4.4|35=0|34=2|49=TW|52=20261121-21:30:15|999=x|");
        Assert.Equal(SessionRejectReason.RequiredTagMissing, r.Reason);
        Assert.Equal(56, r.RefTagId);
    }

    [Fact]
    public void Header_field_after_the_body_is_out_of_order()
    {
        var r = Validate("8=FIX.4.4|35=D|11=id|21=3|40=1|54=1|55=MSFT|60=20261121-21:30:15|34=2|49=TW|52=20261121-21:30:15|56=ISLD|");
        Assert.Equal(SessionRejectReason.TagSpecifiedOutOfRequiredOrder, r.Reason);
        Assert.Equal(34, r.RefTagId);

        var relaxed = new MessageValidator(Fix44, new ValidationOptions { CheckFieldsOutOfOrder = false });
        Assert.True(Validate("8=FIX.4.4|35=D|11=id|21=3|40=1|54=1|55=MSFT|60=20261121-21:30:15|34=2|49=TW|52=20261121-21:30:15|56=ISLD|", relaxed).IsValid);
    }

    [Fact]
    public void Unknown_msg_type_is_invalid_and_a_listed_but_undefined_one_is_unsupported()
    {
        var invalid = Validate(Msg("*", string.Empty));
        Assert.Equal(ValidationOutcome.Reject, invalid.Outcome);
        Assert.Equal(SessionRejectReason.InvalidMsgType, invalid.Reason);
        Assert.Equal(35, invalid.RefTagId); // FIX 4.2 quotes it in RefTagID; the session leaves it out from FIX 4.3

        // A dictionary without ExecutionReport, whose MsgType field still lists "8": BusinessMessageReject territory.
        var noExec = LoadWithout("8");
        var unsupported = Validate(Msg("8", "37=id|17=id|150=0|39=0|55=WLRI|54=1|151=100|14=0|6=0.0|"), new MessageValidator(noExec));
        Assert.Equal(ValidationOutcome.UnsupportedMessageType, unsupported.Outcome);
    }

    [Fact]
    public void Lowest_tag_wins_when_several_body_fields_are_wrong()
    {
        // 54 has a bad enum and 38 a bad format: QuickFIX walks fields in tag order, so 38 is reported.
        var r = Validate(Msg("D", "11=ID|21=1|40=1|54=9|38=abc|55=INTC|60=20261121-21:30:15|"));
        Assert.Equal(SessionRejectReason.IncorrectDataFormatForValue, r.Reason);
        Assert.Equal(38, r.RefTagId);
    }

    [Fact]
    public void Group_entry_fields_are_checked_after_the_top_level()
    {
        var bad = Validate(Msg("W", "262=R|55=MSFT|268=2|269=0|270=1.5|271=100|269=Q|270=1.6|271=200|"));
        Assert.Equal(SessionRejectReason.ValueIsIncorrect, bad.Reason);
        Assert.Equal(269, bad.RefTagId);

        var zero = Validate(Msg("d", "320=JCD1091-20021011|322=1034356488676|323=6|55=TBS|22=8|167=CS|336=ONE_MAIN|58=No Products found|454=0|"));
        Assert.True(zero.IsValid, zero.ToString());
    }

    [Fact]
    public void User_defined_and_unknown_fields_follow_the_options()
    {
        var lenient = new MessageValidator(Fix44, new ValidationOptions { CheckUserDefinedFields = false });
        Assert.True(Validate(Msg("0", "5000=HI|"), lenient).IsValid);
        Assert.Equal(SessionRejectReason.InvalidTagNumber, Validate(Msg("0", "999=HI|"), lenient).Reason);

        var unknownOk = new MessageValidator(Fix44, new ValidationOptions { AllowUnknownMessageFields = true });
        Assert.True(Validate(Msg("0", "999=HI|148=x|"), unknownOk).IsValid);
    }

    [Fact]
    public void Sample_messages_are_valid()
    {
        Assert.True(Validate(FixSamples.NewOrderSingle).IsValid, Validate(FixSamples.NewOrderSingle).ToString());
        Assert.True(Validate(FixSamples.ExecutionReport).IsValid, Validate(FixSamples.ExecutionReport).ToString());
        Assert.True(Validate(FixSamples.MarketDataSnapshot).IsValid, Validate(FixSamples.MarketDataSnapshot).ToString());
    }

    [Fact]
    public void Validating_a_message_parsed_with_another_dictionary_is_a_programming_error()
    {
        var wire = FixSamples.Wire(FixSamples.NewOrderSingle);
        var m = new FixMessage();
        m.Parse(wire, 0, wire.Length);
        Assert.Throws<InvalidOperationException>(() => Validator.Validate(m));
    }

    private static DataDictionary LoadWithout(string msgType)
    {
        using var stream = typeof(DataDictionary).Assembly.GetManifestResourceStream("RapidFix.Dictionaries.FIX44.xml")!;
        var doc = System.Xml.Linq.XDocument.Load(stream);
        System.Xml.Linq.Extensions.Remove(doc.Root!.Element("messages")!.Elements("message").Where(e => (string?)e.Attribute("msgtype") == msgType));
        using var ms = new MemoryStream();
        doc.Save(ms);
        ms.Position = 0;
        return DataDictionary.Load(ms, "FIX44 without " + msgType);
    }
}
