using RapidFix.Engine.Codec;
using RapidFix.Engine.Fields;
using RapidFix.Engine.Sessions;
using RapidFix.Matching;

namespace RapidFix.MatchingService;

/// <summary>
/// The application behind one participant's session. <see cref="FromApp"/> runs on the connection thread under the
/// session's lock: it only journals and queues the message (<see cref="InputSequencer"/>), or refuses it on this
/// same session (back-pressure, stored deferred); matching and every answer happen on the matcher thread, which takes one session lock at a time (in <see cref="FixSession.Send"/>) and never
/// while holding another. Sending a CLS to another participant straight from here would take that session's lock
/// while holding this one: two participants clearing trades with each other at the same moment would deadlock.
/// </summary>
internal sealed class ParticipantApplication : FixApplicationBase
{
    private readonly int _index;
    private readonly InputSequencer _sequencer;
    private readonly OutputDispatcher _dispatcher;
    private readonly Func<int, bool> _isFresh;
    private readonly byte[] _refusal = new byte[256]; // the refusal's body, written on the connection thread under the session lock
    private readonly PartitionOwnership? _ownership;
    private long _refusedBusy;

    /// <param name="index">The participant's index.</param>
    /// <param name="sequencer">Where inputs go.</param>
    /// <param name="dispatcher">Told when the participant logs on.</param>
    /// <param name="isFresh">Whether nothing was ever exchanged with the participant (a sequence reset is harmless then).</param>
    /// <param name="ownership">The partitions this instance owns (null: every one).</param>
    public ParticipantApplication(int index, InputSequencer sequencer, OutputDispatcher dispatcher, Func<int, bool> isFresh,
        PartitionOwnership? ownership = null)
    {
        _ownership = ownership;
        _index = index;
        _sequencer = sequencer;
        _dispatcher = dispatcher;
        _isFresh = isFresh;
    }

    /// <summary>Messages answered "application not available" because the ring or the journal was full.</summary>
    public long RefusedBusy => Interlocked.Read(ref _refusedBusy);

    /// <summary>The refusal text for a sequence reset (a constant: nothing is formatted per logon).</summary>
    internal const string ResetRefused =
        "ResetSeqNumFlag refused: the matching service's restart rule counts on one sequence per participant (start a new data directory for a new day)";

    public override LogonDecision OnLogonRequest(FixSession session, FixMessage logon)
    {
        // The session layer logs a refused logon with the peer's address and this reason.
        if (logon.TryGetChar(Tags.ResetSeqNumFlag, out byte reset) && reset == (byte)'Y' && !_isFresh(_index))
        {
            return LogonDecision.Refuse(ResetRefused);
        }

        return LogonDecision.Accept;
    }

    public override void OnLogon(FixSession session) => _dispatcher.SignalLogon(_index);

    public override MessageDisposition FromApp(FixSession session, FixMessage message)
    {
        if (MessageReader.KindOf(message.MsgType) == MessageKind.None)
        {
            return MessageDisposition.UnsupportedMessageType;
        }

        if (_ownership is not null && !_ownership.Owns(message))
        {
            // Another instance owns the trade (docs/scale-out.md): refused before the journal, nothing taken.
            return MessageDisposition.BusinessReject(PartitionOwnership.RefusedReason);
        }

        message.TryGetInt(Tags.MsgSeqNum, out int seq);
        switch (_sequencer.Submit(_index, session.Store.Generation, seq, message.Bytes))
        {
            case SubmitResult.Accepted:
            case SubmitResult.AlreadyJournalled:
                return MessageDisposition.Accept;
            default:
                // Back-pressure: BusinessRejectReason 4 (application not available); the message was not taken and
                // the participant sends it again (a new MsgSeqNum, the same business ID).
                Interlocked.Increment(ref _refusedBusy);
                return Refuse(session, message);
        }
    }

    /// <summary>
    /// True for a refusal this class stored (a BusinessMessageReject without BusinessRejectRefID, 379): not one of the
    /// matcher's answers, so the restart rule does not count it (every answer the matcher writes as 35=j carries 379).
    /// </summary>
    internal static bool IsRefusal(ReadOnlySpan<byte> message) =>
        FixMessage.PeekMsgType(message).SequenceEqual("j"u8) && message.IndexOf("\u0001379="u8) < 0;

    // The refusal goes out deferred, as the matcher's answers do: stored now, on the wire at the matcher thread's next
    // FlushSessions (or before anything else this session sends). The session's own BusinessMessageReject is a plain
    // send that waits under the session lock for its own store flush (StoreSyncBeforeSend=Y): one flush wait per
    // refused message, which past the bounded rate took the time matching needed. The same fields as the session's,
    // in the same order.
    private MessageDisposition Refuse(FixSession session, FixMessage message)
    {
        message.TryGetInt(Tags.MsgSeqNum, out int refSeqNum);
        var body = new FixBodyWriter(_refusal);
        body.Add(Tags.RefSeqNum, refSeqNum);
        body.Add(Tags.Text, "Application not available"u8);
        body.Add(Tags.RefMsgType, message.MsgType);
        body.Add(Tags.BusinessRejectReason, 4L);
        switch (session.SendDeferred("j"u8, body.Written))
        {
            case SendResult.Sent:
                _sequencer.WakeMatcher(); // its loop flushes the sessions that hold deferred messages
                return MessageDisposition.Accept; // answered: the session only moves its expected MsgSeqNum on
            case SendResult.TransportFailed:
                return MessageDisposition.Accept; // stored: a resend delivers it
            default:
                return MessageDisposition.BusinessReject(4); // not stored: the session's own (waiting) refusal
        }
    }
}
