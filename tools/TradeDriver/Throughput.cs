using System.Diagnostics;
using RapidFix.Engine.Sessions;
using RapidFix.MatchingService;

namespace RapidFix.TradeDriver;

/// <summary>How throughput runs.</summary>
internal sealed record ThroughputOptions
{
    /// <summary>Messages per second offered.</summary>
    public int Rate { get; init; } = 10_000;

    public int Seconds { get; init; } = 60;

    public string? Host { get; init; }

    public int Port { get; init; }

    /// <summary>The in-process service's static data: by default the generated sets' (<see cref="TradeUniverse"/>).</summary>
    [System.Diagnostics.CodeAnalysis.AllowNull]
    public string StaticData { get => _staticData ?? TradeUniverse.StaticDataDirectory; init => _staticData = value; }

    private readonly string? _staticData;
}

/// <summary>
/// throughput: offers good trades at a fixed rate (open loop: the schedule does not wait for answers) through one
/// session per participant, samples the backlog (messages sent and not yet acknowledged by the matcher) every second,
/// and says whether the rate was sustainable (<see cref="ThroughputVerdict"/>): nothing refused, every input matched,
/// and the backlog bounded (at the end below one second's worth of messages, not growing over the second half).
/// </summary>
internal static class Throughput
{
    public static int Run(ThroughputOptions o, TextWriter output)
    {
        long total = (long)o.Rate * o.Seconds;
        int tradesNeeded = (int)Math.Min(int.MaxValue, (total / 7) + 1);
        var (messages, _) = TradeGenerator.Generate(new GeneratorOptions { Trades = tradesNeeded, Seed = 7 });
        var set = Verifier.Encode(messages);
        messages.Clear();
        // A measured run: the in-process service warms up before its continuous phase, as the executable does.
        using var target = TargetService.Open(o.Host, o.Port, o.StaticData, set.Count, output, warmUp: true);
        string host = target.Host;
        int port = target.Port;
        var server = target.Server;
        var collector = new AnswerCollector { Keep = false };
        // Each participant sends about half of the set at most (a manager its ALCs, NPRs and SETs, a broker its NOEs,
        // NPRs and SETs); the set as a whole would size each initiator's store beyond the largest array at 100,000/s.
        using var participants = new Participants(TradeGenerator.Participants, "MATCH", host, port, collector, expectedMessages: (set.Count / 2) + 1);
        if (!participants.WaitForLogons(TimeSpan.FromSeconds(30)))
        {
            output.WriteLine($"throughput: the participants could not log on to {host}:{port}");
            return 2;
        }

        var samples = new List<long>();
        var clock = Stopwatch.StartNew();
        long sent = 0, ackable = 0, refused = 0;
        long nextSample = Stopwatch.Frequency;
        long start = Stopwatch.GetTimestamp();
        while (sent < set.Count)
        {
            long now = Stopwatch.GetTimestamp() - start;
            long due = Math.Min(set.Count, now * o.Rate / Stopwatch.Frequency);
            while (sent < due)
            {
                var (sender, type, body) = set[(int)sent];
                // Batched: stored now, written at FlushAll (one socket write per session per round, not one per message).
                if (participants[sender].SendDeferred(type, body) != SendResult.Sent)
                {
                    refused++;
                    break;
                }

                sent++;
                if (type.Length != 1 || type[0] != (byte)'T')
                {
                    ackable++;
                }
            }

            participants.FlushAll();
            if (now >= nextSample)
            {
                samples.Add(ackable - (collector.Acks - collector.Refusals));
                nextSample += Stopwatch.Frequency;
                output.WriteLine($"t={samples.Count,3}s sent {sent,10} acked {collector.Acks - collector.Refusals,10} refused {collector.Refusals,8} backlog {samples[^1],8}");
            }

            Thread.Sleep(1);
        }

        double sendSeconds = clock.Elapsed.TotalSeconds;
        // A refusal (BusinessMessageReject 4) answers a message but the matcher never saw it: not progress.
        long backlogAtEnd = ackable - (collector.Acks - collector.Refusals);
        Verifier.WaitForAnswers(collector, ackable, 0, TimeSpan.FromSeconds(60));
        double drainSeconds = clock.Elapsed.TotalSeconds - sendSeconds;
        int half = samples.Count / 2;
        long growth = samples.Count > 1 ? samples[^1] - samples[half] : 0;
        long matched = -1, serviceRefused = -1;
        output.WriteLine(
            $"offered {o.Rate} messages/s for {sendSeconds:F1} s: sent {sent} (refused sends {refused}), acked {collector.Acks - collector.Refusals} of {ackable} " +
            $"(and {collector.Refusals} refused by the service), backlog at end {backlogAtEnd}, growth over the second half {growth}, drained in {drainSeconds:F1} s");
        if (server is not null)
        {
            var c = server.Counters;
            matched = c.InputsMatched;
            serviceRefused = c.InputsRefused;
            output.WriteLine($"service: matched {c.InputsMatched}, answers sent {c.AnswersSent}, refused for back-pressure {c.InputsRefused}");
        }

        var verdict = ThroughputVerdict.Judge(o.Rate, sent, ackable, collector.Acks - collector.Refusals, backlogAtEnd, growth,
            refused + Math.Max(collector.Refusals, serviceRefused), matched); // the service's count and its answers are the same refusals
        output.WriteLine($"rate {o.Rate} messages/s for {o.Seconds} s: {verdict.Line}");
        return verdict.Sustainable ? 0 : 1;
    }
}

