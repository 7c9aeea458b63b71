using System.Text.RegularExpressions;
using RapidFix.AcceptanceRunner.Hosting;
using RapidFix.AcceptanceRunner.Running;
using RapidFix.Tests.Shared;

namespace RapidFix.AcceptanceRunner.Tests;

/// <summary>
/// The QuickFIX session-level acceptance suite against a RapidFix acceptor started in this process, through the
/// same code as <c>dotnet run --project tools/AcceptanceRunner</c>: every script of every folder must pass.
/// </summary>
[Collection(nameof(ConformanceSuite))]
public sealed class ConformanceTests
{
    [SharedDataTheory]
    [InlineData("fix42")]
    [InlineData("fix44")]
    [InlineData("fix50sp2")]
    public void Every_script_of_a_version_passes(string folder)
    {
        var (exit, output) = Run(SharedData.PathOf("fix", "acceptance", folder));
        Assert.True(exit == RunnerCommandLine.ExitPassed, string.Join(Environment.NewLine, output.Where(l => !l.StartsWith("PASS", StringComparison.Ordinal))));
        Assert.Matches(@"^\d+ passed, 0 failed$", output[^1]);
        Assert.Equal(Directory.GetFiles(SharedData.PathOf("fix", "acceptance", folder), "*.def").Length, int.Parse(output[^1].Split(' ')[0], System.Globalization.CultureInfo.InvariantCulture));
    }

    [SharedDataFact]
    public void The_misc_scripts_pass_with_their_settings_file()
    {
        // at_42.misc.cfg as given, but on a free port and with its journal in a temporary folder, so that parallel
        // runs (one per target framework) do not collide.
        string directory = Path.Combine(Path.GetTempPath(), "rapidfix-misc-" + Guid.NewGuid().ToString("N"));
        Directory.CreateDirectory(directory);
        try
        {
            string original = File.ReadAllText(SharedData.PathOf("fix", "acceptance", "at_42.misc.cfg"));
            string config = Regex.Replace(original, @"SocketAcceptPort=\d+", "SocketAcceptPort=0");
            config = Regex.Replace(config, @"FileStorePath=\S+", "FileStorePath=" + Path.Combine(directory, "store"));
            string configPath = Path.Combine(directory, "at_42.misc.cfg");
            File.WriteAllText(configPath, config);

            // FIX42TestRequest waits 2.4 heartbeat intervals (72 s) for the engine's timeout logout.
            var (exit, output) = Run(SharedData.PathOf("fix", "acceptance", "misc"), "--config", configPath, "--timeout", "90");
            Assert.True(exit == RunnerCommandLine.ExitPassed, string.Join(Environment.NewLine, output));
            Assert.Equal("5 passed, 0 failed", output[^1]);
        }
        finally
        {
            Directory.Delete(directory, recursive: true);
        }
    }

    private static (int Exit, string[] Output) Run(params string[] args)
    {
        var output = new StringWriter();
        var error = new StringWriter();
        int exit = RunnerCommandLine.Run(args, output, error, new EngineAcceptorFactory());
        var lines = output.ToString().Split(Environment.NewLine, StringSplitOptions.RemoveEmptyEntries);
        return (exit, lines.Length == 0 ? [error.ToString()] : lines);
    }
}

/// <summary>The conformance scripts measure timeouts in seconds: they run one folder at a time, not beside each other.</summary>
[CollectionDefinition(nameof(ConformanceSuite), DisableParallelization = true)]
public sealed class ConformanceSuite
{
}
