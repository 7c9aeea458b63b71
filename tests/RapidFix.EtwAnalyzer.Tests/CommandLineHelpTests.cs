namespace RapidFix.EtwAnalyzer.Tests;

/// <summary>The analyzer's command line as System.CommandLine parses it: help for every command, and bad numbers.</summary>
public sealed class CommandLineHelpTests
{
    [Theory]
    [InlineData("--help")]
    [InlineData("-h")]
    [InlineData("help")]
    [InlineData("collect", "--help")]
    [InlineData("analyze", "-?")]
    public void Help_prints_the_usage_and_exits_with_zero(params string[] args)
    {
        var output = new StringWriter();
        var error = new StringWriter();

        int exit = AnalyzerProgram.Run(args, output, error);

        Assert.Equal(0, exit);
        Assert.Contains("EtwAnalyzer collect --pid PID", output.ToString(), StringComparison.Ordinal);
        Assert.Empty(error.ToString());
    }

    [Theory]
    [InlineData(new[] { "collect", "--pid", "0" }, "--pid needs a process id")]
    [InlineData(new[] { "collect", "--pid", "12x" }, "--pid needs a process id")]
    [InlineData(new[] { "collect", "--pid", "7", "--duration", "long" }, "--duration needs a positive number of seconds")]
    [InlineData(new[] { "collect", "--output" }, "--output needs a file name")]
    [InlineData(new[] { "collect", "stray", "--pid", "7" }, "unknown collect option 'stray'")]
    public void A_bad_value_is_one_line_and_the_bad_input_exit_code(string[] args, string message)
    {
        var output = new StringWriter();
        var error = new StringWriter();

        int exit = AnalyzerProgram.Run(args, output, error);

        Assert.Equal(AnalyzerProgram.BadInput, exit);
        Assert.Contains(message, error.ToString(), StringComparison.Ordinal);
        Assert.Empty(output.ToString());
    }

    [Fact]
    public void The_program_after_the_double_dash_keeps_its_own_options()
    {
        var command = Assert.IsType<LaunchCommand>(AnalyzerCommandLine.Parse(["collect", "--", "app.dll", "--help", "--pid", "3"], out string? error));

        Assert.Null(error);
        Assert.Equal("app.dll", command.Program);
        Assert.Equal(["--help", "--pid", "3"], command.Arguments);
    }
}
