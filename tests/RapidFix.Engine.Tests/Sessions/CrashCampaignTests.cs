using System.Diagnostics;
using System.Globalization;
using System.Text;
using Xunit.Abstractions;

namespace RapidFix.Engine.Tests.Sessions;

/// <summary>
/// The kill -9 campaign: a RapidFix acceptor and a RapidFix initiator, each in its own child process with a journal
/// store (StoreSyncBeforeSend=Y), exchange orders and executions while one side, chosen at random, is killed with
/// SIGKILL at a random moment and restarted on its journal, again and again. At the end, with both sides up again:
/// every application message a side was told was sent reached the other side's application (nothing acknowledged
/// is lost), no MsgSeqNum was ever used for two different messages by one side, and no Logout complained of a
/// sequence number going backwards.
/// </summary>
/// <remarks>
/// The random choices come from one seed, printed at the start and in every failure: RAPIDFIX_CRASH_SEED=n replays
/// a run, RAPIDFIX_CRASH_POINTS=n sets the number of kills (6 here by default; the full campaign is 100:
/// <c>tools/crash-campaign.sh</c>, see docs/store.md). Delivery is at least once, so a message may arrive twice
/// (PossDupFlag=Y, same MsgSeqNum and id); that is not a failure.
/// </remarks>
[Collection(nameof(SessionEndToEnd))]
public sealed class CrashCampaignTests(ITestOutputHelper output) : IDisposable
{
    private readonly string _folder = Path.Combine(Path.GetTempPath(), "rapidfix-campaign-" + Guid.NewGuid().ToString("N"));
    private readonly Dictionary<string, Process> _children = [];
    private readonly List<EventTail> _tails = [];

    public void Dispose()
    {
        foreach (var child in _children.Values)
        {
            Stop(child);
        }

        if (Directory.Exists(_folder) && Environment.GetEnvironmentVariable("RAPIDFIX_CRASH_KEEP") is not "1")
        {
            Directory.Delete(_folder, recursive: true);
        }
    }

    [Fact]
    public void Random_kills_of_either_side_lose_no_acknowledged_message_and_reuse_no_sequence_number()
    {
        int points = int.TryParse(Environment.GetEnvironmentVariable("RAPIDFIX_CRASH_POINTS"), out int p) && p > 0 ? p : 6;
        int seed = int.TryParse(Environment.GetEnvironmentVariable("RAPIDFIX_CRASH_SEED"), out int s) ? s : Environment.TickCount & 0x7FFFFFFF;
        string replay = $"seed {seed}, {points} kill points (replay with RAPIDFIX_CRASH_SEED={seed} RAPIDFIX_CRASH_POINTS={points})";
        Say($"crash campaign: {replay}, folder {_folder}");
        var random = new Random(seed);
        Directory.CreateDirectory(_folder);
        int port = SessionHarness.FreePort();
        var acceptor = new EventTail(Path.Combine(_folder, "acceptor.events"));
        var initiator = new EventTail(Path.Combine(_folder, "initiator.events"));
        _tails.AddRange([acceptor, initiator]);
        Start("acceptor", port);
        Start("initiator", port);

        WaitUntil(() => acceptor.Refresh().Logons > 0 && initiator.Refresh().Logons > 0, "the first logon", replay);
        int[] kills = new int[2];
        for (int point = 1; point <= points; point++)
        {
            // A random moment after both sides logged on: while orders stream, while a resend is under way, at once.
            Thread.Sleep(random.Next(0, 600));
            string victim = random.Next(2) == 0 ? "acceptor" : "initiator";
            kills[victim == "acceptor" ? 0 : 1]++;
            int acceptorLogons = acceptor.Refresh().Logons;
            int initiatorLogons = initiator.Refresh().Logons;
            var child = _children[victim];
            child.Kill(entireProcessTree: true);
            child.WaitForExit();
            child.Dispose();
            _children.Remove(victim);
            Start(victim, port);
            WaitUntil(() => acceptor.Refresh().Logons > acceptorLogons && initiator.Refresh().Logons > initiatorLogons,
                $"both sides logged on again after kill point {point} ({victim} killed)", replay);
        }

        // Converge: no new orders; everything sent must arrive.
        File.WriteAllText(Path.Combine(_folder, "stop"), "");
        Thread.Sleep(500);
        WaitUntil(() => Missing(initiator.Refresh(), acceptor.Refresh()).Count == 0 && Missing(acceptor, initiator).Count == 0,
            "every sent message delivered after the last restart", replay, seconds: 120, allowFailure: true);
        foreach (var child in _children.Values)
        {
            Stop(child);
        }

        _children.Clear();
        acceptor.Refresh();
        initiator.Refresh();

        var ordersMissing = Missing(initiator, acceptor);
        var executionsMissing = Missing(acceptor, initiator);
        var initiatorReused = Reused(acceptor); // what the acceptor received: the initiator's numbers
        var acceptorReused = Reused(initiator);
        var tooLow = acceptor.LogoutTexts.Concat(initiator.LogoutTexts).Where(t => t.Contains("too low", StringComparison.OrdinalIgnoreCase)).ToList();
        Say($"kills: acceptor {kills[0]}, initiator {kills[1]}; orders sent {initiator.Sent.Count}, executions sent {acceptor.Sent.Count}; " +
            $"possible duplicates received: {acceptor.PossDups} orders, {initiator.PossDups} executions; " +
            $"lost: {ordersMissing.Count} orders, {executionsMissing.Count} executions; reused MsgSeqNums: {initiatorReused.Count} by the initiator, {acceptorReused.Count} by the acceptor; " +
            $"logouts: {string.Join(" | ", acceptor.LogoutTexts.Concat(initiator.LogoutTexts))}");

        Assert.True(initiator.Sent.Count > points, $"too little traffic to mean anything: {initiator.Sent.Count} orders ({replay})");
        Assert.True(ordersMissing.Count == 0, $"orders sent but never delivered: {string.Join(", ", ordersMissing.Take(20))} ({replay})");
        Assert.True(executionsMissing.Count == 0, $"executions sent but never delivered: {string.Join(", ", executionsMissing.Take(20))} ({replay})");
        Assert.True(initiatorReused.Count == 0, $"MsgSeqNums the initiator used twice: {string.Join(", ", initiatorReused.Take(20))} ({replay})");
        Assert.True(acceptorReused.Count == 0, $"MsgSeqNums the acceptor used twice: {string.Join(", ", acceptorReused.Take(20))} ({replay})");
        Assert.True(tooLow.Count == 0, $"a side saw sequence numbers go backwards: {string.Join(" | ", tooLow)} ({replay})");
    }

