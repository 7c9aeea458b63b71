using RapidFix.Matching.StaticData;

namespace RapidFix.Matching.Tests;

/// <summary>Static data: ISIN check digits, calendars, tolerance profile resolution, and the loader refusing bad files.</summary>
public sealed class StaticDataTests
{
    [Theory]
    [InlineData("US0378331005", true)]
    [InlineData("SG1T75931496", true)]
    [InlineData("XS1234567896", true)]
    [InlineData("US0378331006", false)]
    [InlineData("US037833100", false)]
    [InlineData("us0378331005", false)]
    [InlineData("US03783310O5", false)]
    public void Isin_check_digit(string isin, bool valid) => Assert.Equal(valid, Isin.IsValid(System.Text.Encoding.ASCII.GetBytes(isin)));

    [Fact]
    public void Business_days_skip_weekends_and_the_currencys_holidays()
    {
        var r = Demo.Reference;
        int sgd = r.FindCurrency(Codes.PackCurrency("SGD"u8)), usd = r.FindCurrency(Codes.PackCurrency("USD"u8));
        Assert.True(r.IsBusinessDay(sgd, 20261126));
        Assert.False(r.IsBusinessDay(usd, 20261126)); // Thanksgiving in calendars.csv
        Assert.False(r.IsBusinessDay(sgd, 20261128)); // Saturday
        Assert.False(r.IsBusinessDay(sgd, 20261129)); // Sunday
        Assert.False(r.IsBusinessDay(sgd, 20261225));
        Assert.False(r.IsBusinessDay(sgd, 20261331));
    }

    [Fact]
    public void A_lookup_carries_what_validation_reads_of_the_row_it_finds()
    {
        // The lookup tables hold a participant's roles and profile, an account's manager and a security's price
        // decimals in the found entry (validation reads them from there, not from the lists).
        var r = Demo.Reference;
        Assert.True(r.ParticipantCount > 1 && r.AccountCount > 1);
        for (int p = 0; p < r.ParticipantCount; p++)
        {
            var participant = r.GetParticipant(p);
            Assert.Equal(p, r.FindParticipant(participant.Id, out int facts));
            Assert.Equal(participant.Roles, ParticipantFacts.Roles(facts));
            Assert.Equal(participant.Profile, ParticipantFacts.Profile(facts));
        }

        Assert.Contains(Enumerable.Range(0, r.ParticipantCount), p => r.GetParticipant(p).Profile != 0);
        for (int a = 0; a < r.AccountCount; a++)
        {
            Assert.Equal(a, r.FindAccount(r.AccountId(a), out int manager));
            Assert.Equal(r.AccountManager(a), manager);
        }

        foreach (var (isin, decimals) in new[] { ("SG1T75931496", 3), ("US0378331005", 4), ("JP3650000007", 0), ("XS1234567896", 6) })
        {
            int s = r.FindSecurity(System.Text.Encoding.ASCII.GetBytes(isin), out int found);
            Assert.Equal(decimals, r.GetSecurity(s).PriceDecimals);
            Assert.Equal(decimals, found);
        }

        Assert.Equal(-1, r.FindParticipant("NOBODY"u8, out int none));
        Assert.Equal(0, none);
    }

    [Fact]
    public void Tolerances_resolve_profile_then_currency_then_default()
    {
        var r = Demo.Reference;
        int strict = r.GetParticipant(r.FindParticipant("IM2"u8)).Profile, def = 0;
        int sgd = r.FindCurrency(Codes.PackCurrency("SGD"u8)), jpy = r.FindCurrency(Codes.PackCurrency("JPY"u8));
        Assert.Equal(Tolerance.Exact, r.GetTolerance(strict, sgd, Criterion.NetAmount));                       // STRICT,*
        Assert.Equal(new Tolerance(ToleranceRule.Mnmx, 10_000, 0), r.GetTolerance(strict, sgd, Criterion.Commission)); // built-in, one cent
        Assert.Equal(new Tolerance(ToleranceRule.Mnmx, Scaled.One, 0), r.GetTolerance(def, jpy, Criterion.GrossAmount)); // DEFAULT,JPY
        Assert.Equal(new Tolerance(ToleranceRule.Mnmx, Scaled.One, 0), r.GetTolerance(def, jpy, Criterion.Fees));        // built-in, one yen
        Assert.Equal(new Tolerance(ToleranceRule.Ptmx, Scaled.One / 100, 500 * Scaled.One), r.GetTolerance(def, jpy, Criterion.NetAmount));
        Assert.Equal(new Tolerance(ToleranceRule.Ptmx, Scaled.One / 100, 5 * Scaled.One), r.GetTolerance(strict, jpy, Criterion.SettlementAmount) with { });
    }

