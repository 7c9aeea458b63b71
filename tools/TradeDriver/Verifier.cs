using System.Diagnostics;
using System.Text;
using RapidFix.Engine.Sessions;
using RapidFix.MatchingService;

namespace RapidFix.TradeDriver;

/// <summary>How verify runs.</summary>
internal sealed record VerifyOptions
{
    /// <summary>A set written by generate; null: generate <see cref="Trades"/> with the default mix.</summary>
    public string? Input { get; init; }

    public int Trades { get; init; } = 10_000;

    public int Seed { get; init; } = 1;

    /// <summary>A running service; null: start one in this process on a free port.</summary>
    public string? Host { get; init; }

    public int Port { get; init; }

    /// <summary>The service's static data (for the in-process service): by default the generated sets' (<see cref="TradeUniverse"/>).</summary>
    [System.Diagnostics.CodeAnalysis.AllowNull]
    public string StaticData { get => _staticData ?? TradeUniverse.StaticDataDirectory; init => _staticData = value; }

    private readonly string? _staticData;

    /// <summary>Longest wait for the answers once everything is sent.</summary>
    public TimeSpan Timeout { get; init; } = TimeSpan.FromMinutes(5);

    /// <summary>No answer for this long ends the wait early.</summary>
    public TimeSpan Idle { get; init; } = TimeSpan.FromSeconds(5);

    /// <summary>Messages sent and not yet acknowledged at most.</summary>
    public int Window { get; init; } = 4_000;

    /// <summary>Messages a second at most; 0: as fast as the window allows.</summary>
    public int Pace { get; init; }

    /// <summary>Print every rejecting ack as it arrives.</summary>
    public bool ShowRejections { get; init; }

    /// <summary>The service's CompID.</summary>
    public string ServiceCompId { get; init; } = "MATCH";
}

/// <summary>
/// verify: sends a set through one RapidFix initiator per participant to the matching service, collects the
/// answers and checks each trade against its expected outcome. The last line is the summary; the exit code is 1
/// when any trade does not match.
/// </summary>
internal static class Verifier
{
    public static int Run(VerifyOptions o, TextWriter output)
    {
        var (messages, expected) = o.Input is not null
            ? TradeGenerator.Read(o.Input)
            : TradeGenerator.Generate(GeneratorOptions.DefaultMix(o.Trades, o.Seed));
        var set = Encode(messages);
        using var target = TargetService.Open(o.Host, o.Port, o.StaticData, set.Count, output);
        string host = target.Host;
        int port = target.Port;
        var collector = new AnswerCollector { ShowRejections = o.ShowRejections };
        using var participants = new Participants(TradeGenerator.Participants, o.ServiceCompId, host, port, collector,
            storeDirectory: o.Host is null ? null : Path.Combine(Directory.GetCurrentDirectory(), "store", "trade-driver"), expectedMessages: set.Count);
        if (!participants.WaitForLogons(TimeSpan.FromSeconds(30)))
        {
            output.WriteLine($"verify: the participants could not log on to {host}:{port}");
            return 2;
        }

        var clock = Stopwatch.StartNew();
        long ackable = Send(set, participants, collector, o.Window, o.Pace);
        long expectedAcks = expected.Sum(e => (long)e.Acks);
        long expectedCls = expected.Sum(e => (long)e.Cls);
        WaitForAnswers(collector, expectedAcks, expectedCls, o.Timeout, o.Idle);
        var seconds = clock.Elapsed.TotalSeconds;
        var answers = collector.Drain();
        var result = Check(expected, answers, output);
        output.WriteLine($"sent {set.Count} messages ({ackable} acknowledgeable) in {seconds:F1} s: {set.Count / Math.Max(seconds, 1e-9):F0} messages/s");
        output.WriteLine(
            $"trades {expected.Count}, CLS {result.ClsTrades}, exceptions {result.Exceptions}, expected CLS {result.ExpectedClsTrades}, " +
            $"expected exceptions {result.ExpectedExceptions}, mismatches {result.Mismatches}");
        return result.Mismatches > 0 ? 1 : 0;
    }

    /// <summary>The per-trade comparison.</summary>
    public readonly record struct CheckResult(int ClsTrades, long Exceptions, int ExpectedClsTrades, long ExpectedExceptions, int Mismatches);

