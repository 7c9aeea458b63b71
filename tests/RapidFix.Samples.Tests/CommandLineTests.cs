using System.Net;
using System.Net.Sockets;

namespace RapidFix.Samples.Tests;

/// <summary>
/// Every sample and the fuzzing tool as a user runs them: <c>--help</c> works, a bad number is one clear line and a
/// non-zero exit code, and what the machine refuses (a journal in use, a port nobody listens on) is one line, never a
/// stack trace or a Windows error code.
/// </summary>
public sealed class CommandLineTests : IDisposable
{
    private static readonly TimeSpan Quick = TimeSpan.FromMinutes(2);
    private readonly string _directory = Directory.CreateTempSubdirectory("rapidfix-samples-").FullName;

    public static TheoryData<string, string, string> Programs_ => new()
    {
        { "samples/Acceptor", "RapidFix.Samples.Acceptor", "--quiet" },
        { "samples/Initiator", "RapidFix.Samples.Initiator", "--orders" },
        { "samples/FixLoad", "FixLoad", "--rate" },
        { "samples/FixReplay", "FixReplay", "--dictionary" },
        { "samples/FastDecode", "FastDecode", "--framing" },
        { "tools/Fuzz", "RapidFix.Fuzz", "--cases" },
        { "tools/TradeDriver", "RapidFix.TradeDriver", "run" },
        { "tools/Persister", "RapidFix.Persister", "migrate" },
    };

    [Theory]
    [MemberData(nameof(Programs_))]
    public void Help_lists_the_options_and_exits_with_zero(string folder, string assembly, string option)
    {
        var (exit, output, error) = ChildProcess.Run(Programs.Dll(folder, assembly), Quick, "--help");

        Assert.True(exit == 0, $"exit {exit}\n{output}\n{error}");
        Assert.Contains("Usage:", output, StringComparison.Ordinal);
        Assert.Contains(option, output, StringComparison.Ordinal);
        Assert.Empty(error);
    }

    [Theory]
    [InlineData("samples/Initiator", "RapidFix.Samples.Initiator", new[] { "--orders", "many" }, "many")]
    [InlineData("samples/Initiator", "RapidFix.Samples.Initiator", new[] { "--interval-ms", "-5" }, "--interval-ms must be at least 0")]
    [InlineData("samples/FixLoad", "FixLoad", new[] { "--rate", "10k" }, "10k")]
    [InlineData("samples/FixLoad", "FixLoad", new[] { "--seconds", "0" }, "--seconds needs a positive number")]
    [InlineData("samples/FixReplay", "FixReplay", new[] { "--seconds", "five" }, "five")]
    [InlineData("samples/FixReplay", "FixReplay", new[] { "--dictionary", "FIX99" }, "neither a file nor a built-in dictionary")]
    [InlineData("samples/FastDecode", "FastDecode", new[] { "--framing", "zip", "x.dat" }, "zip")]
    [InlineData("samples/Acceptor", "RapidFix.Samples.Acceptor", new[] { "--verbose" }, "--verbose")]
    [InlineData("tools/Fuzz", "RapidFix.Fuzz", new[] { "fix", "--cases", "lots" }, "lots")]
    [InlineData("tools/Fuzz", "RapidFix.Fuzz", new[] { "fix", "--case-ms", "0" }, "--case-ms must be at least 1")]
    public void A_bad_argument_is_one_clear_error_and_exit_code_two(string folder, string assembly, string[] args, string expected)
    {
        var (exit, output, error) = ChildProcess.Run(Programs.Dll(folder, assembly), Quick, args);

        Assert.True(exit == 2, $"exit {exit}\n{output}\n{error}");
        Assert.Contains(expected, error, StringComparison.Ordinal);
        Assert.Contains("--help", error, StringComparison.Ordinal);
        AssertNoStackTrace(output + error);
    }

