using RapidFix.Engine.Configuration;
using RapidFix.Engine.Dictionary;
using RapidFix.Engine.Sessions;
using RapidFix.Engine.Store;
using RapidFix.Engine.Tests.Store;
using RapidFix.Engine.Time;
using RapidFix.Engine.Transport;
using RapidFix.Tests.Shared;

namespace RapidFix.Engine.Tests.Sessions;

/// <summary>
/// The in-memory connection with a manual clock allocates nothing once warm: routing-free delivery, the session
/// layer's parse with the dictionary, heartbeats driven by the clock, and a lost message recovered by a resend.
/// </summary>
[Collection(AllocationTestCollection.Name)]
public sealed class InMemoryAllocationTests
{
    [Fact]
    public void Orders_heartbeats_and_a_resend_over_an_in_memory_connection_allocate_nothing()
    {
        var clock = EngineClock.Manual(DateTime.UtcNow);
        var dictionary = StandardDictionaries.Load("FIX44");
        var initiator = new FixSession(Options("CLIENT", "EXEC", true, dictionary), Store(), new FixApplicationBase(), clock: clock);
        var acceptor = new FixSession(Options("EXEC", "CLIENT", false, dictionary), Store(), new FixApplicationBase(), clock: clock);
        var (ours, theirs) = InMemoryConnection.Connect(initiator, [acceptor]);
        ours.Exchange();
        Assert.True(initiator.IsLoggedOn && acceptor.IsLoggedOn);
        var state = new Cycle(clock, initiator, ours, theirs);

        long bytes = Allocations.Measure(state, static c => c.Run(), iterations: 3_000, warmup: 1_000);

        Assert.Equal(0, bytes);
        Assert.True(initiator.IsLoggedOn && acceptor.IsLoggedOn);
        Assert.Equal(initiator.NextSenderMsgSeqNum, acceptor.NextTargetMsgSeqNum);
        Assert.Equal(acceptor.NextSenderMsgSeqNum, initiator.NextTargetMsgSeqNum);
    }

    private static MemoryMessageStore Store() => new(100_000, 1 << 26, DateTime.UtcNow);

    private static FixSessionOptions Options(string sender, string target, bool initiator, DataDictionary dictionary) =>
        new(new SessionId("FIX.4.4", sender, target)) { IsInitiator = initiator, Dictionary = dictionary, HeartBtInt = 30 };

    private sealed class Cycle(EngineClock clock, FixSession initiator, InMemoryConnection ours, InMemoryConnection theirs)
    {
        private readonly byte[] _order = System.Text.Encoding.ASCII.GetBytes(
            "11=1\u000121=1\u000138=100\u000140=1\u000154=1\u000155=MSFT\u000160=20260101-00:00:00.000\u0001");

        private int _n;

        /// <summary>An order; every fourth one is lost and asked for again; every eighth cycle, 30 s pass (heartbeats).</summary>
        public void Run()
        {
            if (++_n % 4 == 0)
            {
                theirs.DiscardNext();
                initiator.Send("D"u8, _order);
            }

            initiator.Send("D"u8, _order);
            ours.Exchange();
            if (_n % 8 == 0)
            {
                clock.Advance(TimeSpan.FromSeconds(30));
                ours.RunTimer();
                theirs.RunTimer();
                ours.Exchange();
            }
        }
    }
}