    /// <summary>Compares what each trade got with what it should have got; prints the first mismatches.</summary>
    public static CheckResult Check(List<Expectation> expected, List<(string Participant, Answer Answer)> answers, TextWriter output)
    {
        int n = expected.Count == 0 ? 0 : expected.Max(e => e.Trade);
        var cls = new int[n + 1];
        var exceptions = new int[n + 1];
        var acks = new int[n + 1];
        long totalExceptions = 0;
        foreach (var (_, a) in answers)
        {
            if (a.Trade <= 0 || a.Trade > n)
            {
                continue;
            }

            switch (a.Kind)
            {
                case AnswerKind.Cls:
                    cls[a.Trade]++;
                    break;
                case AnswerKind.Ack:
                    acks[a.Trade]++;
                    if (a.Rejected)
                    {
                        exceptions[a.Trade]++;
                        totalExceptions++;
                    }

                    break;
            }
        }

        int mismatches = 0, clsTrades = 0, expectedClsTrades = 0;
        long expectedExceptions = 0;
        foreach (var e in expected)
        {
            clsTrades += cls[e.Trade] > 0 ? 1 : 0;
            expectedClsTrades += e.Cls > 0 ? 1 : 0;
            expectedExceptions += e.Exceptions;
            if (cls[e.Trade] != e.Cls || exceptions[e.Trade] != e.Exceptions || acks[e.Trade] != e.Acks)
            {
                if (++mismatches <= 20)
                {
                    output.WriteLine($"mismatch: trade T{e.Trade} ({e.Kind}): CLS {cls[e.Trade]} (expected {e.Cls}), exceptions {exceptions[e.Trade]} " +
                                     $"(expected {e.Exceptions}), acks {acks[e.Trade]} (expected {e.Acks})");
                }
            }
        }

        return new CheckResult(clsTrades, totalExceptions, expectedClsTrades, expectedExceptions, mismatches);
    }

    /// <summary>
    /// Starts a matching service in this process for the demo participants, sized for <paramref name="messages"/>;
    /// <paramref name="warmUp"/> runs the service's warm-up before the continuous phase (a measured run).
    /// </summary>
    public static MatchingServer StartService(string work, string staticData, int messages, string serviceCompId, TextWriter output, bool warmUp = false,
        int partitions = 1, IReadOnlyList<int>? owned = null)
    {
        Directory.CreateDirectory(work);
        string config = Path.Combine(work, "service.cfg");
        File.WriteAllText(config, ServiceSettings(TradeGenerator.Participants, serviceCompId, messages));
        var server = MatchingServer.Start(new ServiceOptions
        {
            SettingsPath = config,
            StaticDataPath = staticData,
            Port = Participants.FreePort(),
            DataDirectory = Path.Combine(work, "data"),
            BusinessDate = 20261123,
            WarmUp = warmUp,
            LogPath = Path.Combine(work, "engine.log"),
            MaxInputs = messages + 16,
            InputJournalBytes = (int)Math.Min(Array.MaxLength, (messages * 700L) + (1 << 20)),
            Partitions = partitions,
            OwnedPartitions = owned,
        }, output);
        server.EnterContinuous();
        return server;
    }

    /// <summary>The service's settings for a set of participants, with stores sized for <paramref name="messages"/> inputs.</summary>
    public static string ServiceSettings(IEnumerable<string> participants, string serviceCompId, int messages)
    {
        long perParticipant = Math.Max(100_000, messages);
        var text = new StringBuilder();
        text.AppendLine("[DEFAULT]");
        text.AppendLine("ConnectionType=acceptor");
        text.AppendLine("SocketAcceptHost=127.0.0.1");
        text.AppendLine("SocketAcceptPort=5010");
        text.AppendLine("StartTime=00:00:00");
        text.AppendLine("EndTime=00:00:00");
        text.AppendLine("FileStorePath=store");
        text.AppendLine("StoreSyncBeforeSend=Y");
        text.AppendLine("StoreCommitMemory=Y"); // the stores' write windows: committed at startup, not as they fill
        text.AppendLine("StoreFlushPolicy=OsOnly");
        text.AppendLine("OutboundQueueDepth=65536");
        text.AppendLine($"StoreMaxMessages={perParticipant}");
        text.AppendLine($"StoreMaxBytes={perParticipant * 600}"); // the files' bound: memory is StoreWindowBytes
        foreach (var p in participants)
        {
            text.AppendLine("[SESSION]");
            text.AppendLine("BeginString=FIX.4.4");
            text.AppendLine($"SenderCompID={serviceCompId}");
            text.AppendLine($"TargetCompID={p}");
        }

        return text.ToString();
    }

