using RapidFix.AcceptanceRunner.Running;
using RapidFix.AcceptanceRunner.Scripts;

namespace RapidFix.AcceptanceRunner.Tests;

public sealed class ScriptRunnerTests
{
    private static readonly TimeSpan ShortTimeout = TimeSpan.FromSeconds(1.5);

    private const string LogonLogout = """
        # logon and logout
        iCONNECT
        I8=FIX.4.2|35=A|34=1|49=TW|52=<TIME>|56=ISLD|98=0|108=30|
        E8=FIX.4.2|9=61|35=A|34=1|49=ISLD|52=00000000-00:00:00.000|56=TW|98=0|108=30|10=0|
        I8=FIX.4.2|35=5|34=2|49=TW|52=<TIME>|56=ISLD|
        E8=FIX.4.2|9=49|35=5|34=2|49=ISLD|52=00000000-00:00:00.000|56=TW|10=0|
        eDISCONNECT
        """;

    private static AcceptanceScript Script(string text) => ScriptParser.Parse(text.Replace('|', FixTemplate.Soh), "/scripts/test.def");

    private static ScriptResult Run(FakeAcceptor acceptor, string script) =>
        new ScriptRunner("127.0.0.1", acceptor.Port, ShortTimeout).Run(Script(script));

    /// <summary>A correct acceptor for <see cref="LogonLogout"/>, with logon reply sequence number <paramref name="logonSeq"/>.</summary>
    private static void CorrectSession(FakeSide side, int logonSeq = 1, string sendingTime = "")
    {
        side.Read();
        side.Send($"8=FIX.4.2|35=A|34={logonSeq}|49=ISLD|52={(sendingTime.Length > 0 ? sendingTime : FakeSide.Now)}|56=TW|98=0|108=30|");
        side.Read();
        side.Send($"8=FIX.4.2|35=5|34=2|49=ISLD|52={FakeSide.Now}|56=TW|");
        side.Close();
    }

    [Fact]
    public void A_script_the_acceptor_follows_passes_and_sends_complete_messages()
    {
        using var acceptor = new FakeAcceptor((_, side) => CorrectSession(side));

        var result = Run(acceptor, LogonLogout);

        Assert.True(result.Passed, result.Failure?.ToString());
        Assert.Empty(acceptor.Errors);
        var logon = acceptor.Received.First().Message;
        Assert.StartsWith("8=FIX.4.2\u00019=", logon, StringComparison.Ordinal);
        int bodyStart = logon.IndexOf('\u0001', 10) + 1;
        int checksumStart = logon.LastIndexOf("10=", StringComparison.Ordinal);
        int declared = int.Parse(logon[(logon.IndexOf("9=", StringComparison.Ordinal) + 2)..(bodyStart - 1)], System.Globalization.CultureInfo.InvariantCulture);
        Assert.Equal(checksumStart - bodyStart, declared);
        int sum = logon[..checksumStart].Sum(c => (int)c) % 256;
        Assert.Equal($"10={sum:000}\u0001", logon[checksumStart..]);
        Assert.Matches(@"\u000152=\d{8}-\d{2}:\d{2}:\d{2}\u0001", logon);
    }

    [Fact]
    public void A_wrong_field_value_fails_at_the_expecting_line_with_both_messages()
    {
        using var acceptor = new FakeAcceptor((_, side) => CorrectSession(side, logonSeq: 7));

        var result = Run(acceptor, LogonLogout);

        var failure = Assert.IsType<StepFailure>(result.Failure);
        Assert.Equal(4, failure.Line);
        Assert.Equal("field 34: expected '1' but received '7'", failure.Reason);
        Assert.Contains("\u000134=1\u0001", failure.Expected, StringComparison.Ordinal);
        Assert.Contains("\u000134=7\u0001", failure.Received, StringComparison.Ordinal);
    }

    [Fact]
    public void A_sending_time_of_the_wrong_shape_fails_even_though_it_is_a_pattern_field()
    {
        string minutes = DateTime.UtcNow.ToString("yyyyMMdd-HH:mm", System.Globalization.CultureInfo.InvariantCulture);
        using var acceptor = new FakeAcceptor((_, side) => CorrectSession(side, sendingTime: minutes));

        var result = Run(acceptor, LogonLogout.Replace("9=61", "9=54", StringComparison.Ordinal));

        Assert.Equal(4, result.Failure?.Line);
        Assert.StartsWith("field 52:", result.Failure?.Reason, StringComparison.Ordinal);
    }

    [Fact]
    public void Data_instead_of_an_expected_disconnection_fails()
    {
        using var acceptor = new FakeAcceptor((_, side) =>
        {
            side.Read();
            side.Send($"8=FIX.4.2|35=A|34=1|49=ISLD|52={FakeSide.Now}|56=TW|98=0|108=30|");
            side.Read();
            side.Send($"8=FIX.4.2|35=5|34=2|49=ISLD|52={FakeSide.Now}|56=TW|");
            side.Send($"8=FIX.4.2|35=0|34=3|49=ISLD|52={FakeSide.Now}|56=TW|");
            side.WaitForClose();
        });

        var result = Run(acceptor, LogonLogout);

        Assert.Equal(7, result.Failure?.Line);
        Assert.Equal("expected a disconnection but received a message", result.Failure?.Reason);
        Assert.Contains("\u000135=0\u0001", result.Failure?.Received, StringComparison.Ordinal);
    }

