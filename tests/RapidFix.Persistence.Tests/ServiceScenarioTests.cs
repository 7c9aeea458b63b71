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
}
