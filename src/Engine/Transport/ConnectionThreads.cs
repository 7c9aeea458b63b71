namespace RapidFix.Engine.Transport;

/// <summary>
/// The threads an acceptor runs its connections on: started ahead of need and parked, so that accepting a
/// connection hands it to a waiting thread instead of starting one. Starting a thread waits until the new thread
/// runs, which takes tens of milliseconds on a loaded machine: done on an accept thread, it held up every connection
/// queued behind (a proper Logon behind a flood's admitted connections).
/// </summary>
/// <remarks>
/// A thread runs one connection to its end, then parks again for the next. Threads are started by the pool's own
/// starter thread, never by an accept thread: it keeps <see cref="Spares"/> threads parked ahead of need and starts
/// one for a connection that found none parked. <see cref="Capacity"/> (fixed when the acceptor is created: the
/// connections that may be alive at once, those awaiting their Logon and one per session, plus the spares) bounds
/// them: beyond it a connection waits for a thread to come back, and the wait is counted
/// (<see cref="WaitedForThread"/>); the pool never grows past it.
/// </remarks>
internal sealed class ConnectionThreads : IDisposable
{
    private readonly string _name;
    private readonly object _gate = new();
    private readonly Stack<Worker> _parked = new();
    private readonly Queue<FixSocketConnection> _waiting = new();
    private readonly List<Worker> _all = [];
    private readonly Thread _starter;
    private readonly AutoResetEvent _starterSignal = new(false);
    private long _waitedForThread;
    private int _arrived; // started threads that have run up to their first Park (under _gate)
    private volatile bool _stopping;

    /// <param name="name">Names the threads (the acceptor's port).</param>
    /// <param name="capacity">Threads started at most.</param>
    /// <param name="spares">Threads kept parked ahead of need (at most <paramref name="capacity"/>).</param>
    public ConnectionThreads(string name, int capacity, int spares)
    {
        ArgumentOutOfRangeException.ThrowIfLessThan(capacity, 1);
        ArgumentOutOfRangeException.ThrowIfNegative(spares);
        _name = name;
        Capacity = capacity;
        Spares = Math.Min(spares, capacity);
        _starter = new Thread(StartLoop) { IsBackground = true, Name = $"{name}-starter" };
        _starter.Start();
    }

    /// <summary>Threads started at most.</summary>
    public int Capacity { get; }

    /// <summary>Threads kept parked ahead of need.</summary>
    public int Spares { get; }

    /// <summary>Threads started so far.</summary>
    public int Started
    {
        get
        {
            lock (_gate)
            {
                return _all.Count;
            }
        }
    }

    /// <summary>Threads parked, waiting for a connection.</summary>
    public int Parked
    {
        get
        {
            lock (_gate)
            {
                return _parked.Count;
            }
        }
    }

    /// <summary>Connections that found no thread parked and waited for one to be started or to come back.</summary>
    public long WaitedForThread => Interlocked.Read(ref _waitedForThread);

    /// <summary>
    /// True when the starter has nothing left to do: every thread it started has come to run (parked or serving a
    /// connection), no connection waits for one, and the spares are topped up (or the pool is full). Connections'
    /// arrivals make it start threads (the spares are topped up after each hand-over); a thread's start allocates,
    /// so a measured run waits for this after its logons, before the continuous phase.
    /// </summary>
    public bool Settled
    {
        get
        {
            lock (_gate)
            {
                return _arrived == _all.Count && _waiting.Count == 0 && !(_all.Count < Capacity && _parked.Count < Spares);
            }
        }
    }

    /// <summary>
    /// Runs <paramref name="connection"/> on a parked thread, or, when none is, on the next one started or coming
    /// back. Never blocks and never starts a thread itself.
    /// </summary>
    public void Run(FixSocketConnection connection)
    {
        Worker? worker;
        lock (_gate)
        {
            if (!_parked.TryPop(out worker))
            {
                _waiting.Enqueue(connection);
                _waitedForThread++;
            }
        }

        if (worker is null)
        {
            _starterSignal.Set();
            return;
        }

        worker.Hand(connection);
        WakeStarterIfNeeded();
    }

    /// <summary>Fewer threads parked than kept spare, or connections waiting, and room to start more.</summary>
    private bool NeedsThreads()
    {
        lock (_gate)
        {
            return _all.Count < Capacity && (_parked.Count < Spares || _waiting.Count > 0);
        }
    }

    private void StartLoop()
    {
        while (!_stopping)
        {
            while (!_stopping && NeedsThreads())
            {
                var worker = new Worker(this);
                lock (_gate)
                {
                    _all.Add(worker);
                }

                // The slow part, here rather than on an accept thread: Start returns once the new thread runs.
                worker.Thread.Start();
            }

            _starterSignal.WaitOne(1_000);
        }
    }

    /// <summary>A worker is free: the next waiting connection, or null after parking it.</summary>
    private FixSocketConnection? Park(Worker worker)
    {
        lock (_gate)
        {
            if (!worker.Arrived)
            {
                worker.Arrived = true;
                _arrived++;
            }

            if (_waiting.TryDequeue(out var next))
            {
                return next;
            }

            _parked.Push(worker);
            return null;
        }
    }

    /// <summary>
    /// Stops the parked threads and the starter (threads running a connection end with it); a connection still
    /// waiting for a thread is closed and cleaned up on the caller's.
    /// </summary>
    public void Dispose()
    {
        _stopping = true;
        _starterSignal.Set();
        _starter.Join(TimeSpan.FromSeconds(2));
        Worker[] all;
        FixSocketConnection[] waiting;
        lock (_gate)
        {
            all = [.. _all];
            waiting = [.. _waiting];
            _waiting.Clear();
        }

        foreach (var connection in waiting)
        {
            connection.Disconnect(Sessions.DisconnectReason.Shutdown);
            connection.RunOnCurrentThread();
        }

        foreach (var worker in all)
        {
            worker.Stop();
        }

        foreach (var worker in all)
        {
            worker.Thread.Join(TimeSpan.FromSeconds(2));
        }
    }

    private sealed class Worker
    {
        private readonly ConnectionThreads _pool;
        private readonly SemaphoreSlim _handed = new(0);
        private FixSocketConnection? _next;

        public Worker(ConnectionThreads pool)
        {
            _pool = pool;
            Thread = new Thread(Loop) { IsBackground = true, Name = $"{pool._name}-connection" };
        }

        public Thread Thread { get; }

        /// <summary>The thread has run up to its first <see cref="Park"/> (under the pool's gate).</summary>
        public bool Arrived { get; set; }

        public void Hand(FixSocketConnection connection)
        {
            Volatile.Write(ref _next, connection);
            _handed.Release();
        }

        public void Stop() => _handed.Release();

        private void Loop()
        {
            var connection = _pool.Park(this);
            while (true)
            {
                if (connection is null)
                {
                    _pool.WakeStarterIfNeeded();
                    _handed.Wait();
                    connection = Interlocked.Exchange(ref _next, null);
                    if (connection is null)
                    {
                        return; // stopped
                    }
                }

                connection.RunOnCurrentThread();
                if (_pool._stopping)
                {
                    return;
                }

                connection = _pool.Park(this);
            }
        }
    }

    /// <summary>A worker parked: the starter may have spares to top up or waiting connections to serve.</summary>
    private void WakeStarterIfNeeded()
    {
        if (!_stopping && NeedsThreads())
        {
            _starterSignal.Set();
        }
    }
}
