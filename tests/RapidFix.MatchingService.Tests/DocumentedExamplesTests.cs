using System.Text;
using System.Text.RegularExpressions;
using RapidFix.MatchingService;
using RapidFix.Tests.Shared;
using RapidFix.TradeDriver;

namespace RapidFix.MatchingService.Tests;

/// <summary>
/// The examples of docs/matching.md, read out of the file, sent through real FIX sessions (RapidFix initiators for
/// IM1 and EB1) to the matching service, and the answers compared with the documented ones field by field (header,
/// CheckSum and timestamps aside).
/// </summary>
[Collection(nameof(ServiceProcesses))]
public sealed class DocumentedExamplesTests : IDisposable
{
    private readonly string _work = Path.Combine(Path.GetTempPath(), "rapidfix-examples-" + Guid.NewGuid().ToString("N"));

    public void Dispose()
    {
        if (Directory.Exists(_work))
        {
            Directory.Delete(_work, recursive: true);
        }
    }

    [Fact]
    public void The_seven_messages_of_the_documented_trade_get_the_documented_acks_and_CLS()
    {
        var examples = Examples();
        var answers = Exchange(examples, ["NOE", "ALC-A", "ALC-B", "NPR-A", "NPR-B", "SET-A", "SET-B"], expectedAnswers: 1 + 2 + 2 + 4);

        AssertAnswered(examples["AR"], answers, "EB1");
        AssertAnswered(examples["P"], answers, "IM1");
        AssertAnswered(examples["CLS-IM1-A"], answers, "IM1");
        // "the same to EB1 with 56=EB1, and CLS-1-2 for ACC-B"
        AssertAnswered(examples["CLS-IM1-A"].Replace("56=IM1|", "56=EB1|", StringComparison.Ordinal), answers, "EB1");
        Assert.Equal(2, answers.Count(a => a.Contains("|664=CLS-1-2|", StringComparison.Ordinal)));
        Assert.Equal(4, answers.Count(a => a.Contains("|35=AK|", StringComparison.Ordinal)));
        // SET has no ack; nothing else was sent.
        Assert.Equal(9, answers.Count);
    }

    [Fact]
    public void The_documented_price_mismatch_gets_the_documented_rejection_and_notice()
    {
        var examples = Examples();
        var answers = Exchange(examples, ["NOE", "ALC-B-PRICE"], expectedAnswers: 3);

        AssertAnswered(examples["AR"], answers, "EB1");
        AssertAnswered(examples["P-REJECT"], answers, "IM1");
        AssertAnswered(examples["AE-NOTICE"], answers, "EB1");
    }

    /// <summary>The ```fix NAME blocks of docs/matching.md, '|' for SOH.</summary>
    internal static Dictionary<string, string> Examples()
    {
        string root = SharedData.RepositoryRoot() ?? throw new InvalidOperationException("the repository root is not found");
        string doc = File.ReadAllText(Path.Combine(root, "docs", "matching.md"));
        var blocks = new Dictionary<string, string>();
        foreach (Match m in Regex.Matches(doc, "```fix ([A-Z0-9-]+)\\n(.+?)\\n```"))
        {
            blocks[m.Groups[1].Value] = m.Groups[2].Value.Trim();
        }

        Assert.True(blocks.Count >= 10, $"docs/matching.md has {blocks.Count} fix examples");
        return blocks;
    }

