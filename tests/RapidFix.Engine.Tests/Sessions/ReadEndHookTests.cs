using System.Text;
using RapidFix.Engine.Codec;
using RapidFix.Engine.Configuration;
using RapidFix.Engine.Dictionary;
using RapidFix.Engine.Sessions;
using RapidFix.Engine.Store;
using RapidFix.Engine.Time;
using RapidFix.Engine.Transport;
using RapidFix.Tests.Shared;
using Xunit;

namespace RapidFix.Engine.Tests.Sessions;

/// <summary>
/// <see cref="IReadEndHook"/>: an application that implements it is told, on the connection's thread, after the last
/// message of each read; the use it is made for is to batch the sends a read's messages cause (SendDeferred) and flush
/// them once per read.
/// </summary>
public sealed class ReadEndHookTests
{
    private const int Orders = 25;
    private static readonly DataDictionary Fix44 = StandardDictionaries.Load("FIX44");

    private readonly EngineClock _clock = EngineClock.Manual(DateTime.UtcNow);

    [Fact]
    public void The_hook_runs_once_after_every_message_of_a_read_and_the_sends_deferred_in_the_read_go_out_at_its_end()
    {
        var client = new Client();
        var initiator = new FixSession(Options("CLIENT", "EXEC", initiator: true), new MemoryMessageStore(10_000, 1 << 22, DateTime.UtcNow), client, clock: _clock);
        var echo = new DeferringEcho();
        var acceptor = new FixSession(Options("EXEC", "CLIENT", initiator: false), new MemoryMessageStore(10_000, 1 << 22, DateTime.UtcNow), echo, clock: _clock);
        var (ours, theirs) = InMemoryConnection.Connect(initiator, [acceptor]);
        ours.Exchange();
        Assert.True(initiator.IsLoggedOn && acceptor.IsLoggedOn);
        int endsBefore = echo.ReadEnds;

        // Every order in one write, so in one read at the acceptor's end.
        for (int i = 1; i <= Orders; i++)
        {
            Assert.Equal(SendResult.Sent, initiator.SendDeferred("D"u8, Order(i)));
        }

        Assert.True(initiator.FlushDeferred());
        theirs.Deliver();

        // One call, after the read's last message (it saw all of them), with every echo still deferred then.
        Assert.Equal(1, echo.ReadEnds - endsBefore);
        Assert.Equal(Orders, echo.OrdersSeenAtLastReadEnd);
        Assert.Equal(Orders, echo.DeferredAtLastReadEnd);
        Assert.Same(acceptor, echo.LastSession);
        Assert.False(acceptor.HasDeferred); // the hook flushed them

        // They arrive, in order.
        ours.Deliver();
        Assert.Equal(Enumerable.Range(1, Orders).Select(i => i.ToString(System.Globalization.CultureInfo.InvariantCulture)), client.Echoes);
    }

    [Fact]
    public void The_hook_allocates_nothing()
    {
        var initiator = new FixSession(Options("CLIENT", "EXEC", initiator: true), new MemoryMessageStore(100_000, 1 << 24, DateTime.UtcNow), new Client(record: false), clock: _clock);
        var echo = new DeferringEcho();
        var acceptor = new FixSession(Options("EXEC", "CLIENT", initiator: false), new MemoryMessageStore(100_000, 1 << 24, DateTime.UtcNow), echo, clock: _clock);
        var (ours, theirs) = InMemoryConnection.Connect(initiator, [acceptor]);
        ours.Exchange();
        var order = Order(7);
        int endsBefore = echo.ReadEnds;

        // Each run: ten orders in one write, one read at the acceptor's end (ten echoes deferred, one flush), read back.
        long allocated = Allocations.Measure((initiator, ours, theirs, order), static s =>
        {
            for (int i = 0; i < 10; i++)
            {
                s.initiator.SendDeferred("D"u8, s.order);
            }

            s.initiator.FlushDeferred();
            s.theirs.Deliver();
            s.ours.Deliver();
        }, iterations: 200, warmup: 300);

        Assert.True(echo.ReadEnds - endsBefore >= 800, $"{echo.ReadEnds - endsBefore} read ends");
        Assert.Equal(0, allocated);
    }

    private static byte[] Order(int id) => Encoding.ASCII.GetBytes(
        $"11={id}\u000121=1\u000138=100\u000140=1\u000154=1\u000155=MSFT\u000160=20260101-00:00:00.000\u0001");

    private static FixSessionOptions Options(string sender, string target, bool initiator) => new(new SessionId("FIX.4.4", sender, target))
    {
        IsInitiator = initiator,
        Dictionary = Fix44,
        HeartBtInt = 30,
    };

    /// <summary>Echoes each order's ClOrdID (as the Text of a BusinessMessageReject) deferred; flushes at the end of the read.</summary>
    private sealed class DeferringEcho : FixApplicationBase, IReadEndHook
    {
        private readonly byte[] _body = new byte[64];
        private int _ordersInRead;
        private int _deferredInRead;

        public int ReadEnds { get; private set; }

        public int OrdersSeenAtLastReadEnd { get; private set; }

        public int DeferredAtLastReadEnd { get; private set; }

        public FixSession? LastSession { get; private set; }

        public override MessageDisposition FromApp(FixSession session, FixMessage message)
        {
            _ordersInRead++;
            message.TryGetValue(11, out var id);
            var prefix = "372=D\u0001380=0\u000158="u8;
            prefix.CopyTo(_body);
            id.CopyTo(_body.AsSpan(prefix.Length));
            _body[prefix.Length + id.Length] = 1;
            if (session.SendDeferred("j"u8, _body.AsSpan(0, prefix.Length + id.Length + 1)) == SendResult.Sent && session.HasDeferred)
            {
                _deferredInRead++;
            }

            return MessageDisposition.Accept;
        }

        public void OnReadEnd(FixSession session)
        {
            ReadEnds++;
            OrdersSeenAtLastReadEnd = _ordersInRead;
            DeferredAtLastReadEnd = _deferredInRead;
            LastSession = session;
            _ordersInRead = 0;
            _deferredInRead = 0;
            session.FlushDeferred();
        }
    }

    /// <summary>Records the echoes' texts.</summary>
    private sealed class Client(bool record = true) : FixApplicationBase
    {
        public List<string> Echoes { get; } = [];

        public override MessageDisposition FromApp(FixSession session, FixMessage message)
        {
            if (record && message.TryGetValue(58, out var text))
            {
                Echoes.Add(Encoding.ASCII.GetString(text));
            }

            return MessageDisposition.Accept;
        }
    }
}
