using System.Text;
using RapidFix.Engine.Codec;
using RapidFix.Engine.Fields;
using RapidFix.Engine.Sessions;
using RapidFix.Engine.Time;
using RapidFix.Pools.Buffers;
using RapidFix.Pools.Phases;

namespace RapidFix.Samples.FixLoad;

/// <summary>
/// The initiator's application: sends NewOrderSingle messages and counts the ExecutionReports that come back.
/// Bodies are written with <see cref="FixBodyWriter"/> into a buffer rented from the session's pool; replies are read
/// with the typed getters. Nothing here allocates once running.
/// </summary>
internal sealed class OrderClient : FixApplicationBase
{
    private static readonly FixDecimal LimitPrice = new(12345, -2);

    private FixSession? _session;
    private BufferPool? _buffers;
    private long _sent;
    private long _filled;
    private long _badReports;
    private long _filledQuantity;

    public FixSession Session => _session ?? throw new InvalidOperationException("the client session was not created");

    public long Sent => Volatile.Read(ref _sent);

    public long Filled => Volatile.Read(ref _filled);

    /// <summary>ExecutionReports that did not say what the order asked (never expected).</summary>
    public long BadReports => Volatile.Read(ref _badReports);

    public long FilledQuantity => Volatile.Read(ref _filledQuantity);

    public long Outstanding => Sent - Filled;

    public void Attach(BufferPool buffers) => _buffers = buffers;

    public override void OnCreate(FixSession session) => _session = session;

    /// <summary>Sends order number <paramref name="orderNumber"/>; false when the session refused it.</summary>
    public bool SendOrder(long orderNumber)
    {
        var buffers = _buffers!;
        if (!buffers.TryRent(out var buffer))
        {
            return false; // back-pressure: the pool is the limit of messages in flight in this application
        }

        var body = new FixBodyWriter(buffer.Array.AsSpan(buffer.Offset, buffer.Capacity));
        Span<byte> id = stackalloc byte[24];
        id[0] = (byte)'O';
        int n = 1 + FixValue.FormatLong(orderNumber, id.Slice(1));
        body.Add(Tags.ClOrdID, id.Slice(0, n));
        body.Add(1, "ACCT-778"u8);
        body.AddChar(21, (byte)'1');
        body.Add(Tags.Symbol, "MSFT"u8);
        body.AddChar(Tags.Side, (byte)'1');
        body.AddTimestamp(60, EngineClock.Shared.UtcNowNanos);
        body.Add(Tags.OrderQty, 100L);
        body.AddChar(40, (byte)'2');
        body.Add(Tags.Price, LimitPrice);
        body.AddChar(59, (byte)'0');
        var result = body.Overflowed ? SendResult.TooLarge : Session.Send("D"u8, body.Written);
        buffers.Return(buffer);
        if (result != SendResult.Sent)
        {
            return false;
        }

        Volatile.Write(ref _sent, _sent + 1);
        return true;
    }

    public override MessageDisposition FromApp(FixSession session, FixMessage message)
    {
        var type = message.MsgType;
        if (type.Length != 1 || type[0] != (byte)'8')
        {
            return MessageDisposition.UnsupportedMessageType;
        }

        if (!message.TryGetChar(39, out byte status) || status != (byte)'2' ||
            !message.TryGetLong(14, out long cumQty) || cumQty != 100 ||
            !message.TryGetValue(Tags.ClOrdID, out var clOrdId) || clOrdId.Length < 2 || clOrdId[0] != (byte)'O')
        {
            Interlocked.Increment(ref _badReports);
        }
        else
        {
            Volatile.Write(ref _filledQuantity, _filledQuantity + cumQty);
        }

        Volatile.Write(ref _filled, _filled + 1);
        return MessageDisposition.Accept;
    }
}

/// <summary>
/// The acceptor's application: fills every NewOrderSingle at its limit price with an ExecutionReport. With
/// <c>allocate</c> set it also keeps a string copy of each order once the continuous phase has begun, the kind of
/// careless code the zero-GC gate exists to catch.
/// </summary>
internal sealed class OrderMatcher : FixApplicationBase
{
    private readonly bool _allocate;
    private PhaseController? _phases;
    private FixSession? _session;
    private BufferPool? _buffers;
    private long _executionId;
    private long _orders;
    private string? _lastOrderText;

    public OrderMatcher(bool allocate)
    {
        _allocate = allocate;
    }

    public FixSession Session => _session ?? throw new InvalidOperationException("the matcher session was not created");

    public long Orders => Volatile.Read(ref _orders);

    /// <summary>What the allocating handler kept (so the copies are not optimised away).</summary>
    public string? LastOrderText => _lastOrderText;

    /// <summary>Startup: the phase (for the deliberate allocation) and the session's buffers.</summary>
    public void Attach(PhaseController phases, BufferPool buffers)
    {
        _phases = phases;
        _buffers = buffers;
    }

    public override void OnCreate(FixSession session) => _session = session;

    public override MessageDisposition FromApp(FixSession session, FixMessage message)
    {
        var type = message.MsgType;
        if (type.Length != 1 || type[0] != (byte)'D')
        {
            return MessageDisposition.UnsupportedMessageType;
        }

        if (!message.TryGetValue(Tags.ClOrdID, out var clOrdId) ||
            !message.TryGetValue(Tags.Symbol, out var symbol) ||
            !message.TryGetChar(Tags.Side, out byte side) ||
            !message.TryGetLong(Tags.OrderQty, out long quantity) ||
            !message.TryGetDecimal(Tags.Price, out var price))
        {
            return MessageDisposition.BusinessReject(5);
        }

        if (_allocate && _phases is not null && _phases.Phase == EnginePhase.Continuous)
        {
            _lastOrderText = Encoding.ASCII.GetString(message.Bytes); // the deliberate allocation
        }

        if (!_buffers!.TryRent(out var buffer))
        {
            return MessageDisposition.BusinessReject(4); // application not available: out of buffers
        }

        long execution = ++_executionId;
        var body = new FixBodyWriter(buffer.Array.AsSpan(buffer.Offset, buffer.Capacity));
        Span<byte> id = stackalloc byte[24];
        id[0] = (byte)'X';
        int n = 1 + FixValue.FormatLong(execution, id.Slice(1));
        body.Add(Tags.OrderID, id.Slice(0, n));
        body.Add(Tags.ClOrdID, clOrdId);
        id[0] = (byte)'E';
        body.Add(Tags.ExecID, id.Slice(0, n));
        body.AddChar(150, (byte)'F');
        body.AddChar(39, (byte)'2');
        body.Add(Tags.Symbol, symbol);
        body.AddChar(Tags.Side, side);
        body.Add(Tags.OrderQty, quantity);
        body.Add(32, quantity);
        body.Add(31, price);
        body.Add(151, 0L);
        body.Add(14, quantity);
        body.Add(6, price);
        body.AddTimestamp(60, EngineClock.Shared.UtcNowNanos);
        if (!body.Overflowed)
        {
            session.Send("8"u8, body.Written);
        }

        _buffers.Return(buffer);
        Volatile.Write(ref _orders, _orders + 1);
        return MessageDisposition.Accept;
    }
}
