namespace RapidFix.Matching.Tests;

/// <summary>
/// A SET names no trade: it takes the oldest slot of its account (investment manager, executing broker, side,
/// account) that awaits a SET and agrees with it. Slots whose SET never comes (refused under back-pressure, lost)
/// wait until they expire; a SET must still find its slot in a step, not by walking all of them (the walk made the
/// matching service, behind after a stall, fall to a tenth of its rate: docs/performance.md).
/// </summary>
public sealed class AwaitingChainTests
{
    private const int Waiting = 1000;

    [Fact]
    public void A_SET_finds_the_oldest_awaiting_slot_of_its_account_in_a_step_however_many_wait()
    {
        var matcher = Demo.NewMatcher(openTrades: 2 * Waiting);
        var sink = new RecordingSink();
        for (int i = 0; i < Waiting; i++)
        {
            var trade = Trades.Documented("-" + i);
            foreach (var name in new[] { "ALC-A", "ALC-B", "NPR-A", "NPR-B" })
            {
                Trades.Send(matcher, trade[name], ref sink);
            }
        }

        Assert.Equal(Waiting, matcher.OpenTrades);

        // A slot in the middle leaves its chain (its ALC and NPR cancelled): the chain stays whole around it.
        var middle = Trades.Documented("-" + (Waiting / 2));
        Trades.Send(matcher, Cancel(middle["ALC-A"], "ALC-X", IdOf(middle["ALC-A"], "70")), ref sink);
        Trades.Send(matcher, Cancel(middle["NPR-A"], "NPR-X", IdOf(middle["NPR-A"], "664")), ref sink);
        Assert.Empty(sink.Exceptions);

        // Every remaining slot of account A takes one SET, each found at the front of the chain.
        long visits = matcher.AwaitingVisits;
        for (int j = 0; j < Waiting - 1; j++)
        {
            Trades.Send(matcher, Trades.Documented("-s" + j)["SET-A"], ref sink);
            Assert.Equal(AckStatus.Accepted, sink.LastAck.Status);
        }

        long walked = matcher.AwaitingVisits - visits;
        Assert.InRange(walked, Waiting - 1, 2 * (Waiting - 1));

        // None waits any more: the next SET of account A waits for a slot itself, having looked at none.
        visits = matcher.AwaitingVisits;
        Trades.Send(matcher, Trades.Documented("-last")["SET-A"], ref sink);
        Assert.Equal(AckStatus.Accepted, sink.LastAck.Status);
        Assert.Equal(visits, matcher.AwaitingVisits);
        Assert.Empty(sink.Exceptions);
        Assert.Empty(sink.Cleared);
    }

    [Fact]
    public void The_oldest_slot_that_agrees_takes_the_SET_and_when_none_agrees_the_newest_slots_mismatch_is_reported()
    {
        // Two trades of the same account with different securities (so each NOE has its own trade), complete but for
        // account A's SET; the older one's NPR names another place of settlement.
        var older = Trades.Documented("-1");
        older["NPR-A"] = Place(older["NPR-A"], "DTC");
        var newer = Trades.Documented("-2");
        foreach (var name in new[] { "NOE", "ALC-A", "ALC-B", "NPR-A", "NPR-B" })
        {
            newer[name] = Demo.With(newer[name], "48=SG1L01001909");
        }

        var matcher = Demo.NewMatcher();
        var sink = new RecordingSink();
        foreach (var trade in new[] { older, newer })
        {
            foreach (var name in new[] { "NOE", "ALC-A", "ALC-B", "NPR-A", "NPR-B", "SET-B" })
            {
                Trades.Send(matcher, trade[name], ref sink);
            }
        }

        Assert.True(sink.Exceptions.Count == 0, string.Join("; ", sink.Exceptions.Select(e => RecordingSink.Text(e))));
        Assert.Equal(2, matcher.OpenTrades);

        // A SET at a third place agrees with neither: the mismatch reported is the newer slot's (CDP).
        Trades.Send(matcher, Place(Trades.Documented("-x")["SET-A"], "JASDEC"), ref sink);
        Assert.Equal(AckStatus.Rejected, sink.LastAck.Status);
        var mismatch = Assert.Single(sink.Exceptions);
        Assert.Equal(Criterion.PlaceOfSettlement, mismatch.Criterion);
        Assert.Contains("CDP", RecordingSink.Text(mismatch), StringComparison.Ordinal);

        // A SET at CDP: the older slot (DTC) does not agree, the newer one takes it and its trade clears.
        Trades.Send(matcher, older["SET-A"], ref sink);
        Assert.Single(sink.Cleared);
        Assert.Equal(1, matcher.OpenTrades);

        // A SET at DTC: the older trade's.
        Trades.Send(matcher, Place(Trades.Documented("-3")["SET-A"], "DTC"), ref sink);
        Assert.Equal(2, sink.Cleared.Count);
        Assert.Equal(0, matcher.OpenTrades);
    }

    /// <summary>The message with another place of settlement (the party of role 10; CDP in the examples), framed again.</summary>
    private static string Place(string text, string place) =>
        Demo.Frame(text.Replace("|448=CDP|", "|448=" + place + "|", StringComparison.Ordinal).TrimEnd('|').Split('|'));

    private static string IdOf(string text, string tag)
    {
        int at = text.IndexOf("|" + tag + "=", StringComparison.Ordinal) + tag.Length + 2;
        return text[at..text.IndexOf('|', at)];
    }

    /// <summary>A cancel of an ALC (71=2, 72) or an NPR (666=2, 772).</summary>
    private static string Cancel(string text, string id, string refId) =>
        text.Contains("|35=AK|", StringComparison.Ordinal)
            ? Demo.Frame(Demo.With(text, "664=" + id, "666=2").Replace("|666=2|", "|666=2|772=" + refId + "|", StringComparison.Ordinal).TrimEnd('|').Split('|'))
            : Demo.Frame(Demo.With(text, "70=" + id, "71=2").Replace("|71=2|", "|71=2|72=" + refId + "|", StringComparison.Ordinal).TrimEnd('|').Split('|'));
}
