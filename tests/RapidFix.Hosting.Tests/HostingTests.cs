using System.Diagnostics;
using System.Globalization;
using System.Net;
using System.Net.Sockets;
using System.Text;
using Microsoft.Extensions.DependencyInjection;
using Microsoft.Extensions.Hosting;
using Microsoft.Extensions.Logging;
using RapidFix.Engine.Codec;
using RapidFix.Engine.Fields;
using RapidFix.Engine.Sessions;

namespace RapidFix.Hosting.Tests;

/// <summary>The engine in a generic host: started by it, logged out cleanly when it stops, its log bridged.</summary>
public sealed class HostingTests : IDisposable
{
    private readonly string _directory = Directory.CreateTempSubdirectory("rapidfix-hosting-").FullName;

    public void Dispose()
    {
        try
        {
            Directory.Delete(_directory, recursive: true);
        }
        catch (IOException)
        {
        }
    }

    [Fact]
    public void On_SIGTERM_the_host_logs_every_session_out_and_waits_for_the_answer_before_it_exits()
    {
        int port = FreePort();
        string settings = WriteSettings(port);
        using var child = StartChild(settings);
        try
        {
            using var counterparty = Connect(port);
            counterparty.Send(Logon(1));
            Assert.Contains("\u000135=A\u0001", ReadUntil(counterparty, "\u000135=A\u0001"), StringComparison.Ordinal);

            using (var kill = Process.Start("kill", ["-TERM", child.Id.ToString(CultureInfo.InvariantCulture)]))
            {
                kill.WaitForExit();
                Assert.Equal(0, kill.ExitCode);
            }

            // The counterparty sees our Logout; the host is still up, waiting for the answer.
            string logout = ReadUntil(counterparty, "\u000135=5\u0001");
            Assert.Contains("58=Shutting down\u0001", logout, StringComparison.Ordinal);
            Assert.False(child.HasExited);
            counterparty.Send(Message(2, "5"u8));

            Assert.True(child.WaitForExit(30_000), "the host did not exit after the Logout exchange");
            Assert.Equal(0, child.ExitCode);
            Assert.Contains("STOPPED", child.StandardOutput.ReadToEnd(), StringComparison.Ordinal);
        }
        finally
        {
            if (!child.HasExited)
            {
                child.Kill(entireProcessTree: true);
            }
        }
    }

    [Fact]
    public async Task Stopping_the_host_logs_out_and_the_engine_log_reaches_the_ILogger()
    {
        int port = FreePort();
        var logged = new CapturingLoggerProvider();
        var builder = Host.CreateApplicationBuilder();
        builder.Logging.ClearProviders();
        builder.Logging.AddProvider(logged);
        builder.Services.AddRapidFix(WriteSettings(port), new FixApplicationBase());
        using var host = builder.Build();
        await host.StartAsync();
        var service = host.Services.GetRequiredService<RapidFixHostedService>();
        Assert.NotNull(service.Host);
        Assert.Equal(RapidFix.Pools.Phases.EnginePhase.Continuous, service.Host!.Phases.Phase);

        using var counterparty = Connect(port);
        counterparty.Send(Logon(1));
        ReadUntil(counterparty, "\u000135=A\u0001");
        var stopping = host.StopAsync();
        ReadUntil(counterparty, "\u000135=5\u0001");
        counterparty.Send(Message(2, "5"u8));
        await stopping;

        Assert.Null(service.Host);
        var lines = logged.Lines();
        Assert.Contains(lines, l => l.Category == "RapidFix.Engine" && l.Text.Contains("FIX.4.4:EXEC->CLIENT: session created", StringComparison.Ordinal));
        Assert.Contains(lines, l => l.Category == "RapidFix.Engine" && l.Text.Contains("logout sent", StringComparison.Ordinal));
        Assert.Contains(lines, l => l.Category == "RapidFix.Engine" && l.Text.Contains("logout exchanged", StringComparison.Ordinal));
        Assert.DoesNotContain(lines, l => l.Text.Contains("no Logout answer", StringComparison.Ordinal));
    }

    [Theory]
    [InlineData("20261124-01:02:03.456789 ERROR FIX.4.4:A->B: x", LogLevel.Error)]
    [InlineData("20261124-01:02:03.456789 WARN  FIX.4.4:A->B: x", LogLevel.Warning)]
    [InlineData("20261124-01:02:03.456789 INFO  FIX.4.4:A->B: x", LogLevel.Information)]
    [InlineData("20261124-01:02:03.456789 DEBUG FIX.4.4:A->B: x", LogLevel.Debug)]
    public void The_bridge_keeps_the_engine_line_s_level(string line, LogLevel level) =>
        Assert.Equal(level, EngineLogBridge.LevelOf(Encoding.ASCII.GetBytes(line)));

