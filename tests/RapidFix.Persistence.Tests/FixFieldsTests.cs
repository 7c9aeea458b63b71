using System.Text;

namespace RapidFix.Persistence.Tests;

/// <summary>
/// The persister's field scan makes fewer strings: repeated values come from a table of strings made once, the
/// sending time and the amounts are parsed from the bytes. What it returns must not change.
/// </summary>
public sealed class FixFieldsTests
{
    private static FixFields Parse(string message) => FixFields.Parse(Encoding.UTF8.GetBytes(message.Replace('|', '\u0001')));

    [Fact]
    public void Values_parse_as_before_and_repeated_values_are_one_string()
    {
        const string cls = "8=FIX.4.4|35=AK|34=7|49=MATCH|56=IM1|52=20261123-10:00:00.123456|664=CLS-1-1|773=1|75=20261123|64=20261126|" +
                           "453=2|448=EB1|452=1|448=IM1|452=13|448=ACC|452=24|48=SG0000000017|80=5000|54=1|15=SGD|79=ACC-1|118=-12525.00|70=ALC-1-1|10=000|";
        var a = Parse(cls);
        var b = Parse(cls);
        Assert.Equal("AK", a.MsgType);
        Assert.Equal(7, a.MsgSeqNum);
        Assert.Equal(("MATCH", "IM1", "EB1", "IM1", "ACC"), (a.SenderCompId, a.TargetCompId, a.ExecutingBroker, a.InvestmentManager, a.AccountParty));
        Assert.Equal(new DateTime(2026, 11, 23, 10, 0, 0).AddTicks(1_234_560), a.SendingTime);
        Assert.Equal(5000m, a.Quantity);
        Assert.Equal(-12525.00m, a.NetAmount);
        Assert.Equal("-12525.00", a.NetAmount!.Value.ToString(System.Globalization.CultureInfo.InvariantCulture)); // the scale kept
        Assert.Equal(("20261123", "20261126", "SG0000000017", "1", "SGD", "ACC-1"), (a.TradeDate, a.SettlDate, a.Isin, a.Side, a.Currency, a.Account));
        Assert.Equal(("CLS-1-1", "ALC-1-1", "1"), (a.ConfirmId, a.AllocId, a.ConfirmType));
        Assert.Equal("IM1|EB1|1|SG0000000017|20261123", a.TradeKey);
        Assert.Same(a.TradeKey, a.TradeKey); // made once a message

        // The repeated values are the same strings from one message to the next.
        Assert.Same(a.MsgType, b.MsgType);
        Assert.Same(a.TargetCompId, b.TargetCompId);
        Assert.Same(a.InvestmentManager, b.InvestmentManager);
        Assert.Same(a.Isin, b.Isin);
        Assert.Same(a.TradeDate, b.TradeDate);
    }

    [Fact]
    public void The_first_occurrence_wins_even_when_malformed_and_bad_values_give_null()
    {
        var f = Parse("35=0|52=2026-bad-time|52=20261123-10:00:00|80=5,000|80=12|118=1e5|");
        Assert.Null(f.SendingTime);
        Assert.Null(f.Quantity);
        Assert.Null(f.NetAmount);
        Assert.Null(Parse("52=20261332-10:00:00|").SendingTime);
        Assert.Equal(new DateTime(2026, 11, 23, 10, 0, 0), Parse("52=20261123-10:00:00|").SendingTime);
        Assert.Equal(new DateTime(2026, 11, 23, 10, 0, 59), Parse("52=20261123-10:00:60|").SendingTime); // a leap second, as before
    }

    [Fact]
    public void Non_ascii_nul_and_colliding_values_come_back_exact()
    {
        Assert.Equal("Zürich-β", Parse("56=Zürich-β|").TargetCompId);
        Assert.Equal("IM\09", Parse("56=IM\09|").TargetCompId);
        Assert.Equal("", Parse("56=|").TargetCompId);
        Assert.Equal("\ufffd", FixFields.Parse(new byte[] { (byte)'5', (byte)'6', (byte)'=', 0xFF, 1 }).TargetCompId); // invalid UTF-8: replaced, as before

        // Many distinct values through the fixed table: each comes back equal to its bytes, whatever shares its slot.
        for (int i = 0; i < 50_000; i++)
        {
            string id = "P" + i.ToString(System.Globalization.CultureInfo.InvariantCulture);
            Assert.Equal(id, Strings.Get(Encoding.ASCII.GetBytes(id)));
        }

        string longer = new('x', 100);
        Assert.Equal(longer, Strings.Get(Encoding.ASCII.GetBytes(longer)));
    }
}
