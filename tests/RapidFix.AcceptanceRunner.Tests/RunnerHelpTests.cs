using RapidFix.AcceptanceRunner.Hosting;
using RapidFix.AcceptanceRunner.Running;

namespace RapidFix.AcceptanceRunner.Tests;

/// <summary>The runner's command line as System.CommandLine parses it: help, and numbers it cannot read.</summary>
public sealed class RunnerHelpTests
{
    private static readonly IInProcessAcceptorFactory Unavailable = new UnavailableAcceptorFactory("not used by these tests");

    [Theory]
    [InlineData("--help")]
    [InlineData("-h")]
    [InlineData("-?")]
    public void Help_lists_the_options_and_exits_with_zero(string help)
    {
        var output = new StringWriter();
        var error = new StringWriter();

        int exit = RunnerCommandLine.Run([help], output, error, Unavailable);

        Assert.Equal(0, exit);
        Assert.Contains("Usage:", output.ToString(), StringComparison.Ordinal);
        foreach (var option in new[] { "--host", "--port", "--config", "--timeout", "--filter", "--pause-ms" })
        {
            Assert.Contains(option, output.ToString(), StringComparison.Ordinal);
        }

        Assert.Empty(error.ToString());
    }

    [Theory]
    [InlineData(new[] { "dir", "--host", "h", "--port", "http" }, "--port: 'http' is not a whole number")]
    [InlineData(new[] { "dir", "--pause-ms", "1.5" }, "--pause-ms: '1.5' is not a whole number")]
    [InlineData(new[] { "dir", "--timeout", "soon" }, "--timeout: 'soon' is not a positive number of seconds")]
    [InlineData(new[] { "dir", "--port" }, "--port")]
    [InlineData(new[] { "dir", "other" }, "more than one scripts path: dir and other")]
    public void A_bad_value_is_one_line_and_exit_code_two(string[] args, string message)
    {
        var output = new StringWriter();
        var error = new StringWriter();

        int exit = RunnerCommandLine.Run(args, output, error, Unavailable);

        Assert.Equal(RunnerCommandLine.ExitError, exit);
        Assert.Contains(message, error.ToString(), StringComparison.Ordinal);
        Assert.DoesNotContain("   at ", error.ToString(), StringComparison.Ordinal);
    }
}
