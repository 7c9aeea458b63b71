using System.Text;
using RapidFix.Engine.Codec;
using RapidFix.Engine.Dictionary;
using RapidFix.Matching;
using RapidFix.Tests.Shared;

namespace RapidFix.Gateway.Tests;

/// <summary>
/// The gateway's per-message work: the body found in place, the partition read through the matcher's field view, the
/// forward ring's copy in and out, a BusinessMessageReject's RefSeqNum turned back. Each right, and none allocates.
/// </summary>
public sealed class HotPathTests
{
    private static readonly DataDictionary Fix44 = StandardDictionaries.Load("FIX.4.4");

    [Fact]
    public void The_body_is_the_fields_between_the_header_and_the_trailer_as_they_came()
    {
        var message = Parse(Frame("35=AE|34=2|49=EB1|52=20261123-10:00:00.000|56=MATCH|571=NOE-1|487=0|453=2|448=EB1|452=1|448=IM1|452=13|"));

        Assert.Equal("571=NOE-1|487=0|453=2|448=EB1|452=1|448=IM1|452=13|", Text(MessageBody.Of(message)));
    }

    [Fact]
    public void A_RefSeqNum_is_replaced_and_every_other_body_field_kept_in_order()
    {
        var reject = Parse(Frame("35=j|34=9|49=MATCH|52=20261123-10:00:00.000|56=EB1|45=17|372=T|379=SET-1|380=0|58=EXC 1 NO TRADE|"));
        var buffer = new byte[512];

        int n = MessageBody.WithRefSeqNum(reject, 4, buffer);

        Assert.Equal("45=4|372=T|379=SET-1|380=0|58=EXC 1 NO TRADE|", Text(buffer.AsSpan(0, n)));
    }

    [Fact]
    public void Records_come_out_of_the_forward_ring_as_they_went_in_across_its_wrap_and_a_full_ring_refuses()
    {
        var ring = new ForwardRing(1024);
        var body = new byte[300];
        for (int round = 0; round < 10; round++)
        {
            body.AsSpan().Fill((byte)('a' + round));
            Assert.True(ring.TryWrite(round % 2, round, 100 + round, "AE"u8, body));
            Assert.True(ring.TryWrite(1, 2, 3, "J"u8, body.AsSpan(0, 200)));
            Assert.True(ring.TryPeek(out var first));
            Assert.Equal((round % 2, round, 100 + round), (first.Service, first.Participant, first.ParticipantSeq));
            Assert.Equal("AE", Text(first.MsgType));
            Assert.True(first.Body.SequenceEqual(body));
            ring.Release(first.Size);
            Assert.True(ring.TryPeek(out var second));
            Assert.Equal("J", Text(second.MsgType));
            Assert.Equal(200, second.Body.Length);
            Assert.Equal((byte)('a' + round), second.Body[199]);
            // Left in the ring while the next round writes: the writes wrap around it.
            if (round % 3 == 2)
            {
                ring.Release(second.Size);
            }
            else
            {
                ring.Release(second.Size);
                Assert.True(ring.TryWrite(0, 0, 0, "T"u8, body.AsSpan(0, 100)));
                Assert.True(ring.TryPeek(out var third));
                Assert.Equal("T", Text(third.MsgType));
                ring.Release(third.Size);
            }
        }

        Assert.True(ring.TryWrite(0, 0, 0, "AE"u8, body));
        Assert.True(ring.TryWrite(0, 0, 0, "AE"u8, body));
        Assert.True(ring.TryWrite(0, 0, 0, "AE"u8, body));
        Assert.False(ring.TryWrite(0, 0, 0, "AE"u8, body));
        Assert.Equal(1, ring.Refused);
    }

    [Fact]
    public void Routing_forwarding_and_turning_an_answer_back_allocate_nothing()
    {
        var noe = Parse(Frame("35=AE|34=2|49=EB1|52=20261123-10:00:00.000|56=MATCH|571=NOE-1|487=0|552=1|54=1|453=2|448=EB1|452=1|448=IM1|452=13|"));
        var reject = Parse(Frame("35=j|34=9|49=MATCH|52=20261123-10:00:00.000|56=EB1|45=17|372=T|379=SET-1|380=0|58=EXC 1 NO TRADE|"));
        var state = (Noe: noe, Reject: reject, Ring: new ForwardRing(1 << 16), Buffer: new byte[512], Partition: new int[1]);
        Assert.Equal(TradePartition.Of("IM1"u8, "EB1"u8, 4), TradePartition.Of(noe, 4));

        long bytes = Allocations.Measure(state, s =>
        {
            s.Partition[0] = TradePartition.Of(s.Noe, 4);
            s.Ring.TryWrite(s.Partition[0], 2, 2, s.Noe.MsgType, MessageBody.Of(s.Noe));
            s.Ring.TryPeek(out var record);
            s.Ring.Release(record.Size);
            MessageBody.WithRefSeqNum(s.Reject, 4, s.Buffer);
        }, iterations: 10_000);

        Assert.Equal(0, bytes);
    }

    private static FixMessage Parse(byte[] bytes)
    {
        var message = new FixMessage();
        Assert.Equal(FixParseError.None, message.Parse(bytes, 0, bytes.Length, Fix44));
        return message;
    }

    // "35=...|" fields with '|' for SOH, framed with BeginString, BodyLength and CheckSum.
    private static byte[] Frame(string fields)
    {
        var body = Encoding.ASCII.GetBytes(fields.Replace('|', '\u0001'));
        var head = Encoding.ASCII.GetBytes($"8=FIX.4.4\u00019={body.Length}\u0001");
        var all = head.Concat(body).ToArray();
        int sum = all.Sum(b => (int)b) % 256;
        return [.. all, .. Encoding.ASCII.GetBytes($"10={sum:D3}\u0001")];
    }

    private static string Text(ReadOnlySpan<byte> bytes) => Encoding.ASCII.GetString(bytes).Replace('\u0001', '|');
}
