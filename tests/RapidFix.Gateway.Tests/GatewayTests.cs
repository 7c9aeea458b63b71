using System.Text;
using RapidFix.MatchingService;

namespace RapidFix.Gateway.Tests;

/// <summary>
/// Two matching services, each owning one of two partitions, behind one gateway: the trade driver's verify gives the
/// outcomes one service gives (mismatches 0); a service stopped in the middle of a run and started again loses nothing
/// (what was held for it arrives by the FIX resend after its logon); the hold is bounded.
/// </summary>
[Collection(nameof(GatewayProcesses))]
public sealed class GatewayTests : IDisposable
{
    private readonly ScaleOut _scale = new();

    public void Dispose() => _scale.Dispose();

    [Fact]
    public void Two_services_behind_the_gateway_give_the_outcomes_of_one_service()
    {
        using var a = _scale.StartService("a", ScaleOut.FreePort(), 2, [0]);
        using var b = _scale.StartService("b", ScaleOut.FreePort(), 2, [1]);
        using var gateway = _scale.StartGateway(2, [new("127.0.0.1", a.Port, [0]), new("127.0.0.1", b.Port, [1])]);
        WaitForServiceSessions(gateway, 2);

        var (exit, output) = ScaleOut.Finish(_scale.StartVerify(gateway.Port, trades: 400, pace: 0));

        Assert.True(exit == 0 && output.Contains("mismatches 0", StringComparison.Ordinal), output);
        // Both services matched their share, and neither was sent a trade it does not own.
        Assert.True(a.Counters.InputsMatched > 0 && b.Counters.InputsMatched > 0, $"inputs matched: {a.Counters.InputsMatched} and {b.Counters.InputsMatched}");
        Assert.Equal(0, a.RefusedForPartition + b.RefusedForPartition);
        var counters = gateway.Counters;
        Assert.Equal(a.Counters.InputsMatched + b.Counters.InputsMatched, counters.Forwarded);
        Assert.Equal(0, counters.ForwardFailures + counters.AnswerFailures + counters.RefusedRingFull + counters.RefusedServiceDown);
    }

    [Fact]
    public void A_service_stopped_during_a_run_gets_what_was_held_for_it_when_it_comes_back()
    {
        int portB = ScaleOut.FreePort();
        using var a = _scale.StartService("a", ScaleOut.FreePort(), 2, [1]);
        var b = _scale.StartService("b", portB, 2, [0]);
        using var gateway = _scale.StartGateway(2, [new("127.0.0.1", a.Port, [1]), new("127.0.0.1", portB, [0])]);
        WaitForServiceSessions(gateway, 2);

        // Paced, so that traffic flows through the outage: 150 trades (about 1,050 messages) over about 10 s.
        using var verify = _scale.StartVerify(gateway.Port, trades: 150, pace: 100);
        ScaleOut.Until(() => b.Counters.InputsMatched > 50, "service b's first inputs");
        b.Dispose();
        long heldBefore = HeldFor(gateway, 1);
        ScaleOut.Until(() => HeldFor(gateway, 1) > heldBefore + 20, "messages held for the stopped service");
        b = _scale.StartService("b", portB, 2, [0]);
        try
        {
            var (exit, output) = ScaleOut.Finish(verify);
            Assert.True(exit == 0 && output.Contains("mismatches 0", StringComparison.Ordinal), output);
            Assert.True(b.Replay.Inputs > 50, $"the restarted service replayed {b.Replay.Inputs} inputs");
            Assert.Equal(0, gateway.Counters.RefusedServiceDown + gateway.Counters.ForwardFailures);
        }
        finally
        {
            b.Dispose();
        }
    }

    [Fact]
    public void With_one_of_two_services_down_the_other_partition_flows_and_the_held_one_is_delivered_when_it_comes()
    {
        // Service b (partition 0) is down from the start; service a (partition 1) is up.
        int portB = ScaleOut.FreePort();
        using var a = _scale.StartService("a", ScaleOut.FreePort(), 2, [1]);
        using var gateway = _scale.StartGateway(2, [new("127.0.0.1", a.Port, [1]), new("127.0.0.1", portB, [0])]);
        ScaleOut.Until(() => Enumerable.Range(0, ScaleOut.Participants.Length).All(p => gateway.ServiceSession(0, p).IsLoggedOn), "the gateway's logons to service a");

        // Paced (100 messages/s, about 10 s): trades of both partitions are offered while b is down.
        // verify waits up to 120 s without an answer: b starts after the last message is sent (its start, under a
        // loaded CI machine, took longer than verify's default 5 s once).
        using var verify = _scale.StartVerify(gateway.Port, trades: 150, pace: 100, idle: 120);
        ScaleOut.Until(() => HeldFor(gateway, 1) > 100, "messages held for service b");
        // Meanwhile partition 1's trades flowed: matched by a, and its answers carried back to the participants.
        long matched = a.Counters.InputsMatched;
        long answers = gateway.Counters.Answers;
        Assert.True(matched > 50, $"service a matched {matched} inputs while b was down");
        Assert.True(answers > 0, $"no answer carried back for the {matched} inputs matched");
        ScaleOut.Until(() => a.Counters.InputsMatched > matched, "service a matching on while b is down");
        long held = HeldFor(gateway, 1);

        using var b = _scale.StartService("b", portB, 2, [0]);
        var (exit, output) = ScaleOut.Finish(verify);

        // Every trade's outcome is what one service gives: the held messages were delivered by the resend after b's
        // logon, matched, and answered; none was refused or lost.
        Assert.True(exit == 0 && output.Contains("mismatches 0", StringComparison.Ordinal), output);
        Assert.True(b.Counters.InputsMatched >= held, $"service b matched {b.Counters.InputsMatched} inputs, {held} were held for it");
        var counters = gateway.Counters;
        Assert.Equal(a.Counters.InputsMatched + b.Counters.InputsMatched, counters.Forwarded);
        Assert.Equal(0, counters.RefusedServiceDown + counters.RefusedRingFull + counters.ForwardFailures + counters.AnswerFailures);
    }

