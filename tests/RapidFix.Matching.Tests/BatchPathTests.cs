using System.Text;
using RapidFix.Tests.Shared;

namespace RapidFix.Matching.Tests;

/// <summary>
/// The batch entry (<see cref="Matcher.Process{TSink}(ReadOnlySpan{MatchInput}, ref TSink)"/>) gives exactly the
/// answers, in the same order, and leaves the same state as one <see cref="Matcher.Process{TSink}(in MatchInput, ref TSink)"/>
/// call per input, on the generated streams of the other tests; and allocates nothing.
/// </summary>
public sealed class BatchPathTests
{
    private static readonly int[] BatchSizes = [1, 2, 3, 5, 7, 8, 13, 64, 256, int.MaxValue];

    /// <summary>A step of a run: an input, or (Input null) a business-date change.</summary>
    private readonly record struct Step(MatchInput? Input, int Date);

    [Fact]
    public void Every_order_of_the_seven_messages_gives_the_same_answers_as_one_by_one()
    {
        var trade = Trades.Documented();
        var inputs = Trades.Seven.Select(n => Trades.Read(trade[n])).ToArray();
        int orders = 0;
        foreach (var order in LifecycleTests.Permutations(Enumerable.Range(0, 7).ToArray()))
        {
            // Whole in one batch, and split in two at a position that moves with the order.
            var steps = order.Select(i => new Step(inputs[i], 0)).ToList();
            var one = RunOneByOne(steps, () => Demo.NewMatcher(openTrades: 4));
            Assert.Single(one.Log, l => l.StartsWith("CLS ", StringComparison.Ordinal));
            Assert.Equal(one.Log, RunBatched(steps, int.MaxValue, () => Demo.NewMatcher(openTrades: 4)).Log);
            Assert.Equal(one.Log, RunBatched(steps, 1 + (orders % 6), () => Demo.NewMatcher(openTrades: 4)).Log);
            orders++;
        }

        Assert.Equal(5040, orders);
    }

    [Fact]
    public void Interleaved_trades_with_duplicates_replaces_cancels_and_mismatches_give_the_same_answers()
    {
        var steps = GeneratedStream(trades: 120, seed: 20261123);
        var one = RunOneByOne(steps, () => Demo.NewMatcher());

        // The stream exercises what it is meant to (else equality would prove little).
        Assert.Contains(one.Log, l => l.StartsWith("CLS ", StringComparison.Ordinal));
        Assert.Contains(one.Log, l => l.Contains(" Duplicate ", StringComparison.Ordinal));
        Assert.Contains(one.Log, l => l.Contains("ACK Alc Replace Accepted", StringComparison.Ordinal));
        Assert.Contains(one.Log, l => l.Contains("ACK Set Cancel Accepted", StringComparison.Ordinal));
        Assert.Contains(one.Log, l => l.Contains("MISMATCH", StringComparison.Ordinal));
        Assert.Contains(one.Log, l => l.Contains("ID-REUSED", StringComparison.Ordinal));
        Assert.Contains(one.Log, l => l.Contains("UNKNOWN-REFERENCE", StringComparison.Ordinal));
        Assert.Contains(one.Log, l => l.Contains("EXPIRED", StringComparison.Ordinal));
        foreach (int size in BatchSizes)
        {
            var batched = RunBatched(steps, size, () => Demo.NewMatcher());
            Assert.Equal(one.Log, batched.Log);
            Assert.Equal(one.State, batched.State);
        }
    }

    [Fact]
    public void Full_tables_give_the_same_answers_batched()
    {
        // Few trade and message rows: trades and messages are refused TABLE-FULL, rows are given back and reused.
        var steps = GeneratedStream(trades: 60, seed: 7);
        Matcher Small() => Demo.NewMatcher(openTrades: 3, clearedTrades: 2, messages: 24, exceptions: 64);
        var one = RunOneByOne(steps, Small);
        Assert.Contains(one.Log, l => l.Contains("TABLE-FULL", StringComparison.Ordinal));
        Assert.Contains(one.Log, l => l.StartsWith("CLS ", StringComparison.Ordinal));
        foreach (int size in BatchSizes)
        {
            var batched = RunBatched(steps, size, Small);
            Assert.Equal(one.Log, batched.Log);
            Assert.Equal(one.State, batched.State);
        }
    }