    [Fact]
    public void A_missing_settings_file_is_one_line_and_exit_code_two()
    {
        string missing = Path.Combine(_directory, "nowhere.cfg");

        var (exit, output, error) = ChildProcess.Run(Programs.Dll("samples/Acceptor", "RapidFix.Samples.Acceptor"), Quick, missing);

        Assert.True(exit == 2, $"exit {exit}\n{output}\n{error}");
        Assert.Contains("nowhere.cfg", error, StringComparison.Ordinal);
        Assert.Single(error.Split('\n', StringSplitOptions.RemoveEmptyEntries));
        AssertNoStackTrace(output + error);
    }

    [Fact]
    public void A_journal_in_use_by_another_acceptor_is_one_line_and_exit_code_two()
    {
        string settings = Path.Combine(_directory, "acceptor.cfg");
        File.WriteAllText(settings, $"""
            [DEFAULT]
            ConnectionType=acceptor
            SocketAcceptHost=127.0.0.1
            SocketAcceptPort={FreePort()}
            NonStopSession=Y
            FileStorePath={Path.Combine(_directory, "store")}
            [SESSION]
            BeginString=FIX.4.4
            SenderCompID=EXEC
            TargetCompID=CLIENT
            """);
        string acceptor = Programs.Dll("samples/Acceptor", "RapidFix.Samples.Acceptor");
        using var first = ChildProcess.StartProgram(acceptor, settings, "--quiet");
        Assert.True(first.WaitForOutput("acceptor listening", Quick), $"the first acceptor did not start\n{first.Output}\n{first.Error}");

        var (exit, output, error) = ChildProcess.Run(acceptor, Quick, settings, "--quiet");

        Assert.True(exit == 2, $"exit {exit}\n{output}\n{error}");
        string line = Assert.Single(error.Split('\n', StringSplitOptions.RemoveEmptyEntries));
        Assert.StartsWith("acceptor: ", line, StringComparison.Ordinal);
        Assert.Contains("in use by another process", line, StringComparison.Ordinal);
        AssertNoStackTrace(output + error);
    }

    [Fact]
    public void A_refused_connection_is_named_not_numbered_and_the_initiator_gives_up_with_one_line()
    {
        int port = FreePort(); // nothing listens there
        string settings = Path.Combine(_directory, "initiator.cfg");
        File.WriteAllText(settings, $"""
            [DEFAULT]
            ConnectionType=initiator
            SocketConnectHost=127.0.0.1
            SocketConnectPort={port}
            ReconnectInterval=1
            HeartBtInt=30
            NonStopSession=Y
            [SESSION]
            BeginString=FIX.4.4
            SenderCompID=CLIENT
            TargetCompID=EXEC
            """);

        var (exit, output, error) = ChildProcess.Run(Programs.Dll("samples/Initiator", "RapidFix.Samples.Initiator"), Quick, settings, "--logon-timeout", "3");

        Assert.True(exit == 1, $"exit {exit}\n{output}\n{error}");
        Assert.Contains("connection attempt failed: refused, nothing listens at that address", output, StringComparison.Ordinal);
        Assert.DoesNotContain("10061", output, StringComparison.Ordinal);
        string line = Assert.Single(error.Split('\n', StringSplitOptions.RemoveEmptyEntries));
        Assert.Contains($"could not log on to 127.0.0.1:{port} within 3 s", line, StringComparison.Ordinal);
        AssertNoStackTrace(output + error);
    }

    public void Dispose()
    {
        try
        {
            Directory.Delete(_directory, recursive: true);
        }
        catch (IOException)
        {
            // a child still closing its files: the temp folder is cleaned by the machine
        }
    }

    private static void AssertNoStackTrace(string text)
    {
        Assert.DoesNotContain("   at ", text, StringComparison.Ordinal);
        Assert.DoesNotContain("Unhandled exception", text, StringComparison.Ordinal);
    }

    private static int FreePort()
    {
        using var listener = new TcpListener(IPAddress.Loopback, 0);
        listener.Start();
        return ((IPEndPoint)listener.LocalEndpoint).Port;
    }
}
