using RapidFix.Engine.Configuration;
using RapidFix.Engine.Sessions;

namespace RapidFix.Gateway.Tests;

/// <summary>
/// A matching service that owns some partitions refuses a message of another (routed wrongly): BusinessMessageReject 6
/// naming the message, nothing journalled or matched; a message of its own partition is matched as before.
/// </summary>
[Collection(nameof(GatewayProcesses))]
public sealed class PartitionOwnershipTests : IDisposable
{
    private readonly ScaleOut _scale = new();

    public void Dispose() => _scale.Dispose();

    [Fact]
    public void A_message_routed_to_the_service_that_does_not_own_its_partition_is_refused_and_not_matched()
    {
        int partition = ScaleOut.DocumentedTradePartition(2);
        using var wrong = _scale.StartService("wrong", ScaleOut.FreePort(), 2, [1 - partition]);
        using var eb1 = new Participant("EB1", wrong.Port, Path.Combine(_scale.Work, "eb1-wrong"));
        ScaleOut.Until(() => eb1.Session.IsLoggedOn, "EB1's logon");
        var (_, type, body) = ScaleOut.Example("NOE");

        Assert.Equal(SendResult.Sent, eb1.Send(type, body));

        ScaleOut.Until(() => !eb1.Received.IsEmpty, "the answer");
        Thread.Sleep(300); // anything else would arrive now
        var answer = Assert.Single(eb1.Received);
        Assert.Contains("|35=j|", answer, StringComparison.Ordinal);
        Assert.Contains("|45=2|", answer, StringComparison.Ordinal);
        Assert.Contains("|372=AE|", answer, StringComparison.Ordinal);
        Assert.Contains("|380=6|", answer, StringComparison.Ordinal);
        Assert.Equal(1, wrong.RefusedForPartition);
        Assert.Equal(0, wrong.Counters.InputsMatched);
        Assert.Equal(0, wrong.Counters.JournalledInputs); // the NOE was not journalled
    }

    [Fact]
    public void A_message_of_an_owned_partition_is_matched()
    {
        int partition = ScaleOut.DocumentedTradePartition(2);
        using var owner = _scale.StartService("owner", ScaleOut.FreePort(), 2, [partition]);
        using var eb1 = new Participant("EB1", owner.Port, Path.Combine(_scale.Work, "eb1-owner"));
        ScaleOut.Until(() => eb1.Session.IsLoggedOn, "EB1's logon");
        var (_, type, body) = ScaleOut.Example("NOE");

        Assert.Equal(SendResult.Sent, eb1.Send(type, body));

        ScaleOut.Until(() => eb1.Received.Any(m => m.Contains("|35=AR|", StringComparison.Ordinal)), "the ack");
        Assert.Equal(0, owner.RefusedForPartition);
        Assert.Equal(1, owner.Counters.InputsMatched);
    }

    [Fact]
    public void Ownership_the_service_cannot_honour_is_refused_at_startup()
    {
        var outside = Assert.Throws<ConfigurationException>(() => _scale.StartService("outside", ScaleOut.FreePort(), 2, [2]));
        Assert.Contains("owned partition 2 is outside 0..1", outside.Message, StringComparison.Ordinal);
        var none = Assert.Throws<ConfigurationException>(() => _scale.StartService("none", ScaleOut.FreePort(), 2, []));
        Assert.Contains("must own at least one partition", none.Message, StringComparison.Ordinal);
    }
}
