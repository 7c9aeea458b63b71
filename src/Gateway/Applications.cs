using RapidFix.Engine.Codec;
using RapidFix.Engine.Fields;
using RapidFix.Engine.Sessions;
using RapidFix.Matching;

namespace RapidFix.Gateway;

/// <summary>
/// A participant's session on the gateway's acceptor. <see cref="FromApp"/> (connection thread, under this session's
/// lock) reads the trade's two parties through the same field view the matcher reads, computes the partition, and
/// copies the body into the forward ring for the owning service; it never takes another session's lock (see
/// <see cref="ForwardRing"/>). Refusals are the service's own: BusinessMessageReject 3 for a message type the utility
/// does not take, 4 (application not available) when the ring is full or the owning service has been down for more
/// than <see cref="GatewayOptions.HoldPerParticipant"/> of this participant's messages.
/// </summary>
internal sealed class ParticipantSide : FixApplicationBase
{
    private readonly GatewayServer _gateway;
    private readonly int _participant;

    public ParticipantSide(GatewayServer gateway, int participant)
    {
        _gateway = gateway;
        _participant = participant;
    }

    public override MessageDisposition FromApp(FixSession session, FixMessage message)
    {
        if (MessageReader.KindOf(message.MsgType) == MessageKind.None)
        {
            return MessageDisposition.UnsupportedMessageType;
        }

        // A message without both parties (partition -1) goes to partition 0's owner: its matcher rejects it with the
        // reason one service would give.
        int partition = TradePartition.Of(message, _gateway.Partitions);
        int service = _gateway.OwnerOf(partition < 0 ? 0 : partition);
        if (!_gateway.MayHold(service, _participant))
        {
            return MessageDisposition.BusinessReject(4);
        }

        message.TryGetInt(Tags.MsgSeqNum, out int seq);
        if (!_gateway.Ring.TryWrite(service, _participant, seq, message.MsgType, MessageBody.Of(message)))
        {
            return MessageDisposition.BusinessReject(4);
        }

        _gateway.WakeForwarder();
        return MessageDisposition.Accept;
    }
}

/// <summary>
/// The gateway's session to one service on behalf of one participant (SenderCompID = the participant). Because
/// each participant has its own session to each service, the answers need no routing field: whatever arrives here is
/// the participant's, and goes to its acceptor session as the service wrote it (the body unchanged; only a
/// BusinessMessageReject's RefSeqNum is turned back into the participant's MsgSeqNum). The service's exactly-once
/// restart rule and the FIX resend then work per participant, as with one service.
/// </summary>
internal sealed class ServiceSide : FixApplicationBase, IReadEndHook
{
    private readonly GatewayServer _gateway;
    private readonly int _service;
    private readonly int _participant;
    private readonly int[] _forwardedSeq;
    private readonly int[] _participantSeq;
    private readonly byte[] _body;
    private long _held;
    private long _untranslated;
    private long _rewritten;
    private bool _unflushed; // answers deferred during the current read (this session's connection thread only)

    public ServiceSide(GatewayServer gateway, int service, int participant, int refSeqNumWindow, int maxMessageSize)
    {
        _gateway = gateway;
        _service = service;
        _participant = participant;
        _forwardedSeq = new int[refSeqNumWindow];
        _participantSeq = new int[refSeqNumWindow];
        _body = new byte[maxMessageSize];
    }

    /// <summary>Messages stored for the service while it was down, since its last logon.</summary>
    public long Held => Interlocked.Read(ref _held);

    /// <summary>Answers whose RefSeqNum was older than the window: passed on with the service's number.</summary>
    public long Untranslated => Interlocked.Read(ref _untranslated);

    /// <summary>Answers whose RefSeqNum was turned back into the participant's MsgSeqNum.</summary>
    public long Rewritten => Interlocked.Read(ref _rewritten);

    public void NoteHeld() => Interlocked.Increment(ref _held);

    public override void OnLogon(FixSession session) => Interlocked.Exchange(ref _held, 0); // the service asks for what was held

    /// <summary>
    /// Forwarder thread: the message about to be sent carries the participant's <paramref name="participantSeq"/>,
    /// and the session's MsgSeqNum numbers <paramref name="from"/> up to <paramref name="to"/> (exclusive) may be the
    /// one it takes. Called with the next number before the send (the send's lock publishes it to the connection
    /// thread before any answer can name it) and, when a session message took a number meanwhile, with every number
    /// the send could have taken: only one of them is an application message, and only those are named by answers.
    /// </summary>
    public void Remember(int from, int to, int participantSeq)
    {
        for (int seq = from; seq < to && seq - from < _forwardedSeq.Length; seq++)
        {
            int slot = seq % _forwardedSeq.Length;
            _participantSeq[slot] = participantSeq;
            Volatile.Write(ref _forwardedSeq[slot], seq); // after the participant's number: the reader checks this one first
        }
    }

    public override MessageDisposition FromApp(FixSession session, FixMessage message)
    {
        var body = MessageBody.Of(message);
        if (message.TryGetInt(Tags.RefSeqNum, out int refSeq))
        {
            int slot = refSeq % _forwardedSeq.Length;
            if (refSeq > 0 && Volatile.Read(ref _forwardedSeq[slot]) == refSeq)
            {
                body = _body.AsSpan(0, MessageBody.WithRefSeqNum(message, _participantSeq[slot], _body));
                Interlocked.Increment(ref _rewritten);
            }
            else
            {
                Interlocked.Increment(ref _untranslated);
            }
        }

        if (_gateway.Answer(_service, _participant, message.MsgType, body))
        {
            _unflushed = true;
        }

        return MessageDisposition.Accept;
    }

    /// <summary>
    /// The end of one read of this session's connection (its thread, outside the locks): the answers it deferred are
    /// flushed on the participant's session, one store wait for the burst (<see cref="GatewayOptions.BatchAnswers"/>).
    /// </summary>
    public void OnReadEnd(FixSession session)
    {
        if (_unflushed)
        {
            _unflushed = false;
            _gateway.FlushAnswers(_participant);
        }
    }
}
