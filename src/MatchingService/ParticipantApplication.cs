using RapidFix.Engine.Codec;
using RapidFix.Engine.Fields;
using RapidFix.Engine.Sessions;
using RapidFix.Matching;

namespace RapidFix.MatchingService;

/// <summary>
/// The application behind one participant's session. <see cref="FromApp"/> runs on the connection thread under the
/// session's lock: it only journals and queues the message (<see cref="InputSequencer"/>), or refuses it with the
/// session's own BusinessMessageReject (back-pressure 4, wrong partition 6, unsupported type 3: the engine stores it
/// and writes it with the read's batch, one store flush per read); matching and every answer happen on the matcher
/// thread, which takes one session lock at a time (in <see cref="FixSession.SendDeferred(ReadOnlySpan{byte}, ReadOnlySpan{byte})"/>) and never while
/// holding another. Sending a CLS to another participant straight from here would take that session's lock
/// while holding this one: two participants clearing trades with each other at the same moment would deadlock.
/// </summary>
internal sealed class ParticipantApplication : FixApplicationBase, IReadEndHook
{
    private readonly int _index;
    private readonly InputSequencer _sequencer;
    private readonly OutputDispatcher _dispatcher;
    private readonly Func<int, bool> _isFresh;
    private readonly PartitionOwnership? _ownership;
    private long _refusedBusy;
    private ReadInput _read; // FromApp runs under the session's lock: one input at a time
    private bool _wakeAtReadEnd; // connection thread: inputs of this read were queued, the matcher is told at the read's end

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
        long generation = session.Store.Generation;
        if (!_sequencer.MayQueue(_index, generation, seq, message.Length))
        {
            // Past the bound (the ring full): refused before the read, the cheapest refusal that still tells the
            // participant (counted; the engine's reject, deferred with the read, as below).
            Interlocked.Increment(ref _refusedBusy);
            return MessageDisposition.BusinessReject(RefusedBusyReason);
        }

        // Read here, on this connection's thread, in parallel with the others: the matcher thread, the one serial
        // stage, then only matches (a message the reader refuses goes without, and the matcher answers the refusal).
        bool read = ReadInput.TryRead(message, _sequencer.CompIdOf(_index), ref _read);
        switch (_sequencer.Submit(_index, generation, seq, message.Bytes, in _read, read, deferWake: true))
        {
            case SubmitResult.Accepted:
                _wakeAtReadEnd = true; // one wake of the matcher thread per read (OnReadEnd), not per input
                return MessageDisposition.Accept;
            case SubmitResult.AlreadyJournalled:
                return MessageDisposition.Accept;
            default:
                // Back-pressure: BusinessRejectReason 4 (application not available); the message was not taken and
                // the participant sends it again (a new MsgSeqNum, the same business ID). The engine's reject goes
                // out deferred with the read's batch: no flush wait per refused message on the connection thread.
                Interlocked.Increment(ref _refusedBusy);
                return MessageDisposition.BusinessReject(RefusedBusyReason);
        }
    }

    /// <summary>
    /// The connection thread, after the last message of a read (outside the session's lock): wakes the matcher thread
    /// once for every input the read queued. The session calls it after every read of a socket connection, so no
    /// queued input waits for a later read; the matcher thread also looks again every 50 ms on its own.
    /// </summary>
    public void OnReadEnd(FixSession session)
    {
        if (_wakeAtReadEnd)
        {
            _wakeAtReadEnd = false;
            _sequencer.Wake();
        }
    }

    /// <summary>BusinessRejectReason of a back-pressure refusal: application not available.</summary>
    internal const int RefusedBusyReason = 4;

    /// <summary>
    /// True for a refusal the session stored for this class (the engine's BusinessMessageReject: back-pressure 4, wrong
    /// partition 6, unsupported type 3; it has no BusinessRejectRefID, 379): not one of the matcher's answers, so the
    /// restart rule does not count it (every answer the matcher writes as 35=j carries 379).
    /// </summary>
    internal static bool IsRefusal(ReadOnlySpan<byte> message) =>
        FixMessage.PeekMsgType(message).SequenceEqual("j"u8) && message.IndexOf("\u0001379="u8) < 0;

    /// <summary>The MsgSeqNum a stored refusal (<see cref="IsRefusal"/>) answers: its RefSeqNum (45), 0 when absent (startup).</summary>
    internal static int RefusedSeqNum(ReadOnlySpan<byte> refusal)
    {
        int at = refusal.IndexOf("\u000145="u8);
        int n = 0;
        for (int i = at < 0 ? refusal.Length : at + 4; i < refusal.Length && refusal[i] is >= (byte)'0' and <= (byte)'9'; i++)
        {
            n = (n * 10) + (refusal[i] - '0');
        }

        return n;
    }
}
