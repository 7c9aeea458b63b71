using RapidFix.Engine.Fields;
using RapidFix.Fast.Codec;
using RapidFix.Fast.Messages;
using RapidFix.Fast.Templates;

namespace RapidFix.Matching.Tests;

/// <summary>
/// A FAST-encoded trade matches exactly like the FIX one: the seven documented messages (and a mismatch and a
/// duplicate) are copied into FAST messages of templates carrying the contract's fields, encoded, decoded, and
/// fed through <see cref="FastMessageView"/>; the answers equal those to the FIX messages, one for one.
/// </summary>
public sealed class FastAccessorTests
{
    private const string Parties = """
        <sequence name="Parties"><length name="NoPartyIDs" id="453"/><string name="PartyID" id="448"/>
        <string name="PartyIDSource" id="447"/><uInt32 name="PartyRole" id="452"/></sequence>
        """;

    private const string Templates = $$"""
        <templates xmlns="http://www.fixprotocol.org/ns/fast/td/1.1">
          <template name="NOE" id="1">
            <string name="MsgType" id="35"><constant value="AE"/></string>
            <string name="TradeReportID" id="571"/>
            <uInt32 name="TradeReportTransType" id="487" presence="optional"/>
            <string name="TradeReportRefID" id="572" presence="optional"/>
            <string name="SecurityID" id="48"/>
            <string name="SecurityIDSource" id="22"/>
            <decimal name="LastQty" id="32"/>
            <decimal name="LastPx" id="31"/>
            <uInt32 name="TradeDate" id="75"/>
            <uInt32 name="SettlDate" id="64" presence="optional"/>
            <sequence name="Sides">
              <length name="NoSides" id="552"/>
              <string name="Side" id="54"/>
              <string name="OrderID" id="37"/>
              <string name="Currency" id="15" presence="optional"/>
              <decimal name="GrossTradeAmt" id="381" presence="optional"/>
              {{Parties}}
            </sequence>
          </template>
          <template name="ALC" id="2">
            <string name="MsgType" id="35"><constant value="J"/></string>
            <string name="AllocID" id="70"/>
            <string name="AllocTransType" id="71"/>
            <string name="RefAllocID" id="72" presence="optional"/>
            <string name="Side" id="54"/>
            <string name="SecurityID" id="48"/>
            <string name="SecurityIDSource" id="22"/>
            <decimal name="AvgPx" id="6"/>
            <string name="Currency" id="15"/>
            <uInt32 name="TradeDate" id="75"/>
            <uInt32 name="SettlDate" id="64" presence="optional"/>
            {{Parties}}
            <sequence name="Allocs">
              <length name="NoAllocs" id="78"/>
              <string name="AllocAccount" id="79"/>
              <decimal name="AllocQty" id="80"/>
            </sequence>
          </template>
          <template name="NPR" id="3">
            <string name="MsgType" id="35"><constant value="AK"/></string>
            <string name="ConfirmID" id="664"/>
            <uInt32 name="ConfirmTransType" id="666"/>
            <string name="ConfirmRefID" id="772" presence="optional"/>
            <uInt32 name="ConfirmType" id="773"/>
            <uInt32 name="TradeDate" id="75"/>
            <uInt32 name="SettlDate" id="64" presence="optional"/>
            {{Parties}}
            <string name="SecurityID" id="48"/>
            <string name="SecurityIDSource" id="22"/>
            <decimal name="AllocQty" id="80"/>
            <string name="Side" id="54"/>
            <string name="Currency" id="15"/>
            <string name="AllocAccount" id="79"/>
            <decimal name="AvgPx" id="6"/>
            <decimal name="GrossTradeAmt" id="381"/>
            <decimal name="NetMoney" id="118"/>
            <decimal name="SettlCurrAmt" id="119" presence="optional"/>
            <string name="SettlCurrency" id="120" presence="optional"/>
            <decimal name="Commission" id="12" presence="optional"/>
            <string name="CommType" id="13" presence="optional"/>
            <sequence name="MiscFees" presence="optional">
              <length name="NoMiscFees" id="136"/>
              <decimal name="MiscFeeAmt" id="137"/>
              <string name="MiscFeeType" id="139"/>
            </sequence>
          </template>
          <template name="SET" id="4">
            <string name="MsgType" id="35"><constant value="T"/></string>
            <string name="SettlInstMsgID" id="777"/>
            <string name="SettlInstMode" id="160"/>
            <sequence name="SettlInst">
              <length name="NoSettlInst" id="778"/>
              <string name="SettlInstID" id="162"/>
              <string name="SettlInstTransType" id="163"/>
              <string name="Side" id="54"/>
              {{Parties}}
            </sequence>
          </template>
        </templates>
        """;