    private string WriteSettings(int port)
    {
        string path = Path.Combine(_directory, $"acceptor-{port}.cfg");
        File.WriteAllText(path, $"""
            [DEFAULT]
            ConnectionType=acceptor
            SocketAcceptHost=127.0.0.1
            SocketAcceptPort={port}
            StartTime=00:00:00
            EndTime=00:00:00
            StoreType=express
            BufferPoolSize=4
            MaxMessageSize=4096
            [SESSION]
            BeginString=FIX.4.4
            SenderCompID=EXEC
            TargetCompID=CLIENT
            """);
        return path;
    }

    private static Process StartChild(string settings)
    {
        string child = Path.Combine(AppContext.BaseDirectory, "RapidFix.HostingChild.dll");
        Assert.True(File.Exists(child), $"child host not built: {child}");
        var start = new ProcessStartInfo(Environment.GetEnvironmentVariable("DOTNET_HOST_PATH") is { Length: > 0 } dotnet ? dotnet : "dotnet")
        {
            RedirectStandardOutput = true,
            RedirectStandardError = true,
            UseShellExecute = false,
        };
        start.ArgumentList.Add("exec");
        start.ArgumentList.Add(child);
        start.ArgumentList.Add(settings);
        var process = Process.Start(start)!;
        string? line;
        while ((line = process.StandardOutput.ReadLine()) is not null && line != "READY")
        {
        }

        if (line != "READY")
        {
            Assert.Fail($"the child host did not start: {process.StandardError.ReadToEnd()}");
        }

        return process;
    }

    private static int FreePort()
    {
        using var probe = new TcpListener(IPAddress.Loopback, 0);
        probe.Start();
        return ((IPEndPoint)probe.LocalEndpoint).Port;
    }

    private static Socket Connect(int port)
    {
        var socket = new Socket(AddressFamily.InterNetwork, SocketType.Stream, ProtocolType.Tcp);
        socket.Connect(IPAddress.Loopback, port);
        socket.ReceiveTimeout = 30_000;
        return socket;
    }

    /// <summary>Reads until <paramref name="marker"/> has arrived; returns everything read.</summary>
    private static string ReadUntil(Socket socket, string marker)
    {
        var text = new StringBuilder();
        var buffer = new byte[4096];
        while (!text.ToString().Contains(marker, StringComparison.Ordinal))
        {
            int n = socket.Receive(buffer);
            Assert.True(n > 0, $"closed before {marker.Replace('\u0001', '|')}: {text.Replace('\u0001', '|')}");
            text.Append(Encoding.ASCII.GetString(buffer, 0, n));
        }

        return text.ToString();
    }

    private static byte[] Logon(int seq)
    {
        var encoder = Header(seq, "A"u8);
        encoder.AddChar(Tags.EncryptMethod, (byte)'0');
        encoder.Add(Tags.HeartBtInt, 30L);
        return Finish(encoder);
    }

    private static byte[] Message(int seq, ReadOnlySpan<byte> msgType) => Finish(Header(seq, msgType));

    private static FixEncoder Header(int seq, ReadOnlySpan<byte> msgType)
    {
        var encoder = new FixEncoder();
        encoder.Begin(new byte[1024], 0, 1024, "FIX.4.4"u8, msgType);
        encoder.Add(Tags.MsgSeqNum, (long)seq);
        encoder.Add(Tags.SenderCompID, "CLIENT"u8);
        encoder.AddTimestamp(Tags.SendingTime, RapidFix.Engine.Time.EngineClock.Shared.UtcNowNanos);
        encoder.Add(Tags.TargetCompID, "EXEC"u8);
        return encoder;
    }

    private static byte[] Finish(FixEncoder encoder)
    {
        Assert.True(encoder.Finish(out var message));
        return message.Span.ToArray();
    }

    private sealed class CapturingLoggerProvider : ILoggerProvider
    {
        private readonly List<(string Category, string Text)> _lines = [];

        public List<(string Category, string Text)> Lines()
        {
            lock (_lines)
            {
                return [.. _lines];
            }
        }

        public ILogger CreateLogger(string categoryName) => new Logger(this, categoryName);

        public void Dispose()
        {
        }

        private sealed class Logger(CapturingLoggerProvider owner, string category) : ILogger
        {
            public IDisposable? BeginScope<TState>(TState state) where TState : notnull => null;

            public bool IsEnabled(LogLevel logLevel) => true;

            public void Log<TState>(LogLevel logLevel, EventId eventId, TState state, Exception? exception, Func<TState, Exception?, string> formatter)
            {
                lock (owner._lines)
                {
                    owner._lines.Add((category, formatter(state, exception)));
                }
            }
        }
    }
}
