namespace RapidFix.Matching.Tests;

/// <summary>Each matching criterion and each tolerance kind: the exception names the criterion, tag, both values and the tolerance.</summary>
public sealed class CriteriaTests
{
    /// <summary>Sends <paramref name="before"/> of the documented trade, then <paramref name="last"/>; returns the answer to the last.</summary>
    private static (MatchAck Ack, MatchException? Exception) After(string[] before, string last)
    {
        var trade = Trades.Documented();
        var matcher = Demo.NewMatcher();
        var sink = new RecordingSink();
        foreach (var name in before)
        {
            Trades.Send(matcher, trade[name], ref sink);
            Assert.Equal(AckStatus.Accepted, sink.LastAck.Status);
        }

        Trades.Send(matcher, last, ref sink);
        return (sink.LastAck, sink.LastAck.Status == AckStatus.Rejected ? sink.Exceptions[^1] : null);
    }

    private static string Doc(string name, params string[] changes) => Demo.With(ContractExamples.Get(name), changes);

    private static MatchException Rejected(string[] before, string last, ExceptionReason reason, Criterion criterion, int tag)
    {
        var (ack, e) = After(before, last);
        Assert.Equal(AckStatus.Rejected, ack.Status);
        Assert.Equal(reason, ack.Reason);
        Assert.Equal(criterion, ack.Criterion);
        Assert.Equal(tag, ack.Tag);
        Assert.NotNull(e);
        return e.Value;
    }

    private static void Accepted(string[] before, string last) => Assert.Equal(AckStatus.Accepted, After(before, last).Ack.Status);

    [Fact]
    public void C01_trade_date_is_part_of_the_key_a_different_one_is_another_trade()
    {
        // Not comparable by tolerance: the ALC opens a trade of its own (it expires unless its NOE comes).
        Accepted(["NOE"], Doc("ALC-A", "75=20261120"));
    }

    [Fact]
    public void C02_settlement_date_must_agree_and_be_a_business_day()
    {
        var e = Rejected(["NOE"], Doc("ALC-A", "64=20261127"), ExceptionReason.Mismatch, Criterion.SettlementDate, 64);
        Assert.Equal("20261127", e.Value.ToString());
        Assert.Equal("20261126", e.Expected.ToString());
        Rejected([], Doc("NOE", "64=20261225"), ExceptionReason.StaticData, Criterion.SettlementDate, 64); // SGD holiday
        Rejected([], Doc("NOE", "64=20261128"), ExceptionReason.StaticData, Criterion.SettlementDate, 64); // a Saturday
        Rejected([], Doc("NOE", "64=20261120"), ExceptionReason.InvalidField, Criterion.SettlementDate, 64); // before the trade date
    }

    [Fact]
    public void C03_security_needs_a_valid_check_digit_and_static_data()
    {
        var e = Rejected([], Doc("NOE", "48=SG1T75931497"), ExceptionReason.StaticData, Criterion.Security, 48);
        Assert.Equal("SG1T75931497", e.Value.ToString());
        Assert.Equal(2, RejectCodes.TradeReportRejectReason(e.Reason, e.Criterion)); // unknown instrument
        Rejected([], Doc("NOE", "48=US5949181045"), ExceptionReason.StaticData, Criterion.Security, 48); // valid, not listed
        Rejected([], Doc("NOE", "22=1"), ExceptionReason.Unsupported, Criterion.Security, 22);
    }

    [Fact]
    public void C04_side_is_part_of_the_key()
    {
        Accepted(["NOE"], Doc("ALC-A", "54=2"));
        Rejected([], Doc("NOE", "54=5"), ExceptionReason.Unsupported, Criterion.Side, 54);
    }

    [Fact]
    public void C05_currency_must_agree_and_be_known()
    {
        var e = Rejected(["NOE"], Doc("ALC-A", "15=EUR"), ExceptionReason.Mismatch, Criterion.TradeCurrency, 15);
        Assert.Equal("EUR", e.Value.ToString());
        Assert.Equal("SGD", e.Expected.ToString());
        Rejected([], Doc("ALC-A", "15=XXX"), ExceptionReason.StaticData, Criterion.TradeCurrency, 15);
    }

    [Fact]
    public void C06_allocations_must_sum_to_the_block()
    {
        // 6,000 + 5,000 overfills 10,000: the second allocation cannot belong to the trade and opens its own.
        var trade = Trades.Documented();
        var matcher = Demo.NewMatcher();
        var sink = new RecordingSink();
        Trades.Send(matcher, trade["NOE"], ref sink);
        Trades.Send(matcher, trade["ALC-A"], ref sink);
        Trades.Send(matcher, Demo.With(trade["ALC-B"], "53=5000", "80=5000"), ref sink);
        Assert.Equal(2, matcher.OpenTrades);
        Rejected([], Doc("ALC-A", "80=0"), ExceptionReason.InvalidField, Criterion.Quantity, 80);
    }