    [Fact]
    public void A_connection_left_open_fails_the_expected_disconnection_after_the_timeout()
    {
        using var acceptor = new FakeAcceptor((_, side) =>
        {
            side.Read();
            side.Send($"8=FIX.4.2|35=A|34=1|49=ISLD|52={FakeSide.Now}|56=TW|98=0|108=30|");
            side.Read();
            side.Send($"8=FIX.4.2|35=5|34=2|49=ISLD|52={FakeSide.Now}|56=TW|");
            side.WaitForClose();
        });

        var result = Run(acceptor, LogonLogout);

        Assert.Equal(7, result.Failure?.Line);
        Assert.StartsWith("the engine did not disconnect within 1.5 s", result.Failure?.Reason, StringComparison.Ordinal);
        Assert.True(result.Duration >= ShortTimeout);
    }

    [Fact]
    public void A_message_that_never_comes_fails_after_the_timeout()
    {
        using var acceptor = new FakeAcceptor((_, side) =>
        {
            side.Read();
            side.WaitForClose();
        });

        var result = Run(acceptor, LogonLogout);

        Assert.Equal(4, result.Failure?.Line);
        Assert.Equal("no message within 1.5 s", result.Failure?.Reason);
        Assert.Null(result.Failure?.Received);
        Assert.NotNull(result.Failure?.Expected);
    }

    [Fact]
    public void A_disconnection_instead_of_an_expected_message_fails()
    {
        using var acceptor = new FakeAcceptor((_, side) =>
        {
            side.Read();
            side.Close();
        });

        var result = Run(acceptor, LogonLogout);

        Assert.Equal(4, result.Failure?.Line);
        Assert.Equal("the engine closed the connection instead", result.Failure?.Reason);
    }

    [Fact]
    public void Multi_connection_scripts_route_each_step_to_its_connection()
    {
        const string script = """
            i1,CONNECT
            I1,8=FIX.4.2|35=A|34=1|49=TW|52=<TIME>|56=ISLD|98=0|108=30|
            E1,8=FIX.4.2|9=61|35=A|34=1|49=ISLD|52=00000000-00:00:00.000|56=TW|98=0|108=30|10=0|
            i2,CONNECT
            I2,8=FIX.4.2|35=A|34=1|49=TW|52=<TIME>|56=ISLD|98=0|108=30|
            e2,DISCONNECT
            I1,8=FIX.4.2|35=0|34=2|49=TW|52=<TIME>|56=ISLD|
            E1,8=FIX.4.2|9=49|35=0|34=2|49=ISLD|52=00000000-00:00:00.000|56=TW|10=0|
            i1,DISCONNECT
            """;
        using var acceptor = new FakeAcceptor((connection, side) =>
        {
            side.Read();
            if (connection == 1)
            {
                side.Send($"8=FIX.4.2|35=A|34=1|49=ISLD|52={FakeSide.Now}|56=TW|98=0|108=30|");
                side.Read();
                side.Send($"8=FIX.4.2|35=0|34=2|49=ISLD|52={FakeSide.Now}|56=TW|");
                side.WaitForClose();
            }
            else
            {
                side.Close(); // the duplicate logon is refused by disconnecting
            }
        });

        var result = Run(acceptor, script);

        Assert.True(result.Passed, result.Failure?.ToString());
        Assert.Equal([1, 2, 1], acceptor.Received.Select(r => r.Connection));
    }

    [Fact]
    public void Messages_with_length_and_checksum_go_out_byte_for_byte_and_sleep_waits()
    {
        const string garbled = "8=FIX.4.2|9=52|35=0|34=2|4garbled9=TW|52=20240101-00:00:00|56=ISLD|10=0|";
        using var acceptor = new FakeAcceptor((_, side) =>
        {
            side.Read();
            side.WaitForClose();
        });

        var started = DateTime.UtcNow;
        var result = Run(acceptor, $"iCONNECT\nI{garbled}\nsleep(0.3)\niDISCONNECT\n");

        Assert.True(result.Passed, result.Failure?.ToString());
        Assert.True(DateTime.UtcNow - started >= TimeSpan.FromSeconds(0.3));
        Assert.Equal(garbled.Replace('|', FixTemplate.Soh), acceptor.Received.Single().Message);
    }

    [Fact]
    public void Nothing_listening_fails_the_connect_step()
    {
        int port;
        using (var probe = new FakeAcceptor((_, _) => { }))
        {
            port = probe.Port;
        }

        var result = new ScriptRunner("127.0.0.1", port, ShortTimeout).Run(Script(LogonLogout));

        Assert.Equal(2, result.Failure?.Line);
        Assert.StartsWith($"cannot connect to 127.0.0.1:{port}", result.Failure?.Reason, StringComparison.Ordinal);
    }

    [Fact]
    public void Sending_on_a_connection_never_opened_fails_clearly()
    {
        using var acceptor = new FakeAcceptor((_, side) => side.WaitForClose());

        var result = Run(acceptor, "iCONNECT\nI2,8=FIX.4.2|35=0|\n");

        Assert.Equal(2, result.Failure?.Line);
        Assert.Equal("cannot send: connection 2 is not open", result.Failure?.Reason);
    }
}
