namespace RapidFix.Matching.Tests;

/// <summary>Arrival order, duplicates, replace, cancel, late messages, expiry, table exhaustion, replay.</summary>
public sealed class LifecycleTests
{
    [Fact]
    public void Every_order_of_the_seven_messages_gives_exactly_one_CLS()
    {
        // All 7! = 5040 orders, each into a fresh matcher, from pre-read inputs.
        var trade = Trades.Documented();
        var inputs = Trades.Seven.Select(n => Trades.Read(trade[n])).ToArray();
        int orders = 0;
        foreach (var order in Permutations(Enumerable.Range(0, 7).ToArray()))
        {
            var matcher = Demo.NewMatcher(openTrades: 4);
            var sink = new CountingSink();
            foreach (int i in order)
            {
                matcher.Process(in inputs[i], ref sink);
            }

            Assert.Equal(1, sink.Cleared);
            Assert.Equal(0, sink.Rejected);
            Assert.Equal(7, sink.Acks);
            Assert.Equal(0, matcher.OpenTrades);
            orders++;
        }

        Assert.Equal(5040, orders);
    }

    [Fact]
    public void Random_orders_with_duplicates_and_possdup_resends_give_exactly_one_CLS()
    {
        var trade = Trades.Documented();
        var texts = Trades.Seven.Select(n => trade[n]).ToArray();
        var rng = new Random(20261123);
        for (int round = 0; round < 1200; round++)
        {
            var sequence = new List<string>(texts);
            int extra = rng.Next(1, 6);
            for (int d = 0; d < extra; d++)
            {
                string again = texts[rng.Next(7)];
                sequence.Add(rng.Next(2) == 0 ? again : Demo.With(again.Replace("|52=", "|43=Y|52=", StringComparison.Ordinal), "34=99"));
            }

            Shuffle(sequence, rng);
            var matcher = Demo.NewMatcher(openTrades: 4);
            var sink = new RecordingSink();
            foreach (var text in sequence)
            {
                Trades.Send(matcher, text, ref sink);
            }

            Assert.Single(sink.Cleared);
            Assert.Empty(sink.Exceptions);
            Assert.Equal(7, sink.Acks.Count(a => a.Status == AckStatus.Accepted));
            Assert.Equal(extra, sink.Acks.Count(a => a.Status == AckStatus.Duplicate));
        }
    }

    [Fact]
    public void A_duplicate_is_acknowledged_and_changes_nothing()
    {
        var trade = Trades.Documented();
        var matcher = Demo.NewMatcher();
        var sink = new RecordingSink();
        Trades.Send(matcher, trade["ALC-A"], ref sink);
        Trades.Send(matcher, trade["ALC-A"], ref sink);
        Assert.Equal(AckStatus.Duplicate, sink.LastAck.Status);
        Assert.Equal(1, matcher.Counters.Duplicates);
        Assert.Equal(1, matcher.OpenTrades);

        // Had the duplicate counted twice, 6,000 + 6,000 + 4,000 would overfill the block and no CLS would come.
        foreach (var name in new[] { "NOE", "ALC-B", "NPR-A", "NPR-B", "SET-A", "SET-B" })
        {
            Trades.Send(matcher, trade[name], ref sink);
        }

        Assert.Single(sink.Cleared);
    }

    [Fact]
    public void The_same_id_with_another_transaction_type_is_an_exception()
    {
        var trade = Trades.Documented();
        var matcher = Demo.NewMatcher();
        var sink = new RecordingSink();
        Trades.Send(matcher, trade["ALC-A"], ref sink);
        Trades.Send(matcher, Demo.With(trade["ALC-A"], "71=1").Replace("|71=1|", "|71=1|72=ALC-2001|", StringComparison.Ordinal) is var t ? Demo.With(t, "34=9") : "", ref sink);
        Assert.Equal(AckStatus.Rejected, sink.LastAck.Status);
        Assert.Equal(ExceptionReason.IdReused, sink.LastAck.Reason);
    }

