using RapidFix.Engine.Codec;
using RapidFix.Engine.Dictionary;

namespace RapidFix.MatchingService;

/// <summary>
/// The one thread that owns the matcher: it takes the inputs from the <see cref="InputRing"/> in journal order,
/// parses each in place, hands it to the matcher, collects the answers of a batch, waits until the batch's inputs are
/// durable in the input journal ("acknowledged means journalled"), then stores the answers through the
/// <see cref="OutputDispatcher"/> and asks their stores to flush; they go on the wire once the next batch is matched
/// (or at once when there is none), by which time the stores' fsyncs have run. Nothing in the loop allocates.
/// </summary>
internal sealed class MatcherThread : IDisposable
{
    /// <summary>
    /// Inputs per batch at most (one journal wait and one store flush per session per batch). A batch takes what the
    /// ring holds, so it grows with the rate: the matcher thread's rate is the batch divided by the cycle (match,
    /// wait for the journal, wait for the stores), and the waits are fixed, so a cap of 256 held the service at 256
    /// inputs per cycle (about 64,000/s with 4 ms of fsyncs a cycle, far less on a loaded machine).
    /// </summary>
    internal const int MaxBatch = 8192;

    /// <summary>
    /// Bytes of the batch's answers (typical inputs produce one to three answers of a few hundred bytes: a batch of
    /// <see cref="MaxBatch"/> needs about 4 MiB); a batch also ends early when less than one input's worst case
    /// (<see cref="MatchingCore.MaxAnswerBytesPerInput"/>) is left.
    /// </summary>
    internal const int BatchAnswerBytes = 8 << 20;

    /// <summary>Answers of a batch at most (a batch ends early when less than one input's worst case is left).</summary>
    internal const int BatchAnswers = 4 * MaxBatch;

    private readonly InputRing _ring;
    private readonly InputJournal _journal;
    private readonly MatchingCore _core;
    private readonly OutputDispatcher _dispatcher;
    private readonly DataDictionary[] _dictionaries;
    private readonly OutputQueue _batch;
    private readonly FixMessage _message;
    private readonly ManualResetEventSlim _work = new(false);
    private readonly TimeSpan _durableTimeout;
    private readonly Thread _thread;
    private readonly InputSequencer _sequencer;
    private readonly TimeSpan? _rollTime;
    private readonly RapidFix.Engine.Time.EngineClock _clock = RapidFix.Engine.Time.EngineClock.Shared;
    private long _rollAtNanos;
    private long _rolls;
    private volatile bool _stopping;
    private volatile bool _held;
    private long _processed;
    private long _batches;
    private long _largestBatch;
    private long _unparsable;
    private Exception? _fault;

    /// <param name="rollTime">The time of day (UTC) a business date ends (null: no automatic roll).</param>
    public MatcherThread(InputRing ring, InputJournal journal, MatchingCore core, OutputDispatcher dispatcher, DataDictionary[] dictionaries,
        TimeSpan durableTimeout, InputSequencer sequencer, TimeSpan? rollTime)
    {
        _sequencer = sequencer;
        _rollTime = rollTime;
        _ring = ring;
        _journal = journal;
        _core = core;
        _dispatcher = dispatcher;
        _dictionaries = dictionaries;
        _durableTimeout = durableTimeout;
        _message = new FixMessage(MatchingCore.InputView);
        // Room for a batch's answers: a batch ends early when less than one input's worth of answers is left.
        _batch = new OutputQueue(BatchAnswerBytes, BatchAnswers);
        _thread = new Thread(Run) { IsBackground = true, Name = "matcher" };
    }

    /// <summary>Inputs matched since startup (replay not included).</summary>
    public long Processed => Interlocked.Read(ref _processed);

    /// <summary>Batches answered since startup (one journal wait and one store flush per session each).</summary>
    public long Batches => Interlocked.Read(ref _batches);

    /// <summary>Inputs of the largest batch since startup.</summary>
    public long LargestBatch => Interlocked.Read(ref _largestBatch);

    /// <summary>Business-date rolls processed since startup (replay not included).</summary>
    public long Rolls => Interlocked.Read(ref _rolls);

    /// <summary>Inputs the matcher thread could not parse (cannot happen for inputs the session validated; counted).</summary>
    public long Unparsable => Interlocked.Read(ref _unparsable);

    /// <summary>Inputs queued and not yet answered.</summary>
    public long Backlog => _ring.UsedBytes;

    /// <summary>What stopped the thread (a journal that stopped being durable), or null.</summary>
    public Exception? Fault => Volatile.Read(ref _fault);

    public void Start()
    {
        if (_rollTime is { } rollTime)
        {
            _rollAtNanos = BusinessDateRoll.RollInstantNanos(_sequencer.BusinessDate, rollTime);
        }

        _thread.Start();
    }

    /// <summary>
    /// Tests: true holds the thread between batches (it matches nothing until set false), as a stalled disk or a
    /// descheduled process would: what the inputs then do is what a stall makes them do.
    /// </summary>
    internal bool Held
    {
        get => _held;
        set
        {
            _held = value;
            _work.Set();
        }
    }

    /// <summary>Called by producers after a write: wakes the thread.</summary>
    public void Wake() => _work.Set();

