using RapidFix.AcceptanceRunner.Hosting;
using RapidFix.AcceptanceRunner.Running;
using RapidFix.AcceptanceRunner.Scripts;
using RapidFix.Engine.Configuration;

namespace RapidFix.AcceptanceRunner.Tests;

public sealed class RunnerCommandLineTests : IDisposable
{
    private const string Heartbeat = "iCONNECT\nI8=FIX.4.2|35=0|34=1|49=TW|52=<TIME>|56=ISLD|\nE8=FIX.4.2|9=49|35=0|34=1|49=ISLD|52=00000000-00:00:00.000|56=TW|10=0|\niDISCONNECT\n";
    private readonly string _directory = Path.Combine(Path.GetTempPath(), "rapidfix-at-" + Guid.NewGuid().ToString("N"));

    public RunnerCommandLineTests() => Directory.CreateDirectory(_directory);

    public void Dispose() => Directory.Delete(_directory, recursive: true);

    private string WriteScript(string name, string text, string? folder = null)
    {
        string dir = folder is null ? _directory : Path.Combine(_directory, folder);
        Directory.CreateDirectory(dir);
        string path = Path.Combine(dir, name + ".def");
        File.WriteAllText(path, text.Replace('|', FixTemplate.Soh));
        return path;
    }

    /// <summary>Answers each heartbeat with a heartbeat of sequence number <paramref name="seq"/>.</summary>
    private static FakeAcceptor HeartbeatEcho(int seq = 1) => new((_, side) =>
    {
        side.Read();
        side.Send($"8=FIX.4.2|35=0|34={seq}|49=ISLD|52={FakeSide.Now}|56=TW|");
        side.WaitForClose();
    });

    private static (int Exit, string[] Output, string Error) Run(IInProcessAcceptorFactory factory, params string[] args)
    {
        var output = new StringWriter();
        var error = new StringWriter();
        int exit = RunnerCommandLine.Run(args, output, error, factory);
        return (exit, output.ToString().Split(Environment.NewLine, StringSplitOptions.RemoveEmptyEntries), error.ToString());
    }

    private static readonly IInProcessAcceptorFactory Unavailable = new UnavailableAcceptorFactory(
        "the in-process RapidFix acceptor is not available yet (a test double); run against an engine with --host H --port P");

    [Fact]
    public void All_scripts_passing_prints_one_line_each_and_the_totals_and_exits_zero()
    {
        WriteScript("a_first", Heartbeat);
        WriteScript("b_second", Heartbeat);
        using var acceptor = HeartbeatEcho();

        var (exit, output, error) = Run(Unavailable, _directory, "--host", "127.0.0.1", "--port", acceptor.Port.ToString(System.Globalization.CultureInfo.InvariantCulture), "--pause-ms", "0");

        Assert.Equal(RunnerCommandLine.ExitPassed, exit);
        Assert.Equal(["PASS a_first", "PASS b_second", "2 passed, 0 failed"], output);
        Assert.Equal("", error);
    }

    [Fact]
    public void A_failure_is_reported_with_line_expected_and_received_and_exits_non_zero()
    {
        WriteScript("a_fails", Heartbeat.Replace("34=1|49=ISLD", "34=2|49=ISLD", StringComparison.Ordinal));
        WriteScript("b_passes", Heartbeat);
        using var acceptor = HeartbeatEcho();

        var (exit, output, _) = Run(Unavailable, _directory, "--host", "127.0.0.1", "--port", acceptor.Port.ToString(System.Globalization.CultureInfo.InvariantCulture), "--timeout", "2");

        Assert.Equal(RunnerCommandLine.ExitFailed, exit);
        Assert.Equal(3, output.Length);
        Assert.StartsWith("FAIL a_fails: line 3: field 34: expected '2' but received '1'; expected 8=FIX.4.2|9=49|35=0|34=2|", output[0], StringComparison.Ordinal);
        Assert.Contains("; received 8=FIX.4.2|9=49|35=0|34=1|49=ISLD|52=", output[0], StringComparison.Ordinal);
        Assert.Equal("PASS b_passes", output[1]);
        Assert.Equal("1 passed, 1 failed", output[2]);
    }

    [Fact]
    public void Filter_selects_scripts_by_name()
    {
        WriteScript("keep_this", Heartbeat);
        WriteScript("skip_that", Heartbeat);
        using var acceptor = HeartbeatEcho();

        var (exit, output, _) = Run(Unavailable, _directory, "--host", "127.0.0.1", "--port", acceptor.Port.ToString(System.Globalization.CultureInfo.InvariantCulture), "--filter", "keep");

        Assert.Equal(0, exit);
        Assert.Equal(["PASS keep_this", "1 passed, 0 failed"], output);
    }

