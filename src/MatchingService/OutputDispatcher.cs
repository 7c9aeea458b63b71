using RapidFix.Engine.Sessions;

namespace RapidFix.MatchingService;

/// <summary>
/// Sends the matcher's answers to the participants' sessions, from the matcher thread only (so each session's
/// application messages are stored in the order the matcher produced them), and applies the restart rule:
/// </summary>
/// <remarks>
/// <para><b>The restart rule.</b> The n-th application message the matcher addresses to participant P (counting
/// from the first input of the journal) is sent if and only if n &gt; S(P), where S(P) is the number of the
/// matcher's application messages found in P's outbound session store at startup (the session's own
/// BusinessMessageRejects stored there on the connection thread, back-pressure 4, wrong partition 6, unsupported type
/// 3, are not the matcher's: they carry no BusinessRejectRefID and are not counted). This holds because (1) the
/// matcher is deterministic and the input journal replays its inputs in the original order, so the n-th message to
/// P is the same message after a restart; (2) only this thread sends application messages, in that order, and a
/// message counts as handled once <see cref="FixSession.Send"/> has stored it (Sent, or TransportFailed after
/// storing: the session's resend delivers it); (3) the sessions run with StoreSyncBeforeSend=Y, so nothing reaches
/// a participant that its store could lose in a crash; (4) an answer is produced only from inputs already durable in
/// the input journal (the matcher thread waits for that before sending a batch), so no stored answer can come
/// from an input the journal lost. Hence messages 1..S(P) were stored exactly once and the session layer resends
/// any of them a participant missed; messages after S(P) were never stored and go out now (or when P logs on).</para>
/// <para>A participant that is not logged on gets its answers later: they wait, in order, in a queue sized at
/// startup and are sent when it logs on. When that queue is full, the participant's answers are counted as held
/// back and not sent until the next restart, whose replay produces them again (the rule above re-sends exactly the
/// ones never stored): never a gap in the order, never a duplicate.</para>
/// </remarks>
internal sealed class OutputDispatcher
{
    private readonly FixSession?[] _sessions;
    private readonly OutputQueue[] _pending;
    private readonly long[] _produced;
    private readonly long[] _alreadyStored;
    private readonly bool[] _heldBack;
    private readonly int[] _logonSignal;
    private long _suppressed;
    private long _sent;
    private long _queued;
    private long _heldBackCount;
    private long _sendFailures;

    /// <param name="participants">Participants, by index.</param>
    /// <param name="alreadyStored">S(P) for each participant: the answers its outbound store already holds.</param>
    /// <param name="pendingBytes">Queue bytes per participant.</param>
    /// <param name="pendingMessages">Queue entries per participant.</param>
    public OutputDispatcher(int participants, long[] alreadyStored, int pendingBytes, int pendingMessages)
    {
        _sessions = new FixSession?[participants];
        _pending = new OutputQueue[participants];
        for (int i = 0; i < participants; i++)
        {
            _pending[i] = new OutputQueue(pendingBytes, pendingMessages);
        }

        _produced = new long[participants];
        _alreadyStored = alreadyStored;
        _heldBack = new bool[participants];
        _logonSignal = new int[participants];
    }

    /// <summary>Answers not sent because the participant's store already held them (the restart rule).</summary>
    public long Suppressed => Interlocked.Read(ref _suppressed);

    /// <summary>Answers handed to a session and stored by it.</summary>
    public long Sent => Interlocked.Read(ref _sent);

    /// <summary>Answers that waited for a participant to log on.</summary>
    public long Queued => Interlocked.Read(ref _queued);

    /// <summary>Answers held back until a restart because a participant's queue was full.</summary>
    public long HeldBack => Interlocked.Read(ref _heldBackCount);

    /// <summary>Answers a session refused for good (too large for MaxMessageSize).</summary>
    public long SendFailures => Interlocked.Read(ref _sendFailures);

    /// <summary>Answers produced for a participant so far (replay included).</summary>
    public long ProducedFor(int participant) => Volatile.Read(ref _produced[participant]);

    /// <summary>Answers waiting for a participant to log on.</summary>
    public int PendingFor(int participant) => _pending[participant].Count;

    /// <summary>The <paramref name="index"/>-th answer waiting for a participant (tests).</summary>
    internal OutputMessage PendingAt(int participant, int index) => _pending[participant][index];

    /// <summary>Attaches the live sessions (after replay, before the sockets open).</summary>
    public void Attach(int participant, FixSession session) => _sessions[participant] = session;

    /// <summary>Any thread (the session's, from OnLogon): the participant logged on; its waiting answers may go.</summary>
    public void SignalLogon(int participant) => Volatile.Write(ref _logonSignal[participant], 1);