    /// <summary>The set as bytes to send: MsgType and body of each message, and its sender.</summary>
    public static List<(string Sender, byte[] MsgType, byte[] Body)> Encode(List<TradeMessages.Message> messages) =>
        messages.Select(m => (m.Sender, Encoding.ASCII.GetBytes(m.MsgType), Encoding.ASCII.GetBytes(m.Body))).ToList();

    /// <summary>
    /// Sends every message on its sender's session, keeping at most <paramref name="window"/> unacknowledged and, when
    /// <paramref name="pace"/> is positive, at most that many a second; returns the acknowledgeable count.
    /// </summary>
    public static long Send(List<(string Sender, byte[] MsgType, byte[] Body)> set, Participants participants, AnswerCollector collector, int window, int pace = 0)
    {
        long ackable = 0;
        int unflushed = 0;
        long sent = 0;
        var paced = Stopwatch.StartNew();
        foreach (var (sender, type, body) in set)
        {
            var session = participants[sender];
            if (pace > 0)
            {
                // Paced: each message leaves no earlier than its slot, flushed at once (fault runs need traffic during the fault).
                participants.FlushAll();
                unflushed = 0;
                var due = TimeSpan.FromSeconds((double)sent / pace);
                while (paced.Elapsed < due)
                {
                    Thread.Sleep(1);
                }
            }

            sent++;
            if (ackable - collector.Acks > window)
            {
                participants.FlushAll();
                unflushed = 0;
                while (ackable - collector.Acks > window)
                {
                    Thread.Sleep(1);
                }
            }

            while (true)
            {
                // Batched: stored now, written by FlushAll every 256 messages (a socket write per session, not per message).
                var result = session.SendDeferred(type, body);
                if (result == SendResult.Sent)
                {
                    break;
                }

                if (result == SendResult.TooLarge)
                {
                    throw new InvalidOperationException($"a message of {sender} is larger than MaxMessageSize");
                }

                participants.FlushAll();
                Thread.Sleep(10); // not logged on (reconnecting) or the socket is full: try again
            }

            if (type.Length != 1 || type[0] != (byte)'T')
            {
                ackable++;
            }

            if (++unflushed == 256)
            {
                participants.FlushAll();
                unflushed = 0;
            }
        }

        participants.FlushAll();
        return ackable;
    }

    /// <summary>Waits until the acks and CLS expected have arrived, or nothing arrived for <paramref name="idle"/> (5 s), or the timeout.</summary>
    public static void WaitForAnswers(AnswerCollector collector, long expectedAcks, long expectedCls, TimeSpan timeout, TimeSpan? idle = null)
    {
        var deadline = Stopwatch.StartNew();
        long last = -1;
        var quiet = Stopwatch.StartNew();
        while (deadline.Elapsed < timeout)
        {
            long count = collector.Count;
            if (count != last)
            {
                last = count;
                quiet.Restart();
            }
            else if (quiet.Elapsed > (idle ?? TimeSpan.FromSeconds(5)))
            {
                return;
            }

            if (collector.Acks >= expectedAcks && collector.Cls >= expectedCls)
            {
                // Everything expected is in; a moment more for anything unexpected.
                Thread.Sleep(500);
                return;
            }

            Thread.Sleep(20);
        }
    }
}

/// <summary>
/// The service a command talks to: a running one (<c>--host</c>, <c>--port</c>), or one started in this process on a
/// free port with its data in a temporary directory, stopped and removed on dispose.
/// </summary>
internal sealed class TargetService : IDisposable
{
    private readonly MatchingServer? _server;
    private readonly string? _work;

    private TargetService(string host, int port, MatchingServer? server, string? work)
    {
        Host = host;
        Port = port;
        _server = server;
        _work = work;
    }

    public string Host { get; }

    public int Port { get; }

    /// <summary>The in-process service, or null for a running one.</summary>
    public MatchingServer? Server => _server;

    public static TargetService Open(string? host, int port, string staticData, int messages, TextWriter output, bool warmUp = false)
    {
        if (host is not null)
        {
            return new TargetService(host, port, null, null);
        }

        string work = Path.Combine(Path.GetTempPath(), "rapidfix-driver-" + Guid.NewGuid().ToString("N"));
        var server = Verifier.StartService(work, staticData, messages, "MATCH", output, warmUp);
        return new TargetService("127.0.0.1", server.Port, server, work);
    }

    public void Dispose()
    {
        _server?.Stop();
        if (_work is not null && Directory.Exists(_work))
        {
            Directory.Delete(_work, recursive: true);
        }
    }
}
