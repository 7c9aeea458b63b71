using RapidFix.Engine.Codec;
using RapidFix.Engine.Fields;

namespace RapidFix.Engine.Tests.Sessions;

/// <summary>
/// Gap recovery against a counterparty played message by message: every gap gets a ResendRequest, and messages
/// dropped from a full queue ahead of a gap are asked for again, so all arrive in order.
/// </summary>
public sealed class SequenceRecoveryTests
{
    [Fact]
    public void A_second_gap_after_a_resend_through_infinity_gets_its_own_resend_request()
    {
        using var h = new ProtocolHarness();
        h.Logon();
        h.Order(2);
        h.TakeSent();

        h.Order(5); // 3 and 4 missing
        var first = Assert.Single(h.TakeSent());
        Assert.Equal(("2", "3", "0"), (first.Type(), first.Field(Tags.BeginSeqNo), first.Field(Tags.EndSeqNo)));
        h.Order(3, possDup: true);
        h.Order(4, possDup: true);
        Assert.Equal(6, h.Session.NextTargetMsgSeqNum);

        h.Order(8); // a new gap: 6 and 7 missing
        var second = Assert.Single(h.TakeSent());
        Assert.Equal(("2", "6", "0"), (second.Type(), second.Field(Tags.BeginSeqNo), second.Field(Tags.EndSeqNo)));
        h.Order(6, possDup: true);
        h.Order(7, possDup: true);

        Assert.Equal([2, 3, 4, 5, 6, 7, 8], h.Application.Orders);
        Assert.Equal(9, h.Session.NextTargetMsgSeqNum);
        Assert.True(h.Session.IsLoggedOn);
    }

    [Theory]
    [InlineData(0)] // one ResendRequest "through infinity"
    [InlineData(2)] // chunks of two
    public void Messages_beyond_the_queue_capacity_are_all_delivered_in_order(int maxMessagesInResendRequest)
    {
        using var h = new ProtocolHarness($"InboundQueueCapacity=3\nMaxMessagesInResendRequest={maxMessagesInResendRequest}");
        h.Logon();
        h.TakeSent();

        // The counterparty sent 2..20, and 2 was lost: 3..5 fit the queue, 6..20 are dropped.
        const int last = 20;
        int sentByPeer = 1;
        for (int seq = 3; seq <= last; seq++)
        {
            h.Order(seq);
            sentByPeer = seq;
        }

        // The counterparty answers every ResendRequest as it arrives, with what it has sent in the range.
        for (int round = 0; round < 50; round++)
        {
            var requests = h.TakeSent().Where(m => m.Type() == "2").ToList();
            if (requests.Count == 0)
            {
                break;
            }

            foreach (var request in requests)
            {
                int begin = int.Parse(request.Field(Tags.BeginSeqNo), System.Globalization.CultureInfo.InvariantCulture);
                int end = int.Parse(request.Field(Tags.EndSeqNo), System.Globalization.CultureInfo.InvariantCulture);
                for (int seq = begin; seq <= (end == 0 ? sentByPeer : end); seq++)
                {
                    h.Order(seq, possDup: true);
                }
            }
        }

        Assert.Equal(Enumerable.Range(2, last - 1), h.Application.Orders);
        Assert.Equal(last + 1, h.Session.NextTargetMsgSeqNum);
        Assert.True(h.Session.IsLoggedOn);
        Assert.True(h.Session.Counters.InboundQueueOverflows > 0);
        Assert.DoesNotContain("will be resent", h.LogText(), StringComparison.Ordinal);
    }
}