    /// <summary>Matcher thread: one answer of the matcher.</summary>
    public void Dispatch(int destination, ReadOnlySpan<byte> msgType, ReadOnlySpan<byte> body) => Dispatch(destination, msgType, body, 0);

    /// <summary>As <see cref="Dispatch(int, ReadOnlySpan{byte}, ReadOnlySpan{byte})"/>, stamped with <paramref name="sendingTimeNanos"/> (0: the session's clock).</summary>
    public void Dispatch(int destination, ReadOnlySpan<byte> msgType, ReadOnlySpan<byte> body, long sendingTimeNanos)
    {
        long n = ++_produced[destination];
        if (n <= _alreadyStored[destination])
        {
            _suppressed++;
            return;
        }

        var pending = _pending[destination];
        if (_heldBack[destination])
        {
            _heldBackCount++;
            return;
        }

        if (pending.Count == 0)
        {
            var outcome = TrySend(destination, msgType, body, sendingTimeNanos);
            if (outcome != Outcome.Wait)
            {
                return;
            }
        }

        if (pending.TryAdd(destination, msgType, body))
        {
            _queued++;
        }
        else
        {
            HoldBack(destination, 1);
        }
    }

    /// <summary>Matcher thread: sends the waiting answers of participants that logged on since the last call.</summary>
    public void FlushLoggedOn()
    {
        for (int p = 0; p < _pending.Length; p++)
        {
            if (Volatile.Read(ref _logonSignal[p]) == 0 && (_pending[p].Count == 0 || _sessions[p] is not { IsLoggedOn: true }))
            {
                continue;
            }

            Volatile.Write(ref _logonSignal[p], 0);
            var pending = _pending[p];
            int sent = 0;
            while (sent < pending.Count)
            {
                var message = pending[sent];
                var outcome = TrySend(p, message.MsgType, message.Body);
                if (outcome == Outcome.Wait)
                {
                    break;
                }

                sent++;
                if (outcome == Outcome.Refused)
                {
                    HoldBack(p, pending.Count - sent);
                    sent = pending.Count;
                }
            }

            pending.RemoveFirst(sent);
        }
    }

    /// <summary>
    /// Matcher thread, after a batch: puts the answers stored since the last call on the wire, each session's after
    /// one wait for its store (the stores' flusher threads work at the same time, one flush a store a batch). A session that cannot write its
    /// batch disconnects; the answers are stored and its resend delivers them.
    /// </summary>
    public void FlushSessions()
    {
        // Every store's flush asked for first (a batched send's messages start none of their own), so they run
        // together instead of one after another as each wait below comes.
        StartFlushSessions();
        for (int p = 0; p < _sessions.Length; p++)
        {
            var session = _sessions[p];
            if (session is not null && session.HasDeferred)
            {
                session.FlushDeferred();
            }
        }
    }

    /// <summary>
    /// Matcher thread, after a batch: asks every session's store to make the answers stored since the last call durable,
    /// without waiting; <see cref="FlushSessions"/> later waits for them (by then done) and writes them.
    /// </summary>
    public void StartFlushSessions()
    {
        for (int p = 0; p < _sessions.Length; p++)
        {
            _sessions[p]?.StartFlushDeferred();
        }
    }

    // From here on this participant's answers wait for a restart: sending later ones now would leave a hole in the
    // order the restart rule counts on.
    private void HoldBack(int participant, int messages)
    {
        _heldBack[participant] = true;
        _heldBackCount += messages;
    }

    private Outcome TrySend(int destination, ReadOnlySpan<byte> msgType, ReadOnlySpan<byte> body, long sendingTimeNanos = 0)
    {
        var session = _sessions[destination];
        if (session is null)
        {
            return Outcome.Wait;
        }

        // Stored now, on the wire at FlushSessions: one store flush covers the batch (StoreSyncBeforeSend=Y).
        switch (session.SendDeferred(msgType, body, sendingTimeNanos))
        {
            case SendResult.Sent:
            case SendResult.TransportFailed: // stored before the transport failed: the session's resend delivers it
                _sent++;
                return Outcome.Stored;
            case SendResult.NotLoggedOn:
                return Outcome.Wait;
            default:
                // TooLarge: startup checks MaxMessageSize against the largest answer, so this is a bug. Counted, and the
                // participant's answers are held back until a restart (a dropped one would break the count).
                _sendFailures++;
                HoldBack(destination, 1);
                return Outcome.Refused;
        }
    }

    private enum Outcome : byte
    {
        /// <summary>The session stored it (the restart rule counts it).</summary>
        Stored,

        /// <summary>Not logged on: it waits in the participant's queue.</summary>
        Wait,

        /// <summary>The session cannot take it: held back until a restart.</summary>
        Refused,
    }
}