    /// <summary>Ids <paramref name="sender"/> was told were sent that <paramref name="receiver"/>'s application never got.</summary>
    private static List<string> Missing(EventTail sender, EventTail receiver) =>
        sender.Sent.Where(id => !receiver.ReceivedIds.Contains(id)).ToList();

    /// <summary>MsgSeqNums <paramref name="receiver"/> saw carry two different messages.</summary>
    private static List<string> Reused(EventTail receiver) =>
        receiver.Conflicts.Select(c => $"{c.Seq}: {c.First} then {c.Second}").ToList();

    private void Start(string role, int port) =>
        _children[role] = CrashHost.Start("campaign", role, port.ToString(CultureInfo.InvariantCulture), _folder);

    private static void Stop(Process process)
    {
        try
        {
            if (!process.HasExited)
            {
                process.Kill(entireProcessTree: true);
                process.WaitForExit();
            }
        }
        catch (InvalidOperationException)
        {
        }

        process.Dispose();
    }

    private void WaitUntil(Func<bool> condition, string what, string replay, int seconds = 60, bool allowFailure = false)
    {
        var deadline = DateTime.UtcNow.AddSeconds(seconds);
        while (!condition())
        {
            foreach (var (role, child) in _children)
            {
                if (child.HasExited)
                {
                    Assert.Fail($"the {role} exited by itself (code {child.ExitCode}): {child.StandardError.ReadToEnd()} ({replay})");
                }
            }

            if (DateTime.UtcNow > deadline)
            {
                if (allowFailure)
                {
                    return; // the assertions that follow say what is missing
                }

                string logouts = string.Join(" | ", _tails.SelectMany(t => t.LogoutTexts).TakeLast(6));
                Assert.Fail($"timed out waiting for {what}; last Logout texts: {(logouts.Length == 0 ? "none" : logouts)} ({replay})");
            }

            Thread.Sleep(50);
        }
    }

    private void Say(string line)
    {
        output.WriteLine(line);
        Console.WriteLine(line);
    }

    /// <summary>A side's event file, read as it grows (whole lines only: a line cut by a kill is dropped by the next incarnation).</summary>
    private sealed class EventTail(string path)
    {
        private readonly Dictionary<int, string> _bySeq = [];
        private long _position;

        public int Logons { get; private set; }

        public HashSet<string> Sent { get; } = [];

        public HashSet<string> ReceivedIds { get; } = [];

        public List<(int Seq, string First, string Second)> Conflicts { get; } = [];

        public List<string> LogoutTexts { get; } = [];

        public int PossDups { get; private set; }

        public EventTail Refresh()
        {
            if (!File.Exists(path))
            {
                return this;
            }

            using var file = new FileStream(path, FileMode.Open, FileAccess.Read, FileShare.ReadWrite);
            if (file.Length <= _position)
            {
                return this;
            }

            file.Position = _position;
            var bytes = new byte[file.Length - _position];
            file.ReadExactly(bytes);
            int end = Array.LastIndexOf(bytes, (byte)'\n') + 1;
            _position += end;
            foreach (var line in Encoding.ASCII.GetString(bytes, 0, end).Split('\n', StringSplitOptions.RemoveEmptyEntries))
            {
                Parse(line);
            }

            return this;
        }

        private void Parse(string line)
        {
            if (line == "ON")
            {
                Logons++;
            }
            else if (line.StartsWith("S ", StringComparison.Ordinal))
            {
                Sent.Add(line[2..]);
            }
            else if (line.StartsWith("L ", StringComparison.Ordinal))
            {
                LogoutTexts.Add(line[2..]);
            }
            else if (line.StartsWith("R ", StringComparison.Ordinal))
            {
                var parts = line.Split(' ');
                int seq = int.Parse(parts[1], CultureInfo.InvariantCulture);
                string id = parts[2];
                ReceivedIds.Add(id);
                if (parts[3] == "Y")
                {
                    PossDups++;
                }

                if (_bySeq.TryGetValue(seq, out var first))
                {
                    if (first != id)
                    {
                        Conflicts.Add((seq, first, id));
                    }
                }
                else
                {
                    _bySeq[seq] = id;
                }
            }
        }
    }
}