    [Fact]
    public void An_empty_batch_does_nothing()
    {
        var matcher = Demo.NewMatcher();
        var sink = new RecordingSink();
        matcher.Process(ReadOnlySpan<MatchInput>.Empty, ref sink);
        Assert.Empty(sink.Log);
        Assert.Equal(0, matcher.Counters.Messages);
    }

    [Fact]
    public void The_batch_path_allocates_nothing_after_warm_up()
    {
        // Clearing, retention eviction, duplicates, a mismatch, waiting SETs, expiry and the exception ring wrapping,
        // in batches of a few trades (the inputs of one trade in one batch, within the look-ahead of each other).
        var trades = AllocationAndBoundaryTests.TradeInputs(2048);
        var batches = new MatchInput[trades.Length][];
        for (int t = 0; t < trades.Length; t++)
        {
            var trade = trades[t];
            var wrong = trade[2];
            wrong.Id.TrySet("WRONG-PRICE"u8);
            wrong.Price += 10_000;
            int count = t % 10 == 0 ? 6 : 7; // every tenth trade lacks SET-B: it expires
            batches[t] = [.. trade.Take(count), trade[1], wrong];
        }

        var state = new BatchFlow { Matcher = Demo.NewMatcher(openTrades: 4096, clearedTrades: 64, exceptions: 256), Batches = batches };
        long bytes = Allocations.Measure(state, static f =>
        {
            f.Matcher.Process(f.Batches[f.Next++ % f.Batches.Length], ref f.Sink);
            if (f.Next % 64 == 0)
            {
                f.Date = f.Date.AddDays(1);
                f.Matcher.AdvanceBusinessDate(f.Date.Year * 10000 + f.Date.Month * 100 + f.Date.Day, ref f.Sink);
            }
        }, iterations: 20_000);

        Assert.Equal(0, bytes);
        Assert.True(state.Sink.Cleared > 10_000);
        Assert.True(state.Matcher.Counters.Expired > 0);
        Assert.True(state.Sink.Exceptions > 0);
        Assert.True(state.Matcher.Counters.Duplicates > 10_000);
    }

    private sealed class BatchFlow
    {
        public required Matcher Matcher;
        public required MatchInput[][] Batches;
        public CountingSink Sink;
        public int Next;
        public DateOnly Date = new(2026, 11, 23);
    }

