using System.Runtime.CompilerServices;
using RapidFix.Engine.Codec;
using RapidFix.Engine.Diagnostics;
using RapidFix.Engine.Fields;
using RapidFix.Pools.Diagnostics;

namespace RapidFix.Engine.Sessions;

/// <summary>The in-place send path: a message written straight into the session's own outbound buffer.</summary>
public sealed partial class FixSession
{
    // The open writer: the encoder's generation at its Begin (its token: generations only grow, so a writer kept past
    // its Send never matches again), where its own fields start (the body length after the header, for the
    // IToAppHook), whether it goes on the wire or only into the store, and when it began (latency).
    private bool _writerOpen;
    private int _writerGeneration;
    private int _writerBodyStart;
    private bool _writerLive;
    private long _writerStarted;

    /// <summary>
    /// Starts an application message in the session's outbound buffer: the session writes the standard header
    /// (as <see cref="Send"/> does) and returns a writer for the body; <see cref="FixMessageWriter.Send"/> fixes up
    /// BodyLength and CheckSum, stores the message and hands it to the transport. Nothing is copied or parsed again.
    /// </summary>
    /// <remarks>
    /// The session's lock is held from here until <see cref="FixMessageWriter.Send"/> or
    /// <see cref="FixMessageWriter.Dispose"/> on the same thread: write the body without waiting on anything, and
    /// use <c>using</c> so an exception cannot leave the lock held. Send semantics are <see cref="Send"/>'s: the
    /// application's <see cref="IToAppHook"/> sees (and may amend or veto) the message at Send; when the session is
    /// not logged on, SendWhileNotLoggedOn=Store writes it all the same and Send stores it for the resend after logon
    /// (<see cref="SendResult.Stored"/>), Refuse closes the writer at once: its fields are ignored and its Send
    /// returns <see cref="SendResult.NotLoggedOn"/>.
    /// </remarks>
    /// <param name="msgType">MsgType (35), e.g. "D"u8 or a generated <c>MsgTypes.NewOrderSingleBytes</c>.</param>
    /// <param name="extraHeader">Additional header fields (PossResend, OnBehalfOf/DeliverTo routing...), "tag=value&lt;SOH&gt;" each.</param>
    public FixMessageWriter BeginMessage(ReadOnlySpan<byte> msgType, ReadOnlySpan<byte> extraHeader = default)
    {
        long started = EngineLatency.Start();
        Monitor.Enter(_sync);
        bool live = IsLoggedOn && _transport is not null;
        if ((!live && !StoresWhileNotLoggedOn) || _writerOpen)
        {
            // A second writer on the thread that holds the first would write into the same buffer: refuse it.
            bool nested = _writerOpen;
            Monitor.Exit(_sync);
            if (nested)
            {
                ThrowWriterOpen();
            }

            return new FixMessageWriter(this, null, 0);
        }

        Begin(msgType, _store.NextSenderMsgSeqNum, new HeaderOptions(), extraHeader);
        _writerBodyStart = _encoder.BodyLength;
        _writerLive = live;
        _writerStarted = started;
        _writerGeneration = _encoder.Generation;
        _writerOpen = true;
        return new FixMessageWriter(this, _encoder, _writerGeneration);
    }

    internal SendResult CompleteWriter(int generation)
    {
        if (!_writerOpen || generation != _writerGeneration)
        {
            ThrowWriterClosed();
        }

        _writerOpen = false;
        try
        {
            if (_encoder.Generation != generation)
            {
                // This thread began another message (a Send or a session message) while the writer was open.
                ThrowWriterOverwritten();
            }

            // As Send: the hook sees the fields as written (and may append), then the wire or, not logged on, the store.
            var msgType = _encoder.MsgType;
            if (!PassesToApp(msgType, _encoder.WrittenAfter(_writerBodyStart)))
            {
                return SendResult.Vetoed;
            }

            var result = _writerLive ? Complete(msgType, 0, application: true) : StoreWhileNotLoggedOn();
            if (result == SendResult.Sent)
            {
                _counters.ApplicationMessagesSent++;
            }

            EngineLatency.Stop(LatencyChannel.Send, _writerStarted);
            return result;
        }
        finally
        {
            // A copy of the writer kept past this point writes nothing more into the buffer.
            _encoder.Retire();
            Monitor.Exit(_sync);
        }
    }

    internal void AbandonWriter(int generation)
    {
        if (_writerOpen && generation == _writerGeneration)
        {
            // Nothing was stored or sent and no sequence number was used; the next message starts the buffer afresh.
            _writerOpen = false;
            if (_encoder.Generation == generation)
            {
                _encoder.Retire();
            }

            Monitor.Exit(_sync);
        }
    }

