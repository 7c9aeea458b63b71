using RapidFix.Engine.Store;

namespace RapidFix.MatchingService;

/// <summary>What <see cref="InputSequencer.Submit"/> did with a message.</summary>
internal enum SubmitResult : byte
{
    /// <summary>Journalled (not yet durable) and queued for the matcher.</summary>
    Accepted,

    /// <summary>
    /// Already journalled: the sender's MsgSeqNum is at or below the highest one journalled for its session (a resend
    /// after a restart that lowered the expected sequence number). Nothing was done: the first copy is being or was
    /// processed.
    /// </summary>
    AlreadyJournalled,

    /// <summary>The input ring has no room: back-pressure, counted; the participant is told to send again.</summary>
    RingFull,

    /// <summary>The input journal refused the write (full or faulted), counted; nothing was queued.</summary>
    JournalRefused,
}

/// <summary>
/// Puts the inputs of every participant into one order: under one lock (held for a copy and a journal append, never
/// while a session lock is wanted, so no lock-order cycle with the sessions) each accepted message is appended to the
/// <see cref="InputJournal"/> and to the <see cref="InputRing"/> the matcher thread reads, in the same order.
/// Connection threads call <see cref="Submit"/> from <c>FromApp</c>; nothing here allocates.
/// </summary>
internal sealed class InputSequencer
{
    private readonly object _sync = new();
    private readonly InputJournal _journal;
    private readonly InputRing _ring;
    private readonly byte[][] _participants;
    private readonly int[] _highestSeq;
    private readonly long[] _generation;
    private readonly Action _wake;
    private int _businessDate;
    private long _ringFull;
    private long _refusedBeforeRead;
    private long _journalRefused;
    private long _alreadyJournalled;
    private long _wakes;

    /// <param name="journal">The input journal (recovered).</param>
    /// <param name="ring">The ring the matcher reads.</param>
    /// <param name="participants">Each participant's CompID, by index.</param>
    /// <param name="wake">Tells the matcher thread there is work (allocation-free).</param>
    public InputSequencer(InputJournal journal, InputRing ring, byte[][] participants, Action wake)
    {
        _journal = journal;
        _ring = ring;
        _participants = participants;
        _highestSeq = new int[participants.Length];
        _generation = new long[participants.Length];
        _wake = wake;
    }

    /// <summary>A participant's CompID (the sender the matcher reads its messages as).</summary>
    public ReadOnlySpan<byte> CompIdOf(int participant) => _participants[participant];

    /// <summary>Messages refused because the ring was full.</summary>
    public long RingFullCount => Interlocked.Read(ref _ringFull);

    /// <summary>Messages refused because the journal refused the write.</summary>
    public long JournalRefusedCount => Interlocked.Read(ref _journalRefused);

    /// <summary>Times the matcher thread was told there is work (once per read of a connection, not per input).</summary>
    public long Wakes => Interlocked.Read(ref _wakes);

    /// <summary>Tells the matcher thread there is work (a connection's read end, after inputs submitted with a deferred wake).</summary>
    public void Wake()
    {
        Interlocked.Increment(ref _wakes);
        _wake();
    }

    /// <summary>Resends of messages already journalled, ignored.</summary>
    public long AlreadyJournalledCount => Interlocked.Read(ref _alreadyJournalled);

    /// <summary>
    /// The connection thread of <paramref name="participant"/>, before it reads the message for the matcher: false
    /// when <see cref="Submit(int, long, int, ReadOnlySpan{byte}, in ReadInput, bool, bool)"/> would refuse it for a
    /// full ring, so the refusal costs no read. A hint without the lock (the ring's tail moves under it): true lets
    /// Submit decide. A message already journalled is never refused here (Submit ignores it; refused, the
    /// participant would send it again as new).
    /// </summary>
    public bool MayQueue(int participant, long generation, int msgSeqNum, int messageLength)
    {
        // Only this participant's connection thread writes its entries (under the lock), so it reads them as written.
        if (_generation[participant] == generation && msgSeqNum <= _highestSeq[participant])
        {
            return true;
        }

        if (_ring.HasRoomFor(messageLength, read: true))
        {
            return true;
        }

        Interlocked.Increment(ref _ringFull);
        Interlocked.Increment(ref _refusedBeforeRead);
        return false;
    }