    [Fact]
    public void A_replace_re_evaluates_the_trade_and_the_trade_clears_with_the_replacement()
    {
        var trade = Trades.Documented();
        var matcher = Demo.NewMatcher();
        var sink = new RecordingSink();

        // ALC-A first says 5,000: the block (10,000) is not filled, nothing clears.
        string wrong = Demo.With(trade["ALC-A"], "53=5000", "80=5000");
        Trades.Send(matcher, wrong, ref sink);
        foreach (var name in new[] { "NOE", "ALC-B", "SET-A", "SET-B" })
        {
            Trades.Send(matcher, trade[name], ref sink);
        }

        Assert.Empty(sink.Cleared);
        Assert.All(sink.Acks, a => Assert.Equal(AckStatus.Accepted, a.Status));

        // The replacement (new AllocID, RefAllocID to the first) sets 6,000; then the NPRs complete the trade.
        string replace = Demo.With(trade["ALC-A"], "70=ALC-2001R", "71=1").Replace("|71=1|", "|71=1|72=ALC-2001|", StringComparison.Ordinal);
        Trades.Send(matcher, Demo.Frame(replace.TrimEnd('|').Split('|')), ref sink);
        Assert.Equal(AckStatus.Accepted, sink.LastAck.Status);
        Assert.Equal(TransType.Replace, sink.LastAck.Trans);
        Trades.Send(matcher, trade["NPR-A"], ref sink);
        Trades.Send(matcher, trade["NPR-B"], ref sink);
        Assert.Single(sink.Cleared);

        // The replaced ALC's ID still answers as a duplicate.
        Trades.Send(matcher, wrong, ref sink);
        Assert.Equal(AckStatus.Duplicate, sink.LastAck.Status);
    }

    [Fact]
    public void A_replace_that_does_not_fit_is_refused_and_the_original_stands()
    {
        var trade = Trades.Documented();
        var matcher = Demo.NewMatcher();
        var sink = new RecordingSink();
        Trades.Send(matcher, trade["NOE"], ref sink);
        Trades.Send(matcher, trade["ALC-A"], ref sink);
        string replace = Demo.Frame(Demo.With(trade["ALC-A"], "70=ALC-2001R", "71=1", "6=2.6").Replace("|71=1|", "|71=1|72=ALC-2001|", StringComparison.Ordinal).TrimEnd('|').Split('|'));
        Trades.Send(matcher, replace, ref sink);
        Assert.Equal(AckStatus.Rejected, sink.LastAck.Status);
        Assert.Equal(Criterion.Price, sink.LastAck.Criterion);
        foreach (var name in new[] { "ALC-B", "NPR-A", "NPR-B", "SET-A", "SET-B" })
        {
            Trades.Send(matcher, trade[name], ref sink);
        }

        Assert.Single(sink.Cleared);
    }

    [Fact]
    public void A_replace_that_amends_a_key_field_is_refused()
    {
        var trade = Trades.Documented();
        var matcher = Demo.NewMatcher();
        var sink = new RecordingSink();
        Trades.Send(matcher, trade["ALC-A"], ref sink);
        string replace = Demo.Frame(Demo.With(trade["ALC-A"], "70=ALC-2001R", "71=1", "75=20261124").Replace("|71=1|", "|71=1|72=ALC-2001|", StringComparison.Ordinal).TrimEnd('|').Split('|'));
        Trades.Send(matcher, replace, ref sink);
        Assert.Equal(ExceptionReason.KeyFieldAmended, sink.LastAck.Reason);
    }

    [Fact]
    public void A_cancel_withdraws_the_message_and_a_new_one_completes_the_trade()
    {
        var trade = Trades.Documented();
        var matcher = Demo.NewMatcher();
        var sink = new RecordingSink();
        foreach (var name in new[] { "NOE", "ALC-A", "ALC-B", "NPR-A", "NPR-B", "SET-A" })
        {
            Trades.Send(matcher, trade[name], ref sink);
        }

        // Cancel SET-A (its own SettlInstID, 214 refers to SI-4001): it no longer counts.
        string cancel = Demo.Frame(Demo.With(trade["SET-A"], "777=SET-4001C", "162=SI-4001C", "163=C").Replace("|163=C|", "|163=C|214=SI-4001|", StringComparison.Ordinal).TrimEnd('|').Split('|'));
        Trades.Send(matcher, cancel, ref sink);
        Assert.Equal(AckStatus.Accepted, sink.LastAck.Status);
        Trades.Send(matcher, cancel, ref sink);
        Assert.Equal(AckStatus.Duplicate, sink.LastAck.Status);
        Trades.Send(matcher, trade["SET-B"], ref sink);
        Assert.Empty(sink.Cleared);

        // A new SET for ACC-A completes it.
        Trades.Send(matcher, Demo.With(trade["SET-A"], "777=SET-4001N", "162=SI-4001N"), ref sink);
        Assert.Single(sink.Cleared);
    }