/// <summary>
/// The throughput verdict. Sustainable (paper 001) means the service kept up with what was offered: every message
/// matched and acknowledged, nothing refused, and the backlog bounded (at the end below one second's worth, not
/// growing over the second half). A run that refused messages for back-pressure (BusinessMessageReject 4) is not
/// sustainable, however short its backlog: the refusals answered messages the matcher never saw.
/// </summary>
/// <param name="Sustainable">Whether the rate is sustainable.</param>
/// <param name="Line">The verdict as printed (the reasons when it is not).</param>
internal readonly record struct ThroughputVerdict(bool Sustainable, string Line)
{
    /// <param name="rate">Messages per second offered.</param>
    /// <param name="sent">Messages sent.</param>
    /// <param name="ackable">Messages sent that get an ack (all but SETs).</param>
    /// <param name="acks">Acks of messages the matcher saw (refusals not included).</param>
    /// <param name="backlogAtEnd">Ackable messages without such an ack when the sending ended.</param>
    /// <param name="growth">How much the backlog grew over the second half.</param>
    /// <param name="refused">Messages refused anywhere: the driver's sessions, the service's refusals (answers or counter).</param>
    /// <param name="matched">Inputs the service matched, or -1 when not known (a service in another process).</param>
    public static ThroughputVerdict Judge(int rate, long sent, long ackable, long acks, long backlogAtEnd, long growth, long refused, long matched)
    {
        var reasons = new List<string>();
        if (refused > 0)
        {
            reasons.Add($"{refused} refused for back-pressure");
        }

        if (matched >= 0 && matched < sent)
        {
            reasons.Add($"matched {matched} of {sent} sent");
        }

        if (acks < ackable)
        {
            reasons.Add($"acked {acks} of {ackable}");
        }

        bool bounded = backlogAtEnd <= rate && growth <= (rate / 100) + 1000;
        if (!bounded)
        {
            reasons.Add($"backlog not bounded ({backlogAtEnd} at the end, growth {growth} over the second half)");
        }

        return reasons.Count == 0
            ? new ThroughputVerdict(true, "backlog bounded, nothing refused, every input matched: sustainable")
            : new ThroughputVerdict(false, "NOT sustainable: " + string.Join(", ", reasons));
    }
}
