namespace RapidFix.TradeDriver.Measure;

/// <summary>
/// A thread that runs its work, says it is done, and then stays parked until <see cref="Release"/>: its exit (the
/// runtime's clean-up of a dead thread, on the exiting thread and the finalizer's) then happens after the measured
/// phase, not inside it. A clean-clone CI run counted 64 bytes on no thread of the driver's in a window in which the
/// sending thread and three idle thread-pool workers ended (the driver's csproj keeps those alive).
/// Waits with <see cref="Monitor.Wait(object)"/> on a lock made at construction: no allocation, and no loop that
/// spins in the caller (a loop of a thousand short sleeps in the run's method had the test host's JIT replace it on
/// the stack, on-stack replacement, and count 32 bytes on the run's thread under load).
/// </summary>
internal sealed class ParkedThread
{
    private readonly Action _work;
    private readonly Thread _thread;
    private readonly object _gate = new();
    private bool _done;
    private bool _released;

    public ParkedThread(Action work, string name, ThreadPriority priority)
    {
        _work = work;
        _thread = new Thread(Run) { Name = name, Priority = priority, IsBackground = true }; // never holds the process open
        _thread.Start();
    }

    /// <summary>Whether the work has returned (the thread is parked or gone).</summary>
    public bool Done => Volatile.Read(ref _done);

    /// <summary>Waits until the work has returned or <paramref name="milliseconds"/> have passed; true when it has.</summary>
    public bool WaitDone(int milliseconds = Timeout.Infinite)
    {
        lock (_gate)
        {
            if (!_done)
            {
                Monitor.Wait(_gate, milliseconds);
            }

            return _done;
        }
    }

    /// <summary>Lets the parked thread end and waits until it has.</summary>
    public void Release()
    {
        lock (_gate)
        {
            _released = true;
            Monitor.PulseAll(_gate);
        }

        _thread.Join();
    }

    private void Run()
    {
        try
        {
            _work();
        }
        finally
        {
            lock (_gate)
            {
                Volatile.Write(ref _done, true);
                Monitor.PulseAll(_gate);
                while (!_released)
                {
                    Monitor.Wait(_gate);
                }
            }
        }
    }
}