    [Fact]
    public void A_cancel_of_an_unknown_id_is_an_exception()
    {
        var trade = Trades.Documented();
        var matcher = Demo.NewMatcher();
        var sink = new RecordingSink();
        string cancel = Demo.Frame(Demo.With(trade["NOE"], "571=NOE-1001C", "487=1").Replace("|487=1|", "|487=1|572=NOE-0000|", StringComparison.Ordinal).TrimEnd('|').Split('|'));
        Trades.Send(matcher, cancel, ref sink);
        Assert.Equal(ExceptionReason.UnknownReference, sink.LastAck.Reason);
        Assert.Equal(572, sink.LastAck.Tag);
    }

    [Fact]
    public void A_late_message_for_a_cleared_trade_is_an_exception_not_a_second_CLS()
    {
        var trade = Trades.Documented();
        var matcher = Demo.NewMatcher();
        var sink = new RecordingSink();
        foreach (var name in Trades.Seven)
        {
            Trades.Send(matcher, trade[name], ref sink);
        }

        Assert.Single(sink.Cleared);

        // A resend of a cleared trade's message is a duplicate; a cancel of a cleared trade's NPR.
        string cancel = Demo.Frame(Demo.With(trade["NPR-A"], "664=NPR-3001C", "666=2").Replace("|666=2|", "|666=2|772=NPR-3001|", StringComparison.Ordinal).TrimEnd('|').Split('|'));
        Trades.Send(matcher, cancel, ref sink);
        Assert.Equal(ExceptionReason.LateForClearedTrade, sink.LastAck.Reason);
        Assert.Single(sink.Cleared);
        Assert.Equal(0, matcher.OpenTrades);
        Trades.Send(matcher, trade["ALC-A"], ref sink);
        Assert.Equal(AckStatus.Duplicate, sink.LastAck.Status);

        // A new message (new ID) that would only complete the cleared trade opens a trade of its own, which
        // expires into the exception queue: never a second CLS.
        Trades.Send(matcher, Demo.With(trade["ALC-A"], "70=ALC-2001-LATE"), ref sink);
        Assert.Equal(AckStatus.Accepted, sink.LastAck.Status);
        for (int date = 20261124; date <= 20261126; date++)
        {
            matcher.AdvanceBusinessDate(date, ref sink);
        }

        Assert.Equal(ExceptionReason.Expired, sink.Exceptions[^1].Reason);
        Assert.Equal("ALC-2001-LATE", sink.Exceptions[^1].MessageId.ToString());
        Assert.Single(sink.Cleared);
    }

    [Fact]
    public void An_open_trade_expires_after_the_configured_business_days_into_the_exception_queue()
    {
        var trade = Trades.Documented();
        var matcher = Demo.NewMatcher(expiryDays: 3);
        var sink = new RecordingSink();
        Trades.Send(matcher, trade["NOE"], ref sink);
        Trades.Send(matcher, trade["ALC-A"], ref sink);
        Trades.Send(matcher, trade["SET-B"], ref sink); // waits for ACC-B
        matcher.AdvanceBusinessDate(20261124, ref sink);
        matcher.AdvanceBusinessDate(20261125, ref sink);
        Assert.Empty(sink.Exceptions);
        Assert.Equal(1, matcher.OpenTrades);
        matcher.AdvanceBusinessDate(20261126, ref sink);
        Assert.Equal(0, matcher.OpenTrades);
        Assert.Equal(3, sink.Exceptions.Count);
        Assert.All(sink.Exceptions, e => Assert.Equal(ExceptionReason.Expired, e.Reason));
        var noe = sink.Exceptions.Single(e => e.Kind == MessageKind.Noe);
        Assert.Equal(Criterion.Quantity, noe.Criterion);
        Assert.Equal("6000", noe.Value.ToString());
        Assert.Equal("10000", noe.Expected.ToString());
        Assert.Equal(20261126, noe.BusinessDate);

        // The expired messages can be re-submitted: the trade starts again.
        Assert.True(matcher.Resubmit(noe.Id, ref sink));
        Assert.False(matcher.Resubmit(noe.Id, ref sink));
        Assert.Equal(1, matcher.OpenTrades);
    }

