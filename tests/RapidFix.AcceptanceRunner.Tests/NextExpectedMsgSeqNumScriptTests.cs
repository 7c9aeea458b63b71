using RapidFix.AcceptanceRunner.Hosting;
using RapidFix.AcceptanceRunner.Running;

namespace RapidFix.AcceptanceRunner.Tests;

/// <summary>
/// NextExpectedMsgSeqNum(789) on the wire, scripted like the QuickFIX acceptance suite (which has no such scripts):
/// Scripts/next-expected, run against a RapidFix acceptor with EnableNextExpectedMsgSeqNum=Y. Each script checks
/// the exact messages, so an unexpected ResendRequest or a wrong 789 fails it.
/// </summary>
[Collection(nameof(ConformanceSuite))]
public sealed class NextExpectedMsgSeqNumScriptTests
{
    private static readonly string Folder = Path.Combine(AppContext.BaseDirectory, "Scripts", "next-expected");

    [Fact]
    public void Every_next_expected_script_passes()
    {
        var output = new StringWriter();
        var error = new StringWriter();
        int exit = RunnerCommandLine.Run([Folder, "--config", Path.Combine(Folder, "next-expected.cfg")], output, error, new EngineAcceptorFactory());
        var lines = output.ToString().Split(Environment.NewLine, StringSplitOptions.RemoveEmptyEntries);
        Assert.True(exit == RunnerCommandLine.ExitPassed, output + Environment.NewLine + error);
        Assert.Equal($"{Directory.GetFiles(Folder, "*.def").Length} passed, 0 failed", lines[^1]);
    }
}
