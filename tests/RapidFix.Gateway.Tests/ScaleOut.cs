using System.Collections.Concurrent;
using System.Diagnostics;
using System.Net;
using System.Net.Sockets;
using System.Text;
using System.Text.RegularExpressions;
using RapidFix.Engine.Codec;
using RapidFix.Engine.Configuration;
using RapidFix.Engine.Hosting;
using RapidFix.Engine.Sessions;
using RapidFix.MatchingService;
using RapidFix.Matching;
using RapidFix.Tests.Shared;

namespace RapidFix.Gateway.Tests;

/// <summary>Services, a gateway and participants on loopback for the tests, in a temporary directory removed at the end.</summary>
internal sealed class ScaleOut : IDisposable
{
    public static readonly string[] Participants = ["IM1", "IM2", "EB1", "EB2"];

    public ScaleOut() => Directory.CreateDirectory(Work);

    public string Work { get; } = Path.Combine(Path.GetTempPath(), "rapidfix-gateway-" + Guid.NewGuid().ToString("N"));

    /// <summary>The static data of the generated sets the driver sends (the demo's with the generated securities).</summary>
    public static string GeneratedStaticData => RapidFix.TradeDriver.TradeUniverse.StaticDataDirectory;

    public void Dispose()
    {
        try
        {
            Directory.Delete(Work, recursive: true);
        }
        catch (IOException)
        {
            // a log file still held by a stopping thread: the temporary directory is left behind
        }
    }

    public static int FreePort()
    {
        using var listener = new TcpListener(IPAddress.Loopback, 0);
        listener.Start();
        return ((IPEndPoint)listener.LocalEndpoint).Port;
    }

    /// <summary>A matching service in this process owning <paramref name="owned"/> of <paramref name="partitions"/> (null: all).</summary>
    public MatchingServer StartService(string name, int port, int partitions, int[]? owned, int messages = 20_000)
    {
        string dir = Path.Combine(Work, name);
        Directory.CreateDirectory(dir);
        string config = Path.Combine(dir, "service.cfg");
        var text = new StringBuilder();
        text.AppendLine("[DEFAULT]\nConnectionType=acceptor\nSocketAcceptHost=127.0.0.1\nSocketAcceptPort=5010\nStartTime=00:00:00\nEndTime=00:00:00");
        text.AppendLine("FileStorePath=store\nStoreSyncBeforeSend=Y\nStoreFlushPolicy=OsOnly\nOutboundQueueDepth=65536\nStoreMaxMessages=100000\nStoreMaxBytes=60000000");
        foreach (var p in Participants)
        {
            text.AppendLine($"[SESSION]\nBeginString=FIX.4.4\nSenderCompID=MATCH\nTargetCompID={p}");
        }

        File.WriteAllText(config, text.ToString());
        var server = MatchingServer.Start(new ServiceOptions
        {
            SettingsPath = config,
            StaticDataPath = GeneratedStaticData,
            Port = port,
            DataDirectory = Path.Combine(dir, "data"),
            BusinessDate = 20261123,
            WarmUp = false,
            LogPath = Path.Combine(dir, "engine.log"),
            MaxInputs = messages + 16,
            InputJournalBytes = (messages * 700) + (1 << 20),
            Partitions = partitions,
            OwnedPartitions = owned,
        });
        server.EnterContinuous();
        return server;
    }

    public GatewayServer StartGateway(int partitions, IReadOnlyList<ServiceEndpoint> services, int hold = 100_000, bool batchAnswers = true) =>
        GatewayServer.Start(new GatewayOptions
        {
            Participants = Participants,
            Services = services,
            Partitions = partitions,
            AcceptHost = "127.0.0.1",
            AcceptPort = FreePort(),
            DataDirectory = Path.Combine(Work, "gateway"),
            StoreFlushPolicy = "OsOnly",
            StoreMaxMessages = 100_000,
            StoreMaxBytes = 60_000_000,
            HoldPerParticipant = hold,
            BatchAnswers = batchAnswers,
            LogPath = Path.Combine(Work, "gateway.log"),
        });