    [Fact]
    public void C07_price_is_compared_at_the_security_price_precision()
    {
        Accepted(["NOE"], Doc("ALC-A", "6=2.5051")); // 3 decimals for SG1T75931496: 2.505
        var e = Rejected(["NOE"], Doc("ALC-A", "6=2.5056"), ExceptionReason.Mismatch, Criterion.Price, 6);
        Assert.Equal("2.5056", e.Value.ToString());
        Assert.Equal("2.505", e.Expected.ToString());
        Assert.Equal(ToleranceRule.Mnmx, e.Tolerance.Rule);
        Assert.Equal("EB1", e.Counterparty.ToString());
    }

    [Fact]
    public void C08_gross_amount_within_one_minor_unit_of_quantity_times_price()
    {
        Accepted([], Doc("NPR-A", "381=15030.01")); // net 15063.77 against 15063.78: within PTMX
        var e = Rejected([], Doc("NPR-A", "381=15030.02"), ExceptionReason.Mismatch, Criterion.GrossAmount, 381);
        Assert.Equal("15030.02", e.Value.ToString());
        Assert.Equal("15030", e.Expected.ToString());
        Assert.Equal(new StaticData.Tolerance(ToleranceRule.Mnmx, 10_000, 0), e.Tolerance);
    }

    private static string AlcWith(string money) =>
        Demo.Frame(ContractExamples.Get("ALC-A").Replace("|80=6000|", "|80=6000|" + money, StringComparison.Ordinal).TrimEnd('|').Split('|'));

    [Fact]
    public void C09_commission_absolute_or_percentage_against_the_net_proceeds()
    {
        Accepted(["NPR-A"], AlcWith("12=30.06|13=3|"));
        Accepted(["NPR-A"], AlcWith("12=0.2|13=2|")); // 0.2 % of 15,030.00
        var e = Rejected(["NPR-A"], AlcWith("12=30.10|13=3|"), ExceptionReason.Mismatch, Criterion.Commission, 12);
        Assert.Equal("30.1", e.Value.ToString());
        Assert.Equal("30.06", e.Expected.ToString());
        Assert.Equal(4, RejectCodes.AllocRejCode(e.Reason, e.Criterion));
    }

    [Fact]
    public void C10_fees_and_C11_tax_are_summed_by_MiscFeeType()
    {
        Accepted(["NPR-A"], AlcWith("136=2|137=1.50|139=4|137=2.21|139=2|"));
        var fees = Rejected(["NPR-A"], AlcWith("136=2|137=1.60|139=4|137=2.21|139=2|"), ExceptionReason.Mismatch, Criterion.Fees, 137);
        Assert.Equal("1.6", fees.Value.ToString());
        var tax = Rejected(["NPR-A"], AlcWith("136=2|137=1.50|139=4|137=2.30|139=2|"), ExceptionReason.Mismatch, Criterion.Tax, 137);
        Assert.Equal("2.3", tax.Value.ToString());
        Assert.Equal("2.21", tax.Expected.ToString());
    }

    [Fact]
    public void C12_accrued_interest_is_a_percentage_for_fixed_income_and_ignored_for_equities()
    {
        // Equity: accrued interest is not compared.
        Accepted(["NPR-A"], Demo.With(ContractExamples.Get("ALC-A"), "60=20261123-11:00:00.000").Replace("|64=20261126|", "|64=20261126|159=5|", StringComparison.Ordinal) is var t ? Demo.Frame(t.TrimEnd('|').Split('|')) : "");

        // Fixed income (XS1234567896, EUR): the NPR's accrued 1000, the ALC's within and beyond PTOL 0.01 %.
        var npr = Bond(Trades.Read(ContractExamples.Get("NPR-A")), accrued: 1_000_000_000L);
        var alc = Bond(Trades.Read(ContractExamples.Get("ALC-A")), accrued: 1_000_050_000L);
        var matcher = Demo.NewMatcher();
        var sink = new RecordingSink();
        matcher.Process(in npr, ref sink);
        Assert.Equal(AckStatus.Accepted, sink.LastAck.Status);
        matcher.Process(in alc, ref sink);
        Assert.Equal(AckStatus.Accepted, sink.LastAck.Status);

        matcher = Demo.NewMatcher();
        matcher.Process(in npr, ref sink);
        alc = Bond(Trades.Read(ContractExamples.Get("ALC-A")), accrued: 1_000_200_000L);
        matcher.Process(in alc, ref sink);
        Assert.Equal(Criterion.AccruedInterest, sink.LastAck.Criterion);
        Assert.Equal(ToleranceRule.Ptol, sink.Exceptions[^1].Tolerance.Rule);
    }

    private static MatchInput Bond(MatchInput input, long accrued)
    {
        input.Isin.TrySet("XS1234567896"u8);
        input.Currency = Codes.PackCurrency("EUR"u8);
        input.SettlCurrency = input.Has(InputFields.SettlCurrency) ? input.Currency : 0;
        input.Accrued = accrued;
        input.Present |= InputFields.Accrued;
        if (input.Kind == MessageKind.Npr)
        {
            input.Net += accrued;
            input.SettlAmount += accrued;
        }

        return input;
    }