    [Theory]
    [InlineData(new string[0], "no scripts folder given")]
    [InlineData(new[] { "dir", "--host", "h" }, "--host and --port go together")]
    [InlineData(new[] { "dir", "--port", "99999", "--host", "h" }, "--port: '99999'")]
    [InlineData(new[] { "dir", "--host", "h", "--port", "1", "--config", "x.cfg" }, "cannot be combined")]
    [InlineData(new[] { "dir", "--verbose" }, "unknown option --verbose")]
    [InlineData(new[] { "dir", "--timeout", "-1" }, "--timeout: '-1'")]
    public void Usage_errors_exit_with_two_and_explain(string[] args, string message)
    {
        var (exit, output, error) = Run(Unavailable, args);

        Assert.Equal(RunnerCommandLine.ExitError, exit);
        Assert.Empty(output);
        Assert.Contains(message, error, StringComparison.Ordinal);
        Assert.Contains("usage: AcceptanceRunner", error, StringComparison.Ordinal);
    }

    [Fact]
    public void An_unavailable_in_process_acceptor_is_reported_with_the_way_out()
    {
        WriteScript("a", Heartbeat);

        var (exit, output, error) = Run(Unavailable, _directory);

        Assert.Equal(RunnerCommandLine.ExitError, exit);
        Assert.Empty(output);
        Assert.Contains("in-process RapidFix acceptor is not available yet", error, StringComparison.Ordinal);
        Assert.Contains("--host H --port P", error, StringComparison.Ordinal);
    }

    [Fact]
    public void A_folder_of_folders_names_the_folders_to_choose_from()
    {
        WriteScript("a", Heartbeat, "fix42");
        WriteScript("b", Heartbeat, "fix44");

        var (exit, _, error) = Run(Unavailable, _directory, "--host", "h", "--port", "1");

        Assert.Equal(RunnerCommandLine.ExitError, exit);
        Assert.Contains("its folders fix42, fix44 hold scripts", error, StringComparison.Ordinal);
    }

    [Fact]
    public void A_script_that_cannot_be_parsed_fails_alone_with_its_line_and_the_others_still_run()
    {
        WriteScript("a_good", Heartbeat);
        WriteScript("b_bad", "# a comment\neach line below is checked\n" + Heartbeat);
        WriteScript("c_good", Heartbeat);
        using var acceptor = HeartbeatEcho();

        var (exit, output, error) = Run(Unavailable, _directory, "--host", "127.0.0.1", "--port", acceptor.Port.ToString(System.Globalization.CultureInfo.InvariantCulture), "--pause-ms", "0");

        Assert.Equal(RunnerCommandLine.ExitFailed, exit);
        Assert.Equal(["PASS a_good", "FAIL b_bad: line 2: cannot parse the script: 'each line below is checked' is neither CONNECT nor DISCONNECT", "PASS c_good", "2 passed, 1 failed"], output);
        Assert.Equal("", error);
    }

    [Fact]
    public void Only_unparsable_scripts_fail_without_starting_an_acceptor()
    {
        WriteScript("bad", "iCONNECT\nZ8=FIX.4.2|\n");
        var factory = new FakeFactory();

        var (exit, output, _) = Run(factory, _directory);

        Assert.Equal(RunnerCommandLine.ExitFailed, exit);
        Assert.Equal(["FAIL bad: line 2: cannot parse the script: 'Z8=FIX.4.2\u0001' starts with neither I, E, i, e, sleep nor #", "0 passed, 1 failed"], output);
        Assert.Empty(factory.Started);
    }

    [Fact]
    public void A_settings_conflict_quickfixj_accepts_is_a_warning_and_the_scripts_run_on_the_engine()
    {
        WriteScript("connect", "iCONNECT\niDISCONNECT\n");
        string config = Path.Combine(_directory, "nonstop.cfg");
        File.WriteAllText(config, "[DEFAULT]\nConnectionType=acceptor\nSocketAcceptHost=127.0.0.1\nSocketAcceptPort=0\nSenderCompID=ISLD\nTargetCompID=TW\nStoreType=express\nNonStopSession=Y\nStartTime=00:00:00\nEndTime=00:00:00\n[SESSION]\nBeginString=FIX.4.2\n");

        var (exit, output, error) = Run(new EngineAcceptorFactory(), _directory, "--config", config);

        Assert.Equal(RunnerCommandLine.ExitPassed, exit);
        Assert.Equal(["PASS connect", "1 passed, 0 failed"], output);
        Assert.Contains("nonstop.cfg(9): warning OverriddenKey in [DEFAULT]: 'StartTime' has no effect: NonStopSession=Y", error, StringComparison.Ordinal);
    }