    /// <summary>Refusals for a full ring decided before the message was read (<see cref="MayQueue"/>).</summary>
    public long RefusedBeforeRead => Interlocked.Read(ref _refusedBeforeRead);

    /// <summary>The highest MsgSeqNum journalled for a participant in its session's current generation (0: none).</summary>
    public int HighestJournalled(int participant, long generation)
    {
        lock (_sync)
        {
            return _generation[participant] == generation ? _highestSeq[participant] : 0;
        }
    }

    /// <summary>Replay (startup): a journalled input of <paramref name="participant"/> was read back.</summary>
    public void NoteRecovered(int participant, long generation, int msgSeqNum)
    {
        if (generation != _generation[participant] || msgSeqNum > _highestSeq[participant])
        {
            _generation[participant] = generation;
            _highestSeq[participant] = msgSeqNum;
        }
    }

    /// <summary>The business date of the last input (the journal's date, or its last roll's).</summary>
    public int BusinessDate
    {
        get
        {
            lock (_sync)
            {
                return _businessDate;
            }
        }
    }

    /// <summary>Startup, after the replay: the business date the journal ends in.</summary>
    public void NoteBusinessDate(int yyyymmdd) => _businessDate = yyyymmdd;

    /// <summary>
    /// Journals and queues a business-date roll to the next business day, among the inputs in their order. Returns
    /// the new date, or 0 when the ring or the journal had no room (counted like a refused input; the caller tries
    /// again later).
    /// </summary>
    public int SubmitRoll()
    {
        Span<byte> date = stackalloc byte[4];
        int next;
        lock (_sync)
        {
            next = BusinessDateRoll.Next(_businessDate);
            System.Buffers.Binary.BinaryPrimitives.WriteInt32LittleEndian(date, next);
            if (!_ring.HasRoomFor(date.Length))
            {
                Interlocked.Increment(ref _ringFull);
                return 0;
            }

            // The control record of InputJournal: no sender, the date where a message's generation goes, no message.
            if (_journal.Append(default, next, default) != StoreWriteStatus.Ok)
            {
                _journalRefused++;
                return 0;
            }

            _ring.Write(InputRing.BusinessDateRoll, _journal.WrittenPosition, date);
            _businessDate = next;
        }

        Wake();
        return next;
    }

    /// <summary>
    /// Journals and queues one inbound application message of <paramref name="participant"/>, whose session is in
    /// store generation <paramref name="generation"/> and which carries MsgSeqNum <paramref name="msgSeqNum"/>.
    /// </summary>
    public SubmitResult Submit(int participant, long generation, int msgSeqNum, ReadOnlySpan<byte> message) =>
        Submit(participant, generation, msgSeqNum, message, in System.Runtime.CompilerServices.Unsafe.NullRef<ReadInput>(), read: false);

    /// <summary>
    /// As <see cref="Submit(int, long, int, ReadOnlySpan{byte})"/>, with what the connection thread read from the
    /// message (<paramref name="read"/> true: <paramref name="input"/>, queued with it for the matcher thread).
    /// With <paramref name="deferWake"/> the matcher thread is not woken: the caller calls <see cref="Wake"/> once
    /// after the inputs of one read (the connection's read end), instead of one wake (a futex call and a context
    /// switch when the matcher thread sleeps) per input.
    /// </summary>
    public SubmitResult Submit(int participant, long generation, int msgSeqNum, ReadOnlySpan<byte> message, in ReadInput input, bool read,
        bool deferWake = false)
    {
        SubmitResult result;
        lock (_sync)
        {
            if (_generation[participant] == generation && msgSeqNum <= _highestSeq[participant])
            {
                _alreadyJournalled++;
                return SubmitResult.AlreadyJournalled;
            }

            if (!_ring.HasRoomFor(message.Length, read))
            {
                Interlocked.Increment(ref _ringFull);
                result = SubmitResult.RingFull;
            }
            else if (_journal.Append(_participants[participant], generation, message) != StoreWriteStatus.Ok)
            {
                _journalRefused++;
                result = SubmitResult.JournalRefused;
            }
            else
            {
                _ring.Write(participant, _journal.WrittenPosition, message, in input, read);
                _generation[participant] = generation;
                _highestSeq[participant] = msgSeqNum;
                result = SubmitResult.Accepted;
            }
        }

        if (result == SubmitResult.Accepted && !deferWake)
        {
            Wake();
        }

        return result;
    }
}
