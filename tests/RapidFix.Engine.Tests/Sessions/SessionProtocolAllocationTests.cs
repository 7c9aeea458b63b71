using RapidFix.Engine.Codec;
using RapidFix.Engine.Tests.Store;
using RapidFix.Engine.Time;
using RapidFix.Tests.Shared;

namespace RapidFix.Engine.Tests.Sessions;

/// <summary>
/// The receive path with the sequence checks, and gap recovery with a full queue (queue, ResendRequest, drop,
/// resend, drain), allocate nothing once warm.
/// </summary>
[Collection(AllocationTestCollection.Name)]
public sealed class SessionProtocolAllocationTests
{
    [Fact]
    public void In_sequence_messages_and_gap_recovery_through_a_full_queue_allocate_nothing()
    {
        using var h = new ProtocolHarness("InboundQueueCapacity=2");
        h.Logon();
        h.TakeSent();
        h.Transport.Keep = false;
        var state = new Counterparty(h);

        long bytes = Allocations.Measure(state, static c => c.Cycle(), iterations: 5_000, warmup: 1_000);

        Assert.Equal(0, bytes);
        Assert.True(h.Session.IsLoggedOn);
        Assert.True(h.Session.Counters.InboundQueueOverflows >= 6_000);
        Assert.Equal(state.Next, h.Session.NextTargetMsgSeqNum);
    }

    /// <summary>Builds each message into one buffer and hands a view of it to the session.</summary>
    private sealed class Counterparty(ProtocolHarness harness)
    {
        private readonly FixEncoder _encoder = new();
        private readonly byte[] _buffer = new byte[1024];
        private readonly FixMessage _view = new(new FixMessageOptions { MaxMessageSize = 1024 });

        public int Next { get; private set; } = harness.Session.NextTargetMsgSeqNum;

        /// <summary>
        /// Two heartbeats in sequence, then N is lost: N+1 and N+2 are queued (a ResendRequest goes out), N+3 is
        /// dropped (covered by it); the resend of N..N+3 fills the gap, the queue drains, N+1 and N+2 come again
        /// as duplicates and are ignored.
        /// </summary>
        public void Cycle()
        {
            Heartbeat(Next++, false);
            Heartbeat(Next++, false);
            int n = Next;
            Heartbeat(n + 1, false);
            Heartbeat(n + 2, false);
            Heartbeat(n + 3, false);
            for (int seq = n; seq <= n + 3; seq++)
            {
                Heartbeat(seq, true);
            }

            Next = n + 4;
        }

        private void Heartbeat(int seq, bool possDup)
        {
            var message = FixSampleEncoding.WriteCounterpartyAdmin(_encoder, _buffer, "0"u8, seq, possDup, EngineClock.Shared.UtcNowNanos);
            _view.Parse(message.Buffer, message.Offset, message.Length, harness.Options.AdminDictionary);
            harness.Session.OnMessage(_view);
        }
    }
}