    /// <summary>tools/TradeDriver verify against <paramref name="port"/> as a child process; its exit code and output.</summary>
    /// <param name="idle">Seconds without any answer that end verify's wait (a service started later needs more than the default 5).</param>
    public Process StartVerify(int port, int trades, int pace, int idle = 5)
    {
        string driver = Path.Combine(AppContext.BaseDirectory, "RapidFix.TradeDriver.dll");
        var start = new ProcessStartInfo(Environment.GetEnvironmentVariable("DOTNET_HOST_PATH") is { Length: > 0 } dotnet ? dotnet : "dotnet")
        {
            WorkingDirectory = Work,
            RedirectStandardOutput = true,
            RedirectStandardError = true,
        };
        foreach (var arg in (string[])["exec", driver, "verify", "--trades", trades.ToString(System.Globalization.CultureInfo.InvariantCulture),
                     "--host", "127.0.0.1", "--port", port.ToString(System.Globalization.CultureInfo.InvariantCulture), "--timeout", "180",
                     "--idle", idle.ToString(System.Globalization.CultureInfo.InvariantCulture), "--pace", pace.ToString(System.Globalization.CultureInfo.InvariantCulture)])
        {
            start.ArgumentList.Add(arg);
        }

        return Process.Start(start)!;
    }

    public static (int Exit, string Output) Finish(Process verify)
    {
        var stdout = verify.StandardOutput.ReadToEndAsync();
        var stderr = verify.StandardError.ReadToEndAsync();
        if (!verify.WaitForExit(TimeSpan.FromMinutes(8)))
        {
            verify.Kill(entireProcessTree: true);
            verify.WaitForExit();
        }

        return (verify.ExitCode, stdout.Result + stderr.Result);
    }

    /// <summary>The ```fix NAME examples of docs/matching.md ('|' for SOH): the sender, MsgType and body of one.</summary>
    public static (string Sender, string MsgType, string Body) Example(string name)
    {
        string root = SharedData.RepositoryRoot() ?? throw new InvalidOperationException("the repository root is not found");
        string doc = File.ReadAllText(Path.Combine(root, "docs", "matching.md"));
        var block = Regex.Match(doc, "```fix " + Regex.Escape(name) + "\\n(.+?)\\n```");
        Assert.True(block.Success, $"docs/matching.md has no example {name}");
        var fields = block.Groups[1].Value.Trim().TrimEnd('|').Split('|');
        string Value(string tag) => fields.First(f => f.StartsWith(tag + "=", StringComparison.Ordinal))[(tag.Length + 1)..];
        var body = fields.Where(f => int.Parse(f[..f.IndexOf('=')], System.Globalization.CultureInfo.InvariantCulture) is not (8 or 9 or 35 or 34 or 49 or 52 or 56 or 43 or 122 or 10))
            .Select(f => f + "\u0001");
        return (Value("49"), Value("35"), string.Concat(body));
    }

    /// <summary>The partition of the documented trade (IM1 with EB1) among <paramref name="partitions"/>.</summary>
    public static int DocumentedTradePartition(int partitions) => TradePartition.Of("IM1"u8, "EB1"u8, partitions);

    public static void Until(Func<bool> condition, string what, int seconds = 90)
    {
        var deadline = Stopwatch.StartNew();
        while (!condition())
        {
            Assert.True(deadline.Elapsed < TimeSpan.FromSeconds(seconds), $"timed out waiting for {what}");
            Thread.Sleep(20);
        }
    }
}

/// <summary>One participant as a RapidFix initiator; every application message it receives is kept as text ('|' for SOH).</summary>
internal sealed class Participant : FixApplicationBase, IDisposable
{
    private readonly FixEngine _engine;

    public Participant(string compId, int port, string storeDirectory)
    {
        var settings = SettingsFile.Parse($"""
            [SESSION]
            ConnectionType=initiator
            SocketConnectHost=127.0.0.1
            SocketConnectPort={port}
            HeartBtInt=30
            ReconnectInterval=1
            StartTime=00:00:00
            EndTime=00:00:00
            BeginString=FIX.4.4
            SenderCompID={compId}
            TargetCompID=MATCH
            FileStorePath={storeDirectory}
            """);
        _engine = FixEngine.Create(settings, _ => this);
        _engine.Start();
    }

    public ConcurrentQueue<string> Received { get; } = new();

    public FixSession Session => _engine.Sessions[0];

    public override MessageDisposition FromApp(FixSession session, FixMessage message)
    {
        Received.Enqueue(Encoding.ASCII.GetString(message.Bytes).Replace('\u0001', '|'));
        return MessageDisposition.Accept;
    }

    public SendResult Send(string msgType, string body) => Session.Send(Encoding.ASCII.GetBytes(msgType), Encoding.ASCII.GetBytes(body));

    public void Dispose() => _engine.Dispose();
}

/// <summary>Tests that start services and sockets run one at a time (two cores, other engineers building).</summary>
[CollectionDefinition(nameof(GatewayProcesses), DisableParallelization = true)]
public sealed class GatewayProcesses;
