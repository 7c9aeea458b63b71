using System.Text;
using RapidFix.Engine.Store;
using RapidFix.TradeDriver;

namespace RapidFix.MatchingService.Tests;

/// <summary>
/// Past the bound a refusal is decided before the connection thread reads the message for the matcher
/// (<see cref="InputSequencer.MayQueue"/>): a full ring is seen without the sequencer's lock, counted as a ring-full
/// refusal, and the read (<c>ReadInput</c>, about 300 ns) is not made. A resend of an input already journalled is
/// never refused there: refused, the participant would send it again as a new message.
/// </summary>
public sealed class RefusalBeforeReadTests : IDisposable
{
    private static readonly byte[][] ParticipantIds = [.. TradeGenerator.Participants.Select(Encoding.ASCII.GetBytes)];
    private readonly string _work = Path.Combine(Path.GetTempPath(), "rapidfix-refuse-" + Guid.NewGuid().ToString("N"));

    public void Dispose()
    {
        if (Directory.Exists(_work))
        {
            Directory.Delete(_work, recursive: true);
        }
    }

    [Fact]
    public void A_full_ring_refuses_before_the_read_but_never_a_resend_of_a_journalled_input()
    {
        Directory.CreateDirectory(_work);
        using var journal = InputJournal.Open(Path.Combine(_work, "input.journal"), FlushPolicy.GroupCommit, 100_000, 16 << 20, 4096);
        journal.BusinessDate(20261123);
        var ring = new InputRing(1 << 16);
        var sequencer = new InputSequencer(journal, ring, ParticipantIds, static () => { });
        var message = new byte[600];
        message.AsSpan().Fill((byte)'x');

        int seq = 0;
        Assert.True(sequencer.MayQueue(1, 1, seq + 1, message.Length));
        while (sequencer.Submit(1, 1, seq + 1, message) == SubmitResult.Accepted)
        {
            seq++;
        }

        Assert.True(seq > 50, $"{seq} inputs fit the ring");
        long ringFull = sequencer.RingFullCount;

        // The ring is full: the next input is refused before its read, and counted as a ring-full refusal.
        Assert.False(sequencer.MayQueue(1, 1, seq + 1, message.Length));
        Assert.Equal(1, sequencer.RefusedBeforeRead);
        Assert.Equal(ringFull + 1, sequencer.RingFullCount);

        // A resend of a journalled input (after a restart lowered the expected MsgSeqNum) goes on to Submit, which ignores it.
        Assert.True(sequencer.MayQueue(1, 1, seq, message.Length));
        Assert.Equal(SubmitResult.AlreadyJournalled, sequencer.Submit(1, 1, seq, message));
        // Another participant's input finds the ring as full.
        Assert.False(sequencer.MayQueue(2, 1, 1, message.Length));

        // Once the matcher releases what it read, inputs are taken again.
        long cursor = ring.ReadStart;
        while (ring.TryRead(ref cursor, out _))
        {
        }

        ring.Release(cursor);
        Assert.True(sequencer.MayQueue(1, 1, seq + 1, message.Length));
        Assert.Equal(2, sequencer.RefusedBeforeRead);
    }
}