    [MethodImpl(MethodImplOptions.NoInlining)]
    private static void ThrowWriterOpen() =>
        throw new InvalidOperationException("A message writer is already open on this session: send or dispose it first.");

    [MethodImpl(MethodImplOptions.NoInlining)]
    private static void ThrowWriterClosed() =>
        throw new InvalidOperationException("This message writer was already sent or disposed.");

    [MethodImpl(MethodImplOptions.NoInlining)]
    private static void ThrowWriterOverwritten() =>
        throw new InvalidOperationException("Another message was begun on this session while the writer was open; nothing was sent.");
}

/// <summary>
/// Writes the body of one outgoing message in place, in the session's own outbound buffer, after the header the
/// session wrote (<see cref="FixSession.BeginMessage"/>). Fields go out in the order they are written; group entries'
/// fields in the dictionary's order. <see cref="Send"/> finishes, stores and sends the message; <see cref="Dispose"/>
/// without Send abandons it. The generated typed writers (<c>NewOrderSingleWriter</c>...) wrap this one.
/// </summary>
/// <remarks>
/// A readonly ref struct of three fields (the session keeps the rest), so a copy, a <c>using</c> variable and the
/// typed wrappers all act on the same message, and the JIT keeps it in registers. Each field is written straight
/// through the session's encoder once the encoder's generation says the message is still this writer's (one
/// comparison). A message that outgrows the buffer is refused at Send (<see cref="SendResult.TooLarge"/>), with no
/// sequence number used.
/// </remarks>
public readonly ref struct FixMessageWriter
{
    private readonly FixSession? _session;
    private readonly FixEncoder? _encoder;
    private readonly int _generation;

    internal FixMessageWriter(FixSession session, FixEncoder? encoder, int generation)
    {
        _session = session;
        _encoder = encoder;
        _generation = generation;
    }

    /// <summary>
    /// False when the session was not logged on at the start and SendWhileNotLoggedOn is Refuse: fields are ignored,
    /// Send says NotLoggedOn. (With Store the writer is open and Send stores the message.)
    /// </summary>
    public bool IsOpen => _encoder is not null;

    /// <summary>The session the message goes to.</summary>
    public FixSession? Session => _session;

    /// <summary>The encoder while the message is this writer's (begun, not sent, not taken over); null otherwise.</summary>
    private FixEncoder? Encoder
    {
        [MethodImpl(MethodImplOptions.AggressiveInlining)]
        get
        {
            var encoder = _encoder;
            return encoder is not null && encoder.Generation == _generation ? encoder : null;
        }
    }

    /// <summary>Adds a field with a raw value (text, or a value already formatted).</summary>
    public void Add(int tag, scoped ReadOnlySpan<byte> value) => Encoder?.Add(tag, value);

    /// <summary>Adds an integer field.</summary>
    public void Add(int tag, long value) => Encoder?.Add(tag, value);

    /// <summary>Adds a CHAR field.</summary>
    public void AddChar(int tag, byte value) => Encoder?.AddChar(tag, value);

    /// <summary>Adds a BOOLEAN field ('Y' / 'N').</summary>
    public void Add(int tag, bool value) => Encoder?.Add(tag, value);

    /// <summary>Adds a decimal field (price, quantity, amount) keeping its scale.</summary>
    public void Add(int tag, FixDecimal value) => Encoder?.Add(tag, value);

    /// <summary>Adds a UTCTimestamp field.</summary>
    public void AddTimestamp(int tag, long unixNanoseconds, FixTimePrecision precision = FixTimePrecision.Milliseconds) =>
        Encoder?.AddTimestamp(tag, unixNanoseconds, precision);

    /// <summary>Appends ready-made fields ("tag=value&lt;SOH&gt;" each) as they are.</summary>
    public void AddRaw(scoped ReadOnlySpan<byte> fields) => Encoder?.AddRaw(fields);

    /// <summary>
    /// Finishes the message (BodyLength, CheckSum), stores it for resends and sends it; releases the session.
    /// Calling it twice, or after <see cref="Dispose"/>, is a programming error (InvalidOperationException).
    /// </summary>
    public SendResult Send() => _encoder is null || _session is null ? SendResult.NotLoggedOn : _session.CompleteWriter(_generation);

    /// <summary>Abandons the message when it was not sent (nothing stored, no sequence number used); after Send, nothing.</summary>
    public void Dispose()
    {
        if (_encoder is not null)
        {
            _session?.AbandonWriter(_generation);
        }
    }
}