    [Fact]
    public async Task An_expired_trade_leaves_no_stale_entry_behind_for_the_next_trade_in_its_record()
    {
        // Regression: expiry freed a trade whose ACC-B slot still waited for a SET without taking the slot off the
        // awaiting-SET chain; the next trade in the same record then chained the slot twice and the next SET
        // lookup looped forever. Run with a deadline so the failure is a failure, not a hang.
        var work = Task.Run(() =>
        {
            var matcher = Demo.NewMatcher(openTrades: 1);
            var sink = new RecordingSink();
            var first = Trades.Documented("-1");
            foreach (var name in new[] { "NOE", "ALC-A", "ALC-B", "NPR-A", "NPR-B", "SET-A" })
            {
                Trades.Send(matcher, first[name], ref sink);
            }

            for (int date = 20261124; date <= 20261126; date++)
            {
                matcher.AdvanceBusinessDate(date, ref sink);
            }

            Assert.Equal(0, matcher.OpenTrades);
            var second = Trades.Documented("-2");
            foreach (var name in Trades.Seven)
            {
                Trades.Send(matcher, second[name], ref sink);
            }

            return sink.Cleared.Count;
        });
        var done = await Task.WhenAny(work, Task.Delay(TimeSpan.FromSeconds(120)));
        Assert.True(done == work, "matching did not finish");
        Assert.Equal(1, await work);
    }

    [Fact]
    public void A_full_trade_table_is_counted_and_answered_never_grown()
    {
        var matcher = Demo.NewMatcher(openTrades: 2);
        var sink = new RecordingSink();
        for (int i = 0; i < 3; i++)
        {
            Trades.Send(matcher, Trades.Documented("-" + i)["NOE"].Replace("|32=10000|", $"|32={10000 + i}|", StringComparison.Ordinal) is var t ? Demo.Frame(t.TrimEnd('|').Split('|')) : "", ref sink);
        }

        Assert.Equal(AckStatus.Rejected, sink.LastAck.Status);
        Assert.Equal(ExceptionReason.TableFull, sink.LastAck.Reason);
        Assert.Equal(1, matcher.Counters.TableFull);
        Assert.Equal(2, matcher.OpenTrades);
        Assert.Equal("NOE-1001-2", sink.Exceptions.Single().MessageId.ToString());
    }

    [Fact]
    public void A_full_message_table_is_counted_and_answered()
    {
        var matcher = Demo.NewMatcher(openTrades: 8, messages: 3);
        var sink = new RecordingSink();
        var trade = Trades.Documented();
        foreach (var name in new[] { "NOE", "ALC-A", "ALC-B", "NPR-A" })
        {
            Trades.Send(matcher, trade[name], ref sink);
        }

        Assert.Equal(ExceptionReason.TableFull, sink.LastAck.Reason);
        Assert.Equal(1, matcher.Counters.TableFull);
    }