    [Fact]
    public void Tolerance_kinds_compare_as_documented()
    {
        var mnmx = new Tolerance(ToleranceRule.Mnmx, 10_000, 0);
        Assert.True(mnmx.Accepts(1_010_000, 1_000_000));
        Assert.False(mnmx.Accepts(1_010_001, 1_000_000));
        var ptol = new Tolerance(ToleranceRule.Ptol, Scaled.One, 0); // 1 %
        Assert.True(ptol.Accepts(101 * Scaled.One, 100 * Scaled.One));
        Assert.False(ptol.Accepts(101 * Scaled.One + 1, 100 * Scaled.One));
        var ptmx = new Tolerance(ToleranceRule.Ptmx, Scaled.One, 5 * Scaled.One); // 1 % capped at 5
        Assert.True(ptmx.Accepts(101 * Scaled.One, 100 * Scaled.One));      // 1 within 1
        Assert.True(ptmx.Accepts(10_005 * Scaled.One, 10_000 * Scaled.One)); // 5 within min(100, 5)
        Assert.False(ptmx.Accepts(10_006 * Scaled.One, 10_000 * Scaled.One));
        Assert.True(Tolerance.Exact.Accepts(5, 5));
        Assert.False(Tolerance.Exact.Accepts(5, 6));
    }

    [Fact]
    public void Strict_profile_applies_to_its_managers_trades()
    {
        // IM2 (STRICT: NET exact). Its NPR's stated net one cent off the recomputed one is refused.
        var npr = Trades.Read(ContractExamples.Get("NPR-A"));
        npr.InvestmentManager.TrySet("IM2"u8);
        npr.Account.TrySet("ACC-C"u8);
        npr.Net += 10_000;
        npr.SettlAmount += 10_000;
        var matcher = Demo.NewMatcher();
        var sink = new RecordingSink();
        matcher.Process(in npr, ref sink);
        Assert.Equal(Criterion.NetAmount, sink.LastAck.Criterion);
        Assert.Equal(ToleranceRule.Exct, sink.Exceptions[^1].Tolerance.Rule);
    }

    [Theory]
    [InlineData("securities.csv", "isin,currency,asset_class,price_decimals\nSG1T75931497,SGD,EQ,3\n", "check digit")]
    [InlineData("securities.csv", "isin,currency,asset_class,price_decimals\nSG1T75931496,ZZZ,EQ,3\n", "currency ZZZ")]
    [InlineData("accounts.csv", "account,investment_manager\nACC-X,EB1\n", "not an investment manager")]
    [InlineData("calendars.csv", "currency,date\nSGD,20261341\n", "holiday")]
    [InlineData("tolerances.csv", "profile,currency,criterion,rule,value,cap\nDEFAULT,*,SIDE,EXCT,,\n", "criterion")]
    [InlineData("participants.csv", "id,roles,profile\nIM1,XX,\n", "roles")]
    public void The_loader_refuses_bad_rows_with_file_and_line(string file, string content, string reason)
    {
        string dir = Path.Combine(Path.GetTempPath(), "rapidfix-matching-" + Guid.NewGuid().ToString("N"));
        Directory.CreateDirectory(dir);
        try
        {
            foreach (var f in Directory.GetFiles(Demo.Directory))
            {
                File.Copy(f, Path.Combine(dir, Path.GetFileName(f)));
            }

            File.WriteAllText(Path.Combine(dir, file), content);
            var e = Assert.Throws<InvalidDataException>(() => ReferenceData.Load(dir));
            Assert.Contains(file + ":2", e.Message, StringComparison.Ordinal);
            Assert.Contains(reason, e.Message, StringComparison.Ordinal);
        }
        finally
        {
            Directory.Delete(dir, true);
        }
    }

    [Fact]
    public void A_missing_required_file_stops_the_load()
    {
        string dir = Path.Combine(Path.GetTempPath(), "rapidfix-matching-" + Guid.NewGuid().ToString("N"));
        Directory.CreateDirectory(dir);
        try
        {
            Assert.Throws<FileNotFoundException>(() => ReferenceData.Load(dir));
        }
        finally
        {
            Directory.Delete(dir, true);
        }
    }
}
