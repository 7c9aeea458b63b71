using System.Net;
using System.Net.Sockets;
using System.Text.RegularExpressions;

namespace RapidFix.Samples.Tests;

/// <summary>
/// <c>samples/Acceptor</c> and <c>samples/Initiator</c> together, as the README says to run them: orders written by
/// the initiator's typed writer reach the acceptor's cracker, and every order comes back as two executions (a
/// partial fill, then the rest) that the initiator reads through the typed view.
/// </summary>
public sealed class SampleTradingTests : IDisposable
{
    private static readonly TimeSpan Quick = TimeSpan.FromMinutes(2);
    private readonly string _directory = Directory.CreateTempSubdirectory("rapidfix-sample-trading-").FullName;

    [Fact]
    public void The_initiator_s_orders_are_filled_by_the_acceptor_in_two_executions_each()
    {
        int port = FreePort();
        string acceptorSettings = Write("acceptor.cfg", $"""
            [DEFAULT]
            ConnectionType=acceptor
            SocketAcceptHost=127.0.0.1
            SocketAcceptPort={port}
            NonStopSession=Y
            [SESSION]
            BeginString=FIX.4.4
            SenderCompID=EXEC
            TargetCompID=CLIENT
            """);
        string initiatorSettings = Write("initiator.cfg", $"""
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

        using var acceptor = ChildProcess.StartProgram(Programs.Dll("samples/Acceptor", "RapidFix.Samples.Acceptor"), acceptorSettings);
        Assert.True(acceptor.WaitForOutput("acceptor listening", Quick), $"the acceptor did not start\n{acceptor.Output}\n{acceptor.Error}");

        var (exit, output, error) = ChildProcess.Run(Programs.Dll("samples/Initiator", "RapidFix.Samples.Initiator"), Quick,
            initiatorSettings, "--orders", "3", "--interval-ms", "10");

        Assert.True(exit == 0, $"exit {exit}\n{output}\n{error}");
        Assert.Empty(error);
        for (int n = 1; n <= 3; n++)
        {
            Assert.Contains($"sent order {n}: Sent", output, StringComparison.Ordinal);

            // Order n: 100 n at 100.0n; half filled, then the rest, each execution naming the order.
            string clOrdId = Regex.Match(output, $@"for (ORD-\d{{6}}-{n}): filled").Groups[1].Value;
            Assert.False(string.IsNullOrEmpty(clOrdId), output);
            Assert.Contains($"for {clOrdId}: filled {50 * n} @ 100.0{n}, {50 * n} left", output, StringComparison.Ordinal);
            Assert.Contains($"for {clOrdId}: filled {100 * n} @ 100.0{n}, 0 left", output, StringComparison.Ordinal);
            Assert.True(acceptor.WaitForOutput($"order {clOrdId} {100 * n} ", Quick), acceptor.Output);
        }

        Assert.Contains("6 executions received; logging out", output, StringComparison.Ordinal);
        Assert.Equal(6, Regex.Matches(output, @"^execution \d+ for ", RegexOptions.Multiline).Count);
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

    private string Write(string name, string text)
    {
        string path = Path.Combine(_directory, name);
        File.WriteAllText(path, text);
        return path;
    }

    private static int FreePort()
    {
        using var listener = new TcpListener(IPAddress.Loopback, 0);
        listener.Start();
        return ((IPEndPoint)listener.LocalEndpoint).Port;
    }
}
