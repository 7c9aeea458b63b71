using RapidFix.Engine.Codec;
using RapidFix.Engine.Dictionary;

namespace RapidFix.MatchingService;

/// <summary>
/// The one thread that owns the matcher: it takes the inputs from the <see cref="InputRing"/> in journal order,
/// parses each in place, hands it to the matcher, collects the answers of a batch, waits until the batch's inputs are
/// durable in the input journal ("acknowledged means journalled"), then sends the answers through the
/// <see cref="OutputDispatcher"/>. Nothing in the loop allocates.
/// </summary>
internal sealed class MatcherThread : IDisposable
{
    /// <summary>Inputs per batch at most (one journal wait per batch).</summary>
    private const int MaxBatch = 256;

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
    private volatile bool _stopping;
    private long _processed;
    private long _unparsable;
    private Exception? _fault;

    public MatcherThread(InputRing ring, InputJournal journal, MatchingCore core, OutputDispatcher dispatcher, DataDictionary[] dictionaries,
        TimeSpan durableTimeout)
    {
        _ring = ring;
        _journal = journal;
        _core = core;
        _dispatcher = dispatcher;
        _dictionaries = dictionaries;
        _durableTimeout = durableTimeout;
        _message = new FixMessage();
        // Room for a batch's answers: a batch ends early when less than one input's worth of answers is left.
        _batch = new OutputQueue(MaxBatch * MatchingCore.MaxAnswerBytesPerInput, MaxBatch * MatchingCore.MaxAnswersPerInput);
        _thread = new Thread(Run) { IsBackground = true, Name = "matcher" };
    }

    /// <summary>Inputs matched since startup (replay not included).</summary>
    public long Processed => Interlocked.Read(ref _processed);

    /// <summary>Inputs the matcher thread could not parse (cannot happen for inputs the session validated; counted).</summary>
    public long Unparsable => Interlocked.Read(ref _unparsable);

    /// <summary>Inputs queued and not yet answered.</summary>
    public long Backlog => _ring.UsedBytes;

    /// <summary>What stopped the thread (a journal that stopped being durable), or null.</summary>
    public Exception? Fault => Volatile.Read(ref _fault);

    public void Start() => _thread.Start();

    /// <summary>Called by producers after a write: wakes the thread.</summary>
    public void Wake() => _work.Set();

    private void Run()
    {
        var stats = RapidFix.Pools.Diagnostics.EngineThreads.Register();
        long cursor = _ring.ReadStart;
        while (!_stopping)
        {
            stats.RefreshAllocatedBytes();
            _dispatcher.FlushLoggedOn();
            _dispatcher.FlushSessions();
            int n = 0;
            long lastPosition = 0;
            while (n < MaxBatch && _batch.FreeBytes >= MatchingCore.MaxAnswerBytesPerInput && _batch.FreeEntries >= MatchingCore.MaxAnswersPerInput &&
                   _ring.TryRead(ref cursor, out var entry))
            {
                if (_message.Parse(_ring.Buffer, entry.Offset, entry.Length, _dictionaries[entry.Participant]) == FixParseError.None)
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
            for (int i = 0; i < _batch.Count; i++)
            {
                var answer = _batch[i];
                _dispatcher.Dispatch(answer.Destination, answer.MsgType, answer.Body);
            }

            _batch.Clear();
            _dispatcher.FlushSessions();
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
