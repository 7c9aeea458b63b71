using RapidFix.AcceptanceRunner.Hosting;
using RapidFix.AcceptanceRunner.Scripts;
using RapidFix.Tests.Shared;

namespace RapidFix.AcceptanceRunner.Tests;

public sealed class ScriptParserTests
{
    [Fact]
    public void Every_kind_of_line_is_parsed_with_its_connection_and_line_number()
    {
        string text = "# comment\n\niCONNECT\nI8=FIX.4.2\u000135=A\u0001\nE8=FIX.4.2\u000135=A\u0001\ni2,CONNECT\nI2,8=FIX.4.2\u000135=0\u0001\nE2,8=FIX.4.2\u000135=0\u0001\nsleep(0.2)\ne2,DISCONNECT\ni1,DISCONNECT\neDISCONNECT\nI35=0\u00018=FIX.4.2\u0001\r\n";

        var script = ScriptParser.Parse(text, "/x/fix42/sample.def");

        Assert.Equal("sample", script.Name);
        Assert.Equal(
            [
                (StepKind.Connect, 3, 1), (StepKind.Send, 4, 1), (StepKind.Expect, 5, 1), (StepKind.Connect, 6, 2),
                (StepKind.Send, 7, 2), (StepKind.Expect, 8, 2), (StepKind.Sleep, 9, 1), (StepKind.ExpectDisconnect, 10, 2),
                (StepKind.Disconnect, 11, 1), (StepKind.ExpectDisconnect, 12, 1), (StepKind.Send, 13, 1),
            ],
            script.Steps.Select(s => (s.Kind, s.Line, s.Connection)).ToArray());
        Assert.Equal("8=FIX.4.2\u000135=0\u0001", script.Steps[4].Message);
        Assert.Equal(0.2, script.Steps[6].Seconds);
        Assert.Equal("35=0\u00018=FIX.4.2\u0001", script.Steps[10].Message); // "I35=..." is no connection prefix
        Assert.Equal("FIX.4.2", script.ExpectedBeginString);
        Assert.Equal("FIX.4.2", script.SentBeginString);
    }

    [Theory]
    [InlineData("X8=FIX.4.2", "starts with neither")]
    [InlineData("iFOO", "neither CONNECT nor DISCONNECT")]
    [InlineData("e1,CONNECTED", "neither CONNECT nor DISCONNECT")]
    [InlineData("sleep(soon)", "is not sleep(<seconds>)")]
    [InlineData("I", "has no message")]
    public void Unreadable_lines_are_errors_with_file_and_line(string line, string reason)
    {
        var error = Assert.Throws<ScriptParseException>(() => ScriptParser.Parse("# first\niCONNECT\n" + line + "\n", "bad.def"));

        Assert.Equal(3, error.Line);
        Assert.StartsWith("bad.def(3): ", error.Message, StringComparison.Ordinal);
        Assert.Contains(reason, error.Message, StringComparison.Ordinal);
    }

    [SharedDataFact]
    public void Every_shared_acceptance_script_parses()
    {
        string root = SharedData.PathOf("fix", "acceptance");
        var files = Directory.GetFiles(root, "*.def", SearchOption.AllDirectories);

        Assert.True(files.Length >= 190, $"only {files.Length} scripts found under {root}");
        foreach (var file in files)
        {
            var script = ScriptParser.Load(file);
            Assert.True(script.Steps.Any(s => s.Kind == StepKind.Connect), $"{file}: no connect");
            Assert.True(script.Steps.Any(s => s.Kind is StepKind.Expect or StepKind.ExpectDisconnect), $"{file}: expects nothing");
            Assert.All(script.Steps.Where(s => s.Kind is StepKind.Send or StepKind.Expect), s => Assert.False(string.IsNullOrEmpty(s.Message)));
            Assert.DoesNotContain(script.Steps, s => s.Kind == StepKind.ExpectConnect);
        }
    }

    [SharedDataTheory]
    [InlineData("fix42", "FIX.4.2")]
    [InlineData("fix44", "FIX.4.4")]
    [InlineData("fix50sp2", "FIXT.1.1")]
    [InlineData("misc", "FIX.4.2")]
    public void Each_shared_folder_uses_one_fix_version(string folder, string beginString)
    {
        var scripts = Directory.GetFiles(SharedData.PathOf("fix", "acceptance", folder), "*.def").Select(ScriptParser.Load).ToList();

        Assert.Equal(beginString, AcceptorSettings.InferBeginString(scripts));
    }
}