    // Starts a service, sends the named examples in order from their senders, returns every answer's text.
    private List<string> Exchange(Dictionary<string, string> examples, string[] names, int expectedAnswers)
    {
        using var server = Verifier.StartService(_work, DemoStaticData, 100, "MATCH", TextWriter.Null);
        var collector = new AnswerCollector { KeepText = true };
        using var participants = new Participants(TradeGenerator.Participants, "MATCH", "127.0.0.1", server.Port, collector);
        Assert.True(participants.WaitForLogons(TimeSpan.FromSeconds(30)), "logons");
        foreach (var name in names)
        {
            var (sender, type, body) = Inbound(examples[name]);
            long before = collector.Count;
            Assert.Equal(RapidFix.Engine.Sessions.SendResult.Sent, participants[sender].Send(Encoding.ASCII.GetBytes(type), Encoding.ASCII.GetBytes(body)));
            if (type != "T")
            {
                // The senders' sessions are separate connections: without this wait the service may take the next
                // sender's message first, and the documented outcome depends on the order (the later message of a
                // mismatch is the one rejected). Every message but SET is acknowledged.
                Wait.Until(() => collector.Count > before, $"the answer to {name}");
            }
        }

        Wait.Until(() => collector.Count >= expectedAnswers, () => $"{expectedAnswers} answers (got {collector.Count})");
        Thread.Sleep(300); // anything unexpected would arrive now
        return [.. collector.Texts];
    }

    internal static string DemoStaticData => Path.Combine(AppContext.BaseDirectory, "StaticData", "Demo");

    /// <summary>The static data of the generated sets: the demo's with the generated securities (TradeUniverse).</summary>
    internal static string GeneratedStaticData => RapidFix.TradeDriver.TradeUniverse.StaticDataDirectory;

    // Sender, MsgType and body (SOH-separated, from the first field after the header) of an inbound example.
    internal static (string Sender, string MsgType, string Body) Inbound(string example)
    {
        var fields = example.TrimEnd('|').Split('|');
        string sender = Value(fields, "49"), type = Value(fields, "35");
        var body = fields.Where(f => !IsHeaderOrTrailer(Tag(f))).Select(f => f + "\u0001");
        return (sender, type, string.Concat(body));
    }

    // The expected message's body fields, timestamps aside, must be exactly those of an answer to the participant.
    private static void AssertAnswered(string expected, List<string> answers, string participant)
    {
        var want = Comparable(expected);
        var candidates = answers.Where(a => Value(a.Split('|'), "56") == participant).Select(Comparable).ToList();
        Assert.True(candidates.Any(c => c.SequenceEqual(want)),
            $"expected to {participant}:\n  {string.Join("|", want)}\ngot:\n  {string.Join("\n  ", candidates.Select(c => string.Join("|", c)))}");
    }

    private static List<string> Comparable(string message) =>
        [.. message.TrimEnd('|').Split('|').Where(f => !IsHeaderOrTrailer(Tag(f)) && Tag(f) is not (60 or 769)).Prepend("35=" + Value(message.Split('|'), "35"))];

    private static bool IsHeaderOrTrailer(int tag) => tag is 8 or 9 or 35 or 34 or 49 or 52 or 56 or 43 or 122 or 10;

    private static int Tag(string field) => int.Parse(field.AsSpan(0, field.IndexOf('=')), System.Globalization.CultureInfo.InvariantCulture);

    private static string Value(string[] fields, string tag) => fields.First(f => f.StartsWith(tag + "=", StringComparison.Ordinal))[(tag.Length + 1)..];
}

/// <summary>Tests that start services and sockets run one at a time (two cores, other engineers building).</summary>
[CollectionDefinition(nameof(ServiceProcesses), DisableParallelization = true)]
public sealed class ServiceProcesses;

/// <summary>Polling with generous timeouts (the build machine is loaded).</summary>
internal static class Wait
{
    public static void Until(Func<bool> condition, string what, int seconds = 60) => Until(condition, () => what, seconds);

    /// <summary>
    /// As above, with a description made when the wait times out (so that a count in it is the count at the end, not
    /// the one when the wait began).
    /// </summary>
    public static void Until(Func<bool> condition, Func<string> what, int seconds = 60)
    {
        var deadline = DateTime.UtcNow.AddSeconds(seconds);
        while (!condition())
        {
            if (DateTime.UtcNow >= deadline)
            {
                Assert.Fail($"timed out waiting for {what()}");
            }

            Thread.Sleep(10);
        }
    }
}
