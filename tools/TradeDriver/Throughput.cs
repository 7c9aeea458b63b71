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

    public string StaticData { get; init; } = Path.Combine(AppContext.BaseDirectory, "StaticData", "Demo");
}

/// <summary>
/// throughput: offers good trades at a fixed rate (open loop: the schedule does not wait for answers) through one
/// session per participant, samples the backlog (messages sent and not yet acknowledged) every second, and says
/// whether it stayed bounded: at the end below one second's worth of messages, and not growing over the second half.
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
                samples.Add(ackable - collector.Acks);
                nextSample += Stopwatch.Frequency;
                output.WriteLine($"t={samples.Count,3}s sent {sent,10} acked {collector.Acks,10} backlog {samples[^1],8}");
            }

            Thread.Sleep(1);
        }

        double sendSeconds = clock.Elapsed.TotalSeconds;
        long backlogAtEnd = ackable - collector.Acks;
        Verifier.WaitForAnswers(collector, ackable, 0, TimeSpan.FromSeconds(60));
        double drainSeconds = clock.Elapsed.TotalSeconds - sendSeconds;
        int half = samples.Count / 2;
        long growth = samples.Count > 1 ? samples[^1] - samples[half] : 0;
        bool bounded = backlogAtEnd <= o.Rate && growth <= o.Rate / 100 + 1000 && collector.Acks >= ackable;
        output.WriteLine(
            $"offered {o.Rate} messages/s for {sendSeconds:F1} s: sent {sent} (refused sends {refused}), acked {collector.Acks} of {ackable}, " +
            $"backlog at end {backlogAtEnd}, growth over the second half {growth}, drained in {drainSeconds:F1} s");
        if (server is not null)
        {
            var c = server.Counters;
            output.WriteLine($"service: matched {c.InputsMatched}, answers sent {c.AnswersSent}, refused for back-pressure {c.InputsRefused}");
        }

        output.WriteLine($"rate {o.Rate} messages/s for {o.Seconds} s: backlog {(bounded ? "bounded" : "NOT bounded")}");
        return bounded ? 0 : 1;
    }
}