    /// <summary>
    /// Trades of the documented example (IDs numbered per trade) in groups of three, each group's messages shuffled
    /// together, with duplicates, PossDup resends, an allocation first sent wrong and replaced, a SET cancelled and
    /// sent again, price mismatches, an ID reused with another transaction type, a cancel of an unknown ID, trades
    /// left incomplete (they expire) and business-date changes.
    /// </summary>
    private static List<Step> GeneratedStream(int trades, int seed)
    {
        var rng = new Random(seed);
        var template = Trades.Documented();
        var seven = Trades.Seven.Select(n => Trades.Read(template[n])).ToArray();
        var steps = new List<Step>();
        int date = 20261123;
        for (int g = 0; g < trades; g += 3)
        {
            var group = new List<List<MatchInput>>();
            for (int t = g; t < g + 3 && t < trades; t++)
            {
                var msgs = new List<MatchInput>();
                var own = seven.Select(i => Renamed(i, i.Id + "-" + t)).ToArray();
                int kind = t % 6;
                for (int k = 0; k < 7; k++)
                {
                    if (kind == 5 && k == 6)
                    {
                        continue; // SET-B never comes: the trade expires
                    }

                    if (kind == 1 && k == 1)
                    {
                        // ALC-A first says 5,000, then a replace (new ID, reference to the first) says 6,000.
                        var wrong = own[1];
                        wrong.Quantity = 5_000 * Scaled.One;
                        msgs.Add(wrong);
                        var replace = Renamed(own[1], own[1].Id + "R");
                        replace.Trans = TransType.Replace;
                        replace.RefId = own[1].Id;
                        msgs.Add(replace);
                        continue;
                    }

                    msgs.Add(own[k]);
                }

                if (kind == 2)
                {
                    // SET-A cancelled (its own ID, reference to the first), then sent again under a new ID.
                    var cancel = Renamed(own[5], own[5].Id + "C");
                    cancel.Trans = TransType.Cancel;
                    cancel.RefId = own[5].Id;
                    msgs.Add(cancel);
                    msgs.Add(Renamed(own[5], own[5].Id + "N"));
                }

                if (kind == 3)
                {
                    var mismatch = Renamed(own[3], own[3].Id + "X");
                    mismatch.Price += 10_000;
                    msgs.Add(mismatch);
                    var reused = own[4];
                    reused.Trans = TransType.Cancel; // the same ID, another transaction type
                    reused.RefId = own[3].Id;
                    msgs.Add(reused);
                }

                if (kind == 4)
                {
                    var unknown = Renamed(own[0], own[0].Id + "C");
                    unknown.Trans = TransType.Cancel;
                    unknown.RefId.TrySet("NOE-NEVER-SENT"u8);
                    msgs.Add(unknown);
                }

                for (int d = rng.Next(0, 3); d > 0; d--)
                {
                    var again = own[rng.Next(7)];
                    again.PossDup = rng.Next(2) == 0;
                    msgs.Add(again);
                }

                group.Add(msgs);
            }

            // Shuffle the group's messages, keeping each trade's own order (a replace or cancel after its original).
            var cursors = new int[group.Count];
            int left = group.Sum(m => m.Count);
            while (left > 0)
            {
                int pick;
                do
                {
                    pick = rng.Next(group.Count);
                }
                while (cursors[pick] == group[pick].Count);

                steps.Add(new Step(group[pick][cursors[pick]++], 0));
                left--;
            }

            if (g % 30 == 27)
            {
                date = NextDay(date);
                steps.Add(new Step(null, date));
            }
        }

        for (int d = 0; d < 4; d++)
        {
            date = NextDay(date);
            steps.Add(new Step(null, date));
        }

        return steps;
    }

    private static int NextDay(int yyyymmdd)
    {
        var day = new DateOnly(yyyymmdd / 10000, yyyymmdd / 100 % 100, yyyymmdd % 100).AddDays(1);
        return day.Year * 10000 + day.Month * 100 + day.Day;
    }

    private static MatchInput Renamed(MatchInput input, string id)
    {
        Assert.True(input.Id.TrySet(Encoding.ASCII.GetBytes(id)));
        input.MessageId = input.Id;
        return input;
    }

    private static (List<string> Log, string State) RunOneByOne(List<Step> steps, Func<Matcher> create)
    {
        var matcher = create();
        var sink = new RecordingSink();
        foreach (var step in steps)
        {
            if (step.Input is { } input)
            {
                matcher.Process(in input, ref sink);
            }
            else
            {
                matcher.AdvanceBusinessDate(step.Date, ref sink);
            }
        }

        return (sink.Log, State(matcher));
    }

    /// <summary>The inputs between two date changes in batches of at most <paramref name="size"/>.</summary>
    private static (List<string> Log, string State) RunBatched(List<Step> steps, int size, Func<Matcher> create)
    {
        var matcher = create();
        var sink = new RecordingSink();
        var pending = new List<MatchInput>();
        void Flush()
        {
            var all = pending.ToArray();
            for (int at = 0; at < all.Length; at += Math.Min(size, all.Length))
            {
                matcher.Process(all.AsSpan(at, Math.Min(size, all.Length - at)), ref sink);
            }

            pending.Clear();
        }

        foreach (var step in steps)
        {
            if (step.Input is { } input)
            {
                pending.Add(input);
            }
            else
            {
                Flush();
                matcher.AdvanceBusinessDate(step.Date, ref sink);
            }
        }

        Flush();
        return (sink.Log, State(matcher));
    }

    private static string State(Matcher m)
    {
        var c = m.Counters;
        return $"{m.OpenTrades} {m.BusinessDate} {c.Messages} {c.Accepted} {c.Duplicates} {c.Rejected} {c.Cleared} {c.Expired} {c.TableFull} {c.ClearedEvicted} {m.Exceptions.Count} {m.Exceptions.LastId}";
    }
}
