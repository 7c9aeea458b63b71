using System.Globalization;
using RapidFix.Persister;
using Xunit;

namespace RapidFix.Persistence.Tests;

/// <summary>The whole-path scenario's service command line holds the sets it is given (the degradation run's 1,000,000 trades).</summary>
public sealed class ServiceScenarioTests
{
    /// <summary>The matching service's own default for <c>--max-inputs</c> (src/MatchingService, ServiceOptions.MaxInputs).</summary>
    private const int ServiceDefaultMaxInputs = 4_000_000;

    [Theory]
    [InlineData(7_000)]
    [InlineData(7_171_588)] // 1,000,000 generated trades: the degradation run, refused from the 4,000,000th input before
    [InlineData(20_000_000)]
    public void The_service_journal_holds_every_input_of_the_set(int messages)
    {
        string[] arguments = ServiceScenario.ServiceArguments("/work", "/work/data", messages, 5010);

        int index = Array.IndexOf(arguments, "--max-inputs");
        int maxInputs = index < 0 ? ServiceDefaultMaxInputs : int.Parse(arguments[index + 1], CultureInfo.InvariantCulture);
        Assert.True(maxInputs >= messages, $"the service would refuse inputs past {maxInputs:N0} of a set of {messages:N0}");
    }

    [Fact]
    public void A_large_set_gets_a_journal_window_that_rides_out_seconds_of_slow_disk()
    {
        const int messages = 7_171_588; // 1,000,000 trades
        string[] arguments = ServiceScenario.ServiceArguments("/work", "/work/data", messages, 5010);

        int index = Array.IndexOf(arguments, "--journal-bytes");
        long window = index < 0 ? 64 << 20 : long.Parse(arguments[index + 1], CultureInfo.InvariantCulture);
        // About 10 s of the unpaced send (about 50,000 inputs/s of about 220 bytes): the default 64 MiB holds under 6 s.
        Assert.True(window >= 10L * 50_000 * 220, $"a {window:N0}-byte window holds under 10 s of the send");
        Assert.True(window <= 512L << 20);
    }

    [Theory]
    [InlineData(70_000)]
    [InlineData(7_171_588)] // 1,000,000 trades: 7.4 % of them stay open until they expire; 65,536 ran out at trade 886,626
    public void The_open_trade_table_holds_the_trades_that_stay_open_until_they_expire(int messages)
    {
        string[] arguments = ServiceScenario.ServiceArguments("/work", "/work/data", messages, 5010);

        int index = Array.IndexOf(arguments, "--open-trades");
        int openTrades = index < 0 ? 65_536 : int.Parse(arguments[index + 1], CultureInfo.InvariantCulture);
        int trades = messages / 7;
        Assert.True(openTrades >= trades / 10, $"{openTrades:N0} open trades for a set of {trades:N0} trades, 7.4 % of which stay open");
    }
}