    [Fact]
    public void Two_trades_of_one_key_are_told_apart_by_quantities()
    {
        var matcher = Demo.NewMatcher();
        var sink = new RecordingSink();
        var first = Trades.Documented("-1");

        // The second trade: 5,000 = 3,000 + 2,000, same manager, broker, security, date and side.
        var second = Trades.Documented("-2");
        second["NOE"] = Demo.With(second["NOE"], "32=5000");
        second["ALC-A"] = Demo.With(second["ALC-A"], "53=3000", "80=3000");
        second["ALC-B"] = Demo.With(second["ALC-B"], "53=2000", "80=2000");
        second["NPR-A"] = Demo.With(second["NPR-A"], "80=3000", "863=3000", "381=7515.00", "12=15.03", "137=0.75", "118=7532.99", "119=7532.99");
        second["NPR-B"] = Demo.With(second["NPR-B"], "80=2000", "863=2000", "381=5010.00", "12=10.02", "137=0.50", "118=5021.99", "119=5021.99");

        // Interleaved: each message's quantity (against the block, or its account's other message) tells the
        // trades apart when it arrives.
        foreach (var (t, name) in new[] { (first, "NOE"), (first, "ALC-A"), (second, "ALC-A"), (first, "ALC-B"), (second, "NOE"), (second, "ALC-B") })
        {
            Trades.Send(matcher, t[name], ref sink);
        }

        foreach (var name in new[] { "NPR-A", "NPR-B", "SET-A", "SET-B" })
        {
            Trades.Send(matcher, first[name], ref sink);
            Trades.Send(matcher, second[name], ref sink);
        }

        Assert.Empty(sink.Exceptions);
        Assert.Equal(2, sink.Cleared.Count);
        Assert.Contains(sink.Cleared, c => c.Net.SequenceEqual([15_063_770_000L, 10_042_510_000L]));
        Assert.Contains(sink.Cleared, c => c.Net.SequenceEqual([7_532_990_000L, 5_021_990_000L]));
    }

    [Fact]
    public void Replaying_the_same_inputs_into_a_fresh_matcher_gives_identical_outputs()
    {
        var inputs = new List<string>();
        var rng = new Random(7);
        for (int i = 0; i < 40; i++)
        {
            var trade = Trades.Documented("-" + i);
            var names = Trades.Seven.ToList();
            if (i % 5 == 0)
            {
                names.Remove("SET-B"); // stays open, expires
            }

            if (i % 7 == 0)
            {
                trade["NPR-A"] = Demo.With(trade["NPR-A"], "381=15031.00"); // a gross mismatch
            }

            inputs.AddRange(names.Select(n => trade[n]));
            inputs.Add(trade["ALC-A"]); // a duplicate
        }

        Shuffle(inputs, rng);
        string[] Run()
        {
            var matcher = Demo.NewMatcher();
            var sink = new RecordingSink();
            int date = 20261123;
            for (int i = 0; i < inputs.Count; i++)
            {
                Trades.Send(matcher, inputs[i], ref sink);
                if (i % 100 == 99)
                {
                    date++;
                    matcher.AdvanceBusinessDate(date, ref sink);
                }
            }

            for (int d = 0; d < 3; d++)
            {
                date++;
                matcher.AdvanceBusinessDate(date, ref sink);
            }

            return [.. sink.Log];
        }

        var first = Run();
        var second = Run();
        Assert.Equal(first, second);
        Assert.Contains(first, l => l.StartsWith("CLS ", StringComparison.Ordinal));
        Assert.Contains(first, l => l.Contains("EXPIRED", StringComparison.Ordinal));
        Assert.Contains(first, l => l.Contains("MISMATCH C08 GROSS", StringComparison.Ordinal));
    }

    internal static IEnumerable<int[]> Permutations(int[] items)
    {
        // Heap's algorithm, iterative.
        var a = (int[])items.Clone();
        var c = new int[a.Length];
        yield return (int[])a.Clone();
        int i = 0;
        while (i < a.Length)
        {
            if (c[i] < i)
            {
                if (i % 2 == 0)
                {
                    (a[0], a[i]) = (a[i], a[0]);
                }
                else
                {
                    (a[c[i]], a[i]) = (a[i], a[c[i]]);
                }

                yield return (int[])a.Clone();
                c[i]++;
                i = 0;
            }
            else
            {
                c[i] = 0;
                i++;
            }
        }
    }

    private static void Shuffle<T>(List<T> list, Random rng)
    {
        for (int i = list.Count - 1; i > 0; i--)
        {
            int j = rng.Next(i + 1);
            (list[i], list[j]) = (list[j], list[i]);
        }
    }
}