    [Fact]
    public void Messages_for_a_service_that_is_down_are_held_up_to_the_bound_then_refused_and_the_held_ones_answered_when_it_comes()
    {
        int partition = ScaleOut.DocumentedTradePartition(2);
        int portDown = ScaleOut.FreePort();
        using var other = _scale.StartService("other", ScaleOut.FreePort(), 2, [1 - partition]);
        using var gateway = _scale.StartGateway(2, [new("127.0.0.1", portDown, [partition]), new("127.0.0.1", other.Port, [1 - partition])], hold: 2);
        using var eb1 = new Participant("EB1", gateway.Port, Path.Combine(_scale.Work, "eb1"));
        ScaleOut.Until(() => eb1.Session.IsLoggedOn, "EB1's logon to the gateway");
        var (sender, type, body) = ScaleOut.Example("NOE");
        Assert.Equal("EB1", sender);

        for (int i = 1; i <= 3; i++)
        {
            Assert.Equal(RapidFix.Engine.Sessions.SendResult.Sent, eb1.Send(type, body.Replace("571=NOE-1001", $"571=NOE-HOLD-{i}", StringComparison.Ordinal)));
            if (i < 3)
            {
                ScaleOut.Until(() => gateway.Counters.Forwarded == i, $"message {i} held");
            }
        }

        // The third is beyond the hold: "application not available", naming the participant's own MsgSeqNum.
        ScaleOut.Until(() => eb1.Received.Any(m => m.Contains("|35=j|", StringComparison.Ordinal)), "the refusal of the third");
        var refusal = eb1.Received.Single(m => m.Contains("|35=j|", StringComparison.Ordinal));
        Assert.Contains("|380=4|", refusal, StringComparison.Ordinal);
        Assert.Contains("|45=4|", refusal, StringComparison.Ordinal); // logon 1, then 2, 3, 4
        Assert.Equal(1, gateway.Counters.RefusedServiceDown);
        Assert.Equal(2, gateway.Counters.Forwarded);

        using var back = _scale.StartService("back", portDown, 2, [partition]);
        ScaleOut.Until(() => eb1.Received.Count(m => m.Contains("|35=AR|", StringComparison.Ordinal)) == 2, "the two held NOEs' acks");
        Assert.Contains(eb1.Received, m => m.Contains("|571=NOE-HOLD-1|", StringComparison.Ordinal));
        Assert.Contains(eb1.Received, m => m.Contains("|571=NOE-HOLD-2|", StringComparison.Ordinal));
        Assert.DoesNotContain(eb1.Received, m => m.Contains("|571=NOE-HOLD-3|", StringComparison.Ordinal));
        Assert.Equal(2, back.Counters.InputsMatched);
    }

    [Fact]
    public void The_gateway_refuses_at_startup_a_partition_map_with_a_gap_or_an_overlap()
    {
        var overlap = Assert.Throws<RapidFix.Engine.Configuration.ConfigurationException>(() =>
            _scale.StartGateway(2, [new("127.0.0.1", 1, [0, 1]), new("127.0.0.1", 2, [1])]));
        Assert.Contains("partition 1 is owned by services 1 and 2", overlap.Message, StringComparison.Ordinal);
        var gap = Assert.Throws<RapidFix.Engine.Configuration.ConfigurationException>(() =>
            _scale.StartGateway(3, [new("127.0.0.1", 1, [0]), new("127.0.0.1", 2, [2])]));
        Assert.Contains("partition 1 is owned by no service", gap.Message, StringComparison.Ordinal);
    }

    private static long HeldFor(GatewayServer gateway, int service)
    {
        long held = 0;
        for (int p = 0; p < ScaleOut.Participants.Length; p++)
        {
            held += gateway.ServiceSession(service, p).MessagesStoredWhileNotLoggedOn;
        }

        return held;
    }

    private static void WaitForServiceSessions(GatewayServer gateway, int services) =>
        ScaleOut.Until(() => Enumerable.Range(0, services).All(k =>
            Enumerable.Range(0, ScaleOut.Participants.Length).All(p => gateway.ServiceSession(k, p).IsLoggedOn)), "the gateway's logons to the services");
}