    [Fact]
    public void C13_net_amount_is_recomputed_with_a_capped_percentage()
    {
        // 0.01 % of 15,063.77 is 1.506: 1.50 off passes, 1.60 off does not.
        Accepted([], Doc("NPR-A", "118=15065.27", "119=15065.27"));
        var e = Rejected([], Doc("NPR-A", "118=15065.37", "119=15065.37"), ExceptionReason.Mismatch, Criterion.NetAmount, 118);
        Assert.Equal("15065.37", e.Value.ToString());
        Assert.Equal("15063.77", e.Expected.ToString());
        Assert.Equal(ToleranceRule.Ptmx, e.Tolerance.Rule);

        // A sell subtracts commission, fees and tax.
        var sell = Trades.Read(ContractExamples.Get("NPR-A"));
        sell.Side = (byte)'2';
        sell.Net = sell.SettlAmount = 15_030_000_000L - 30_060_000L - 1_500_000L - 2_210_000L;
        var matcher = Demo.NewMatcher();
        var sink = new RecordingSink();
        matcher.Process(in sell, ref sink);
        Assert.Equal(AckStatus.Accepted, sink.LastAck.Status);
    }

    [Fact]
    public void C14_settlement_currency_and_amount()
    {
        var amount = Rejected([], Doc("NPR-A", "119=15070.00"), ExceptionReason.Mismatch, Criterion.SettlementAmount, 119);
        Assert.Equal("15063.77", amount.Expected.ToString());

        // Settling in EUR at 0.75: 119 must be 118 × 155.
        Accepted([], Doc("NPR-A", "120=EUR", "119=11297.83").Replace("|120=EUR|", "|120=EUR|155=0.75|", StringComparison.Ordinal) is var t ? Demo.Frame(t.TrimEnd('|').Split('|')) : "");
        Rejected([], Doc("NPR-A", "120=EUR"), ExceptionReason.MissingField, Criterion.SettlementAmount, 155);
        var ccy = Rejected(["NPR-A"], AlcWith("120=EUR|"), ExceptionReason.Mismatch, Criterion.SettlementCurrency, 120);
        Assert.Equal("EUR", ccy.Value.ToString());
    }

    [Fact]
    public void C15_account_must_be_the_managers()
    {
        var e = Rejected([], Doc("ALC-A", "79=ACC-C"), ExceptionReason.StaticData, Criterion.Account, 79); // IM2's account
        Assert.Equal("ACC-C", e.Value.ToString());
        Assert.Equal(0, RejectCodes.AllocRejCode(e.Reason, e.Criterion));
        Rejected([], Doc("SET-A", "448=NOPE").Replace("448=NOPE|447=D|452=1|448=IM1", "448=EB1|447=D|452=1|448=IM1", StringComparison.Ordinal) is var t ? Demo.Frame(t.Replace("448=ACC-A", "448=ACC-Z", StringComparison.Ordinal).TrimEnd('|').Split('|')) : "", ExceptionReason.StaticData, Criterion.Account, 448);
    }

    [Fact]
    public void C16_executing_broker_must_be_known_and_send_NOE_and_NPR()
    {
        Rejected([], ContractExamples.Get("NOE").Replace("448=EB1", "448=EB9", StringComparison.Ordinal), ExceptionReason.StaticData, Criterion.ExecutingBroker, 448);
        Rejected([], Doc("NOE", "49=EB2"), ExceptionReason.NotAuthorized, Criterion.None, 49);
        Rejected([], Doc("NOE", "49=IM1"), ExceptionReason.NotAuthorized, Criterion.None, 49);
    }

    [Fact]
    public void C17_place_of_settlement_must_agree_between_NPR_and_SET_and_be_known()
    {
        string dtc = ContractExamples.Get("SET-A").Replace("448=CDP", "448=DTC", StringComparison.Ordinal);
        var e = Rejected(["ALC-A", "NPR-A"], Demo.Frame(dtc.TrimEnd('|').Split('|')), ExceptionReason.Mismatch, Criterion.PlaceOfSettlement, 448);
        Assert.Equal("DTC", e.Value.ToString());
        Assert.Equal("CDP", e.Expected.ToString());
        Assert.Equal("EB1", e.Counterparty.ToString());
        string unknown = ContractExamples.Get("SET-A").Replace("448=CDP", "448=MARS", StringComparison.Ordinal);
        Rejected([], Demo.Frame(unknown.TrimEnd('|').Split('|')), ExceptionReason.StaticData, Criterion.PlaceOfSettlement, 448);
    }

    [Fact]
    public void Missing_required_contract_fields_are_exceptions_with_the_tag()
    {
        string noAccount = ContractExamples.Get("NPR-A").Replace("|79=ACC-A|", "|", StringComparison.Ordinal);
        var (ack, _) = After([], Demo.Frame(noAccount.TrimEnd('|').Split('|')));
        Assert.Equal(ExceptionReason.MissingField, ack.Reason);
        Assert.Equal(79, ack.Tag);
        Rejected([], Doc("NPR-A", "773=1"), ExceptionReason.Unsupported, Criterion.None, 773);
    }
}
