namespace RapidFix.EtwAnalyzer.Tests;

/// <summary>Bad input gets one clear line and exit code 2, never a stack trace.</summary>
public sealed class BadInputTests : IDisposable
{
    private readonly string _folder = Directory.CreateTempSubdirectory("etw-bad-input-").FullName;

    public void Dispose() => Directory.Delete(_folder, recursive: true);

    private static (int Code, string Output, string Error) Run(params string[] args)
    {
        var output = new StringWriter();
        var error = new StringWriter();
        int code = AnalyzerProgram.Run(args, output, error);
        Assert.DoesNotContain("   at ", error.ToString(), StringComparison.Ordinal);
        Assert.DoesNotContain("   at ", output.ToString(), StringComparison.Ordinal);
        return (code, output.ToString(), error.ToString());
    }

    [Fact]
    public void A_missing_trace_is_named()
    {
        string path = Path.Combine(_folder, "missing.nettrace");
        var (code, _, error) = Run(path);
        Assert.Equal(2, code);
        Assert.Contains($"trace file not found: {path}", error, StringComparison.Ordinal);
    }

    [Fact]
    public void An_empty_trace_is_explained()
    {
        string path = Path.Combine(_folder, "empty.nettrace");
        File.WriteAllBytes(path, []);
        var (code, _, error) = Run(path);
        Assert.Equal(2, code);
        Assert.Contains("trace file is empty", error, StringComparison.Ordinal);
    }

    [Fact]
    public void A_file_that_is_not_a_trace_is_refused()
    {
        string path = Path.Combine(_folder, "notes.nettrace");
        File.WriteAllText(path, "these are not the events you are looking for");
        var (code, _, error) = Run(path);
        Assert.Equal(2, code);
        Assert.Contains("is not an EventPipe trace", error, StringComparison.Ordinal);
    }

    [Fact]
    public void A_directory_or_an_unknown_format_is_refused()
    {
        Assert.Contains("is a directory", Run(_folder).Error, StringComparison.Ordinal);
        string csv = Path.Combine(_folder, "data.csv");
        File.WriteAllText(csv, "a,b");
        var (code, _, error) = Run(csv);
        Assert.Equal(2, code);
        Assert.Contains("unknown trace format '.csv'", error, StringComparison.Ordinal);
    }

    [Fact]
    public void A_usage_mistake_prints_the_usage()
    {
        var (code, _, error) = Run("trace.nettrace", "--frobnicate");
        Assert.Equal(2, code);
        Assert.Contains("unknown option '--frobnicate'", error, StringComparison.Ordinal);
        Assert.Contains("usage:", error, StringComparison.Ordinal);
    }

    [Fact]
    public void Launching_a_missing_program_is_a_clear_error()
    {
        var (code, _, error) = Run("collect", "--output", Path.Combine(_folder, "t.nettrace"), "--", Path.Combine(_folder, "nothing.dll"));
        Assert.Equal(2, code);
        Assert.Contains("program not found", error, StringComparison.Ordinal);
    }

    [Fact]
    public void Attaching_to_a_missing_process_is_a_clear_error()
    {
        var (code, _, error) = Run("collect", "--pid", "999999999", "--output", Path.Combine(_folder, "t.nettrace"));
        Assert.Equal(2, code);
        Assert.Contains("no process with id 999999999", error, StringComparison.Ordinal);
    }
}
