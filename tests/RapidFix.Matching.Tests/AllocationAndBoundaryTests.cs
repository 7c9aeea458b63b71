using System.Reflection;
using System.Text;
using RapidFix.Engine.Codec;
using RapidFix.Tests.Shared;

namespace RapidFix.Matching.Tests;

/// <summary>The continuous phase allocates nothing; the library depends on no session, transport or store type; the partition function is stable.</summary>
public sealed class AllocationAndBoundaryTests
{
    /// <summary>Distinct trades as pre-read inputs: the documented seven with IDs numbered per trade.</summary>
    internal static MatchInput[][] TradeInputs(int trades)
    {
        var template = Trades.Documented();
        var seven = Trades.Seven.Select(n => Trades.Read(template[n])).ToArray();
        var all = new MatchInput[trades][];
        for (int t = 0; t < trades; t++)
        {
            all[t] = new MatchInput[7];
            for (int k = 0; k < 7; k++)
            {
                var input = seven[k];
                input.Id.TrySet(Encoding.ASCII.GetBytes($"{input.Id}-{t}"));
                input.MessageId = input.Id;
                all[t][k] = input;
            }
        }

        return all;
    }

    private sealed class Flow
    {
        public required Matcher Matcher;
        public required MatchInput[][] Trades;
        public CountingSink Sink;
        public int Next;
        public DateOnly Date = new(2026, 11, 23);
    }

    [Fact]
    public void Matching_allocates_nothing_after_warm_up()
    {
        // Every path of the continuous phase: new trades, clearing, retention eviction, duplicates, a mismatch
        // exception, waiting SETs, expiry on a business-date change, and the exception ring wrapping.
        var flow = new Flow { Matcher = Demo.NewMatcher(openTrades: 4096, clearedTrades: 64, exceptions: 256), Trades = TradeInputs(2048) };
        long bytes = Allocations.Measure(flow, static f =>
        {
            var trade = f.Trades[f.Next++ % f.Trades.Length];
            int count = f.Next % 10 == 0 ? 6 : 7; // every tenth trade lacks SET-B: it expires
            for (int k = 0; k < count; k++)
            {
                f.Matcher.Process(in trade[k], ref f.Sink);
            }

            f.Matcher.Process(in trade[1], ref f.Sink); // a duplicate
            var wrong = trade[2];
            wrong.Id.TrySet("WRONG-PRICE"u8);
            wrong.Price += 10_000;
            f.Matcher.Process(in wrong, ref f.Sink); // a mismatch (or a new trade when the trade has cleared)
            if (f.Next % 64 == 0)
            {
                f.Date = f.Date.AddDays(1);
                f.Matcher.AdvanceBusinessDate(f.Date.Year * 10000 + f.Date.Month * 100 + f.Date.Day, ref f.Sink);
            }
        }, iterations: 20_000);

        Assert.Equal(0, bytes);
        Assert.True(flow.Sink.Cleared > 10_000);
        Assert.True(flow.Matcher.Counters.Expired > 0);
        Assert.True(flow.Sink.Exceptions > 0);
    }

    [Fact]
    public void Reading_and_matching_parsed_FIX_messages_allocates_nothing()
    {
        var names = new[] { "NOE", "ALC-A", "ALC-B", "NPR-A", "NPR-B", "SET-A", "SET-B", "ALC-B-PRICE" };
        var messages = names.Select(n => Demo.Parse(ContractExamples.Get(n))).ToArray();
        var senders = names.Select(n => Demo.SenderOf(ContractExamples.Get(n))).ToArray();
        var state = (Matcher: Demo.NewMatcher(), Messages: messages, Senders: senders, Sink: new CountingSink[1]);
        long bytes = Allocations.Measure(state, static s =>
        {
            for (int i = 0; i < s.Messages.Length; i++)
            {
                s.Matcher.Process(s.Messages[i], s.Senders[i], ref s.Sink[0]);
            }
        }, iterations: 20_000);

        Assert.Equal(0, bytes);
        Assert.Equal(1, state.Sink[0].Cleared);
    }

    [Fact]
    public void The_library_uses_no_session_transport_or_store_type()
    {
        var assembly = typeof(Matcher).Assembly;
        var forbidden = new[] { "RapidFix.Engine.Sessions", "RapidFix.Engine.Transport", "RapidFix.Engine.Store", "RapidFix.Engine.Hosting" };
        var used = new HashSet<string>();
        foreach (var module in assembly.GetModules())
        {
            // Every type the assembly refers to is a row of its TypeRef table (0x01); every member, of MemberRef (0x0A).
            for (int row = 1; ; row++)
            {
                Type type;
                try
                {
                    type = module.ResolveType(0x01000000 | row);
                }
                catch (ArgumentOutOfRangeException)
                {
                    break;
                }

                used.Add(type.FullName ?? type.Name);
            }

            for (int row = 1; ; row++)
            {
                MemberInfo? member;
                try
                {
                    member = module.ResolveMember(0x0A000000 | row);
                }
                catch (ArgumentOutOfRangeException)
                {
                    break;
                }
                catch (ArgumentException)
                {
                    continue; // a generic member needing context: its type is in TypeRef or TypeSpec anyway
                }

                if (member?.DeclaringType is { } declaring)
                {
                    used.Add(declaring.FullName ?? declaring.Name);
                }
            }
        }

        Assert.Contains("RapidFix.Engine.Fields.IFieldAccessor", used);
        Assert.Contains("RapidFix.Engine.Fields.FixDecimal", used);
        Assert.DoesNotContain(used, name => forbidden.Any(ns => name.StartsWith(ns + ".", StringComparison.Ordinal)));
        Assert.DoesNotContain(used, name => name.StartsWith("System.Net.Sockets", StringComparison.Ordinal));
    }

    [Fact]
    public void The_partition_function_is_FNV1a_of_the_manager_and_broker_and_stable()
    {
        // Independent reference computation (FNV-1a 64 over "IM1", 0x1F, "EB1").
        ulong h = 14695981039346656037UL;
        foreach (byte b in "IM1\u001fEB1"u8)
        {
            h = (h ^ b) * 1099511628211UL;
        }

        Assert.Equal(h, TradePartition.Hash("IM1"u8, "EB1"u8));
        Assert.Equal((int)(h % 16), TradePartition.Of("IM1"u8, "EB1"u8, 16));
        Assert.NotEqual(TradePartition.Hash("IM1"u8, "EB1"u8), TradePartition.Hash("EB1"u8, "IM1"u8));

        // Every message of the documented trade names the same partition.
        foreach (var name in Trades.Seven)
        {
            Assert.Equal(TradePartition.Of("IM1"u8, "EB1"u8, 16), TradePartition.Of(Demo.Parse(ContractExamples.Get(name)), 16));
        }

        Assert.Equal(-1, TradePartition.Of(Demo.Parse(ContractExamples.Get("AR")), 16));
    }
}