    // Compiled optimized at its first call (the thread starts before the warm-up, and a loop left in tier 0 would be
    // moved to optimized code by on-stack replacement when the first trades come, in the continuous phase).
    [System.Runtime.CompilerServices.MethodImpl(System.Runtime.CompilerServices.MethodImplOptions.AggressiveOptimization)]
    private void Run()
    {
        var stats = RapidFix.Pools.Diagnostics.EngineThreads.Register();
        long cursor = _ring.ReadStart;
        while (!_stopping)
        {
            if (_held)
            {
                _work.Reset();
                if (_held)
                {
                    _work.Wait(10);
                }

                continue;
            }

            stats.RefreshAllocatedBytes();
            _dispatcher.FlushLoggedOn();
            RollWhenDue();
            int n = 0;
            long lastPosition = 0;
            int rollTo = 0;
            // One fsync of the input journal a batch, asked for now: it runs while the batch is matched, and the batch
            // takes the inputs it covers (a later one waits for the next batch's, instead of a second fsync for it).
            long flushTo = _journal.RequestFlush();
            _core.BeginBatch(_clock.UtcNowNanos); // the batch's answers carry one time: one clock read, not one an answer

            while (n < MaxBatch && _batch.FreeBytes >= MatchingCore.MaxAnswerBytesPerInput && _batch.FreeEntries >= MatchingCore.MaxAnswersPerInput)
            {
                long before = cursor;
                if (!_ring.TryRead(ref cursor, out var entry))
                {
                    break;
                }

                if (entry.JournalPosition > flushTo)
                {
                    cursor = before; // queued after the flush was asked for: the next batch's
                    break;
                }

                if (entry.Participant == InputRing.BusinessDateRoll)
                {
                    // A roll ends the batch: the inputs before it are answered first, then it expires what it must.
                    rollTo = System.Buffers.Binary.BinaryPrimitives.ReadInt32LittleEndian(_ring.Buffer.AsSpan(entry.Offset, 4));
                    lastPosition = entry.JournalPosition;
                    n++;
                    break;
                }

                if (entry.Read)
                {
                    // Read by the connection thread (ReadInput): matched without parsing again.
                    _core.Process(in _ring.ReadInputOf(in entry), _ring.Buffer, entry.Offset, _batch);
                }
                else if (_message.Parse(_ring.Buffer, entry.Offset, entry.Length, _dictionaries[entry.Participant]) == FixParseError.None)
                {
                    _core.Process(entry.Participant, _message, _batch);
                }
                else
                {
                    _unparsable++;
                }

                lastPosition = entry.JournalPosition;
                n++;
            }

            _core.EndBatch();

            // The previous batch's answers, stored and their stores' flushes asked for at its end, go on the wire now:
            // their fsyncs ran while this batch was matched, instead of the matcher thread waiting for them idle.
            _dispatcher.FlushSessions();

            if (n == 0)
            {
                // Reset, look again, then sleep: a producer's Set after our look is never lost.
                _work.Reset();
                if (!_ring.TryRead(ref cursor, out _) && !_stopping)
                {
                    _work.Wait(50);
                }

                cursor = _ring.ReadStart;
                continue;
            }

            if (!_journal.WaitForDurable(lastPosition, _durableTimeout))
            {
                // No answer may leave before its input is durable: stop matching (fail closed); the participants'
                // sessions stay up, the inputs stay journalled or are asked for again after a restart.
                Volatile.Write(ref _fault, _journal.Fault ?? new TimeoutException("the input journal did not become durable in time"));
                return;
            }

            _ring.Release(cursor);
            Interlocked.Add(ref _processed, n);
            Interlocked.Increment(ref _batches);
            if (n > _largestBatch)
            {
                Interlocked.Exchange(ref _largestBatch, n);
            }

            long sendingTime = _clock.UtcNowNanos; // one SendingTime for the batch's answers, stored together now
            for (int i = 0; i < _batch.Count; i++)
            {
                var answer = _batch[i];
                _dispatcher.Dispatch(answer.Destination, answer.MsgType, answer.Body, sendingTime);
            }

            _batch.Clear();
            if (rollTo != 0)
            {
                _core.AdvanceBusinessDate(rollTo, _dispatcher);
                Interlocked.Increment(ref _rolls);
            }

            // No wait here: the stores flush the batch while the next one is matched (FlushSessions above writes it).
            _dispatcher.StartFlushSessions();
        }

        _dispatcher.FlushSessions(); // stopping: what the last batch stored goes out
    }

    // The engine's cached clock against the end of the current business date: a roll is submitted like an input
    // (journalled, then queued), so a replay meets it at the same point. A full ring or journal: tried again next loop.
    private void RollWhenDue()
    {
        if (_rollTime is { } rollTime && _clock.UtcNowNanos >= _rollAtNanos)
        {
            int next = _sequencer.SubmitRoll();
            if (next != 0)
            {
                _rollAtNanos = BusinessDateRoll.RollInstantNanos(next, rollTime);
            }
        }
    }

    public void Dispose()
    {
        _stopping = true;
        _work.Set();
        if (_thread.IsAlive)
        {
            _thread.Join(TimeSpan.FromSeconds(10));
        }

        _work.Dispose();
    }
}