    [Fact]
    public void A_FAST_encoded_trade_gives_the_same_answers_as_the_FIX_one()
    {
        var registry = new FastTemplateLoader().AddXml(Templates, "matching-test").Build();
        var encoder = new FastEncoder(registry);
        var decoder = new FastDecoder(registry);
        var built = new FastMessage();
        var decoded = new FastMessage();
        var buffer = new byte[4096];

        var fixMatcher = Demo.NewMatcher();
        var fastMatcher = Demo.NewMatcher();
        var fixSink = new RecordingSink();
        var fastSink = new RecordingSink();
        foreach (var name in new[] { "SET-B", "NOE", "ALC-A", "ALC-B-PRICE", "NPR-A", "ALC-B", "NPR-B", "NPR-B", "SET-A" })
        {
            string text = ContractExamples.Get(name);
            var fix = Demo.Parse(text);
            byte[] sender = Demo.SenderOf(text);
            fixMatcher.Process(fix, sender, ref fixSink);

            var template = registry[MessageReader.KindOf(fix.MsgType) switch
            {
                MessageKind.Noe => 1u,
                MessageKind.Alc => 2u,
                MessageKind.Npr => 3u,
                _ => 4u,
            }];
            built.Begin(template);
            Copy(fix, FieldScope.Message, built, FieldScope.Message, template.Body.ScopeFields);
            var encoded = encoder.Encode(built, buffer);
            Assert.True(encoded.Ok, $"{name}: encode {encoded.Error}");
            var result = decoder.Decode(buffer.AsSpan(0, encoded.Length), decoded);
            Assert.True(result.Ok, $"{name}: decode {result.Error}");
            fastMatcher.Process(decoded.View, sender, ref fastSink);
        }

        Assert.Equal(fixSink.Log, fastSink.Log);
        Assert.Single(fastSink.Cleared);
        Assert.Single(fastSink.Exceptions);
        Assert.Contains(fastSink.Acks, a => a.Status == AckStatus.Duplicate);
    }

    /// <summary>Sets every template field the FIX message has, with the FAST type the template gives it.</summary>
    private static void Copy<T>(T fix, FieldScope from, FastMessage fast, FieldScope to, IReadOnlyList<FastField> fields)
        where T : IFieldAccessor
    {
        foreach (var field in fields)
        {
            int tag = field.Type == FastFieldType.Sequence && field.Tag == 0 ? field.Length!.Tag : field.Tag;
            if (tag == 35 || !fix.Contains(from, tag))
            {
                continue;
            }

            switch (field.Type)
            {
                case FastFieldType.Sequence:
                    int count = fix.GetGroupCount(from, tag);
                    var first = fast.SetSequence(to, tag, count);
                    for (int i = 0; i < count; i++)
                    {
                        Assert.True(fix.TryGetGroupEntry(from, tag, i, out var entry));
                        Copy(fix, entry, fast, new FieldScope(first.Id + i), field.Body!.ScopeFields);
                    }

                    break;
                case FastFieldType.Decimal:
                    Assert.True(fix.TryGetDecimal(from, tag, out var d));
                    fast.SetDecimal(to, tag, d);
                    break;
                case FastFieldType.UInt32:
                    Assert.True(fix.TryGetLong(from, tag, out long n));
                    fast.SetInteger(to, tag, n);
                    break;
                default:
                    Assert.True(fix.TryGetText(from, tag, out var text));
                    fast.SetBytes(to, tag, text);
                    break;
            }
        }
    }
}
