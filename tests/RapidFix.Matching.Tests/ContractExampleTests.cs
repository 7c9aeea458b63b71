using System.Text;
using RapidFix.Engine.Codec;
using RapidFix.Engine.Dictionary;
using RapidFix.Engine.Validation;

namespace RapidFix.Matching.Tests;

/// <summary>The examples of docs/matching.md are valid FIX and the matcher answers them as documented.</summary>
public sealed class ContractExampleTests
{
    private static readonly string[] AllNames =
        ["NOE", "ALC-A", "ALC-B", "NPR-A", "NPR-B", "SET-A", "SET-B", "CLS-IM1-A", "AR", "P", "ALC-B-PRICE", "P-REJECT", "AE-NOTICE"];

    public static readonly TheoryData<string> Names = new(AllNames);

    private static readonly DataDictionary Fix50 = StandardDictionaries.ForSession("FIXT.1.1");

    [Fact]
    public void Every_documented_example_is_tested()
    {
        Assert.Equal(AllNames.OrderBy(n => n, StringComparer.Ordinal), ContractExamples.Examples.Keys.OrderBy(n => n, StringComparer.Ordinal));
    }

    [Theory]
    [MemberData(nameof(Names))]
    public void Example_has_the_right_BodyLength_and_CheckSum(string name)
    {
        string text = ContractExamples.Get(name);
        Assert.Equal(Demo.Frame(text.TrimEnd('|').Split('|')), text);
    }

    [Theory]
    [MemberData(nameof(Names))]
    public void Example_is_valid_against_FIX44(string name)
    {
        var m = Demo.Parse(ContractExamples.Get(name));
        var result = new MessageValidator(Demo.Fix44).Validate(m);
        Assert.True(result.IsValid, $"{name}: {result.Reason} tag {result.RefTagId}");
    }

    [Theory]
    [MemberData(nameof(Names))]
    public void Example_is_valid_against_FIX50SP2_on_FIXT11(string name)
    {
        var wire = Encoding.Latin1.GetBytes(AsFix50(ContractExamples.Get(name)).Replace('|', '\u0001'));
        var m = new FixMessage();
        Assert.Equal(FixParseError.None, m.Parse(wire, 0, wire.Length, Fix50));
        var result = new MessageValidator(Fix50).Validate(m);
        Assert.True(result.IsValid, $"{name}: {result.Reason} tag {result.RefTagId}");
    }

    [Fact]
    public void The_seven_documented_messages_clear_one_trade_with_the_documented_answers()
    {
        var matcher = Demo.NewMatcher();
        var sink = new RecordingSink();
        foreach (var name in new[] { "NOE", "ALC-A", "ALC-B", "NPR-A", "NPR-B", "SET-A", "SET-B" })
        {
            string text = ContractExamples.Get(name);
            matcher.Process(Demo.Parse(text), Demo.SenderOf(text), ref sink);
            Assert.Equal(AckStatus.Accepted, sink.LastAck.Status);
        }

        Assert.Equal(7, sink.Acks.Count);
        var cleared = Assert.Single(sink.Cleared);
        Assert.Equal(1, cleared.TradeNumber);
        Assert.Equal(["ACC-A", "ACC-B"], cleared.Accounts);
        Assert.Equal([15_063_770_000L, 10_042_510_000L], cleared.Net);
        Assert.Empty(sink.Exceptions);
    }

    [Fact]
    public void The_documented_price_exception_has_the_documented_text_codes_and_counterparty()
    {
        var matcher = Demo.NewMatcher();
        var sink = new RecordingSink();
        foreach (var name in new[] { "NOE", "ALC-A", "ALC-B-PRICE" })
        {
            string text = ContractExamples.Get(name);
            matcher.Process(Demo.Parse(text), Demo.SenderOf(text), ref sink);
        }

        var ack = sink.LastAck;
        Assert.Equal(AckStatus.Rejected, ack.Status);
        Assert.Equal(2, ack.RejectCode); // AllocRejCode 2: incorrect average price
        var e = Assert.Single(sink.Exceptions);
        string reject = ContractExamples.Get("P-REJECT");
        Assert.Contains("|58=" + RecordingSink.Text(e) + "|", reject, StringComparison.Ordinal);
        Assert.Contains("|88=" + ack.RejectCode + "|", reject, StringComparison.Ordinal);
        Assert.Equal("EB1", e.Counterparty.ToString());
        Assert.Equal(MessageKind.Noe, e.CounterpartyKind);
        Assert.Contains("|379=" + e.CounterpartyMessageId + "|", ContractExamples.Get("AE-NOTICE"), StringComparison.Ordinal);
    }

    /// <summary>The same message on a FIXT.1.1 session with ApplVerID 9; the AE's Currency moves to the top level.</summary>
    internal static string AsFix50(string text)
    {
        var fields = text.TrimEnd('|').Split('|').ToList();
        fields[0] = "8=FIXT.1.1";
        fields.Insert(3, "1128=9");
        if (fields.Contains("35=AE"))
        {
            int ccy = fields.IndexOf("15=SGD");
            fields.RemoveAt(ccy);
            fields.Insert(fields.FindIndex(f => f.StartsWith("552=", StringComparison.Ordinal)), "15=SGD");

            // FIX 5.0SP2 puts OrderID after the side's Parties (FIX 4.4 before them): group fields go in dictionary order.
            int order = fields.FindIndex(f => f.StartsWith("37=", StringComparison.Ordinal));
            string orderId = fields[order];
            fields.RemoveAt(order);
            fields.Insert(fields.LastIndexOf("452=13") + 1, orderId);
        }

        return Demo.Frame(fields);
    }
}