    [Fact]
    public void Settings_the_engine_refuses_at_start_are_one_line_without_a_stack_trace()
    {
        WriteScript("connect", "iCONNECT\niDISCONNECT\n");
        string config = Path.Combine(_directory, "bad.cfg");
        File.WriteAllText(config, "[DEFAULT]\nConnectionType=acceptor\nSocketAcceptHost=127.0.0.1\nSocketAcceptPort=0\nSenderCompID=ISLD\nTargetCompID=TW\nStoreType=express\nStartTime=00:00:00\nEndTime=00:00:00\nEnableNextExpectedMsgSeqNum=Y\n[SESSION]\nBeginString=FIX.4.2\n");

        var (exit, output, error) = Run(new EngineAcceptorFactory(), _directory, "--config", config);

        Assert.Equal(RunnerCommandLine.ExitError, exit);
        Assert.Empty(output);
        string line = Assert.Single(error.Split(Environment.NewLine, StringSplitOptions.RemoveEmptyEntries));
        Assert.StartsWith("Cannot start the acceptor: ", line, StringComparison.Ordinal);
        Assert.Contains("EnableNextExpectedMsgSeqNum", line, StringComparison.Ordinal);
    }

    /// <summary>Stands in for the engine behind the seam: starts a fake acceptor and records the settings it got.</summary>
    private sealed class FakeFactory(int seq = 1) : IInProcessAcceptorFactory
    {
        public List<SettingsFile> Started { get; } = [];

        public string? UnavailableReason => null;

        public IInProcessAcceptor Start(SettingsFile settings)
        {
            Started.Add(settings);
            return new RunningAcceptor(HeartbeatEcho(seq));
        }

        private sealed class RunningAcceptor(FakeAcceptor acceptor) : IInProcessAcceptor
        {
            public string Host => "127.0.0.1";

            public int Port => acceptor.Port;

            public void Dispose() => acceptor.Dispose();
        }
    }

    [Fact]
    public void The_default_mode_starts_an_acceptor_per_script_configured_for_the_inferred_version()
    {
        WriteScript("a", Heartbeat);
        WriteScript("b", Heartbeat);
        var factory = new FakeFactory();

        var (exit, output, _) = Run(factory, _directory);

        Assert.Equal(0, exit);
        Assert.Equal(["PASS a", "PASS b", "2 passed, 0 failed"], output);
        Assert.Equal(2, factory.Started.Count);
        var session = Assert.Single(factory.Started[0].Sessions);
        Assert.Equal(new SessionId("FIX.4.2", "ISLD", "TW"), session.SessionId);
        Assert.True(session.IsAcceptor);
        Assert.Equal(0, session.GetInt(SettingKeys.SocketAcceptPort));
        Assert.True(session.GetBool(SettingKeys.ResetOnLogon));
        Assert.EndsWith("FIX42.xml", session.GetString(SettingKeys.DataDictionary), StringComparison.Ordinal);
    }

    [Fact]
    public void Config_mode_hands_the_settings_file_to_the_acceptor()
    {
        WriteScript("a", Heartbeat);
        string config = Path.Combine(_directory, "acceptor.cfg");
        File.WriteAllText(config, "[DEFAULT]\nConnectionType=acceptor\nSocketAcceptPort=0\nSenderCompID=ISLD\nTargetCompID=TW\nSenderSubID=DESK\nStartTime=00:00:00\nEndTime=00:00:00\n[SESSION]\nBeginString=FIX.4.2\n");
        var factory = new FakeFactory();

        var (exit, _, _) = Run(factory, _directory, "--config", config);

        Assert.Equal(0, exit);
        Assert.Equal("DESK", Assert.Single(factory.Started).Sessions[0].SessionId.SenderSubId);
    }

    [Fact]
    public void Scripts_of_several_fix_versions_cannot_share_an_inferred_acceptor()
    {
        WriteScript("a", Heartbeat);
        WriteScript("b", Heartbeat.Replace("FIX.4.2", "FIX.4.4", StringComparison.Ordinal));

        var (exit, _, error) = Run(new FakeFactory(), _directory);

        Assert.Equal(RunnerCommandLine.ExitError, exit);
        Assert.Contains("several FIX versions (FIX.4.2, FIX.4.4)", error, StringComparison.Ordinal);
    }
}
