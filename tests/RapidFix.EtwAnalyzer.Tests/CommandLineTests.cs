namespace RapidFix.EtwAnalyzer.Tests;

public sealed class CommandLineTests
{
    [Fact]
    public void A_trace_alone_is_analyzed_with_files_beside_it()
    {
        var command = Assert.IsType<AnalyzeCommand>(AnalyzerCommandLine.Parse(["runs/a.nettrace"], out _));
        Assert.Equal("runs/a.nettrace", command.TracePath);
        Assert.Equal(Path.Combine(Path.GetFullPath("runs"), "a-analysis"), command.OutputDirectory);
        Assert.True(command.WriteFiles);
    }

    [Fact]
    public void Analyze_takes_an_output_folder_or_none()
    {
        var command = Assert.IsType<AnalyzeCommand>(AnalyzerCommandLine.Parse(["analyze", "t.nettrace", "--out", "o", "--no-files"], out _));
        Assert.Equal("o", command.OutputDirectory);
        Assert.False(command.WriteFiles);
    }

    [Fact]
    public void Collect_launches_a_program_with_its_arguments()
    {
        var command = Assert.IsType<LaunchCommand>(AnalyzerCommandLine.Parse(["collect", "--output", "x.nettrace", "--", "app.dll", "--seconds", "5"], out _));
        Assert.Equal("x.nettrace", command.Output);
        Assert.Equal("app.dll", command.Program);
        Assert.Equal(["--seconds", "5"], command.Arguments);
    }

    [Fact]
    public void Collect_attaches_to_a_process()
    {
        var command = Assert.IsType<AttachCommand>(AnalyzerCommandLine.Parse(["collect", "--pid", "1234", "--duration", "30"], out _));
        Assert.Equal(1234, command.ProcessId);
        Assert.Equal(TimeSpan.FromSeconds(30), command.Duration);
        Assert.Equal("trace.nettrace", command.Output);
    }

    [Theory]
    [InlineData(new string[0], "no trace file given")]
    [InlineData(new[] { "analyze" }, "no trace file given")]
    [InlineData(new[] { "a.nettrace", "b.nettrace" }, "one trace at a time")]
    [InlineData(new[] { "a.nettrace", "--bogus" }, "unknown option '--bogus'")]
    [InlineData(new[] { "a.nettrace", "--out" }, "--out needs a directory")]
    [InlineData(new[] { "collect" }, "collect needs --pid PID, or -- PROGRAM")]
    [InlineData(new[] { "collect", "--pid", "x" }, "--pid needs a process id")]
    [InlineData(new[] { "collect", "--pid", "1", "--", "a.dll" }, "either --pid or a program")]
    [InlineData(new[] { "collect", "--" }, "no program after --")]
    [InlineData(new[] { "collect", "--duration", "-1" }, "--duration needs a positive number")]
    [InlineData(new[] { "providers", "--what" }, "providers takes only --env")]
    public void Mistakes_get_a_specific_message(string[] args, string expected)
    {
        Assert.Null(AnalyzerCommandLine.Parse(args, out string? error));
        Assert.Contains(expected, error, StringComparison.Ordinal);
    }

    [Fact]
    public void Providers_name_the_runtime_and_rapidfix_and_never_the_sample_profiler()
    {
        var output = new StringWriter();
        Assert.Equal(0, AnalyzerProgram.Run(["providers", "--env", "out.nettrace"], output, TextWriter.Null));
        string text = output.ToString();
        Assert.Contains("DOTNET_EnableEventPipe=1", text, StringComparison.Ordinal);
        Assert.Contains("DOTNET_EventPipeOutputPath=out.nettrace", text, StringComparison.Ordinal);
        Assert.Contains("DOTNET_EventPipeConfig=Microsoft-Windows-DotNETRuntime:0x1000008011:5,RapidFix:0xF:5", text, StringComparison.Ordinal);
        Assert.DoesNotContain("SampleProfiler", text, StringComparison.Ordinal);
    }
}
