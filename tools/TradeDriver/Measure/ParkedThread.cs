namespace RapidFix.TradeDriver.Measure;

/// <summary>
/// A thread that runs its work, says it is done, and then stays parked until <see cref="Release"/>: its exit (the
/// runtime's clean-up of a dead thread, on the exiting thread and the finalizer's) then happens after the measured
/// phase, not inside it. A clean-clone CI run counted 64 bytes on no thread of the driver's in a window in which the
/// sending thread and three idle thread-pool workers ended (the driver's csproj keeps those alive). Polls flags with
/// <see cref="Thread.Sleep(int)"/>: a wait handle's first wait creates its lock object, an allocation in the window.
/// </summary>
internal sealed class ParkedThread
{
    private readonly Action _work;
    private readonly Thread _thread;
    private volatile bool _done;
    private volatile bool _released;

    public ParkedThread(Action work, string name, ThreadPriority priority)
    {
        _work = work;
        _thread = new Thread(Run) { Name = name, Priority = priority, IsBackground = true }; // never holds the process open
        _thread.Start();
    }

    /// <summary>Whether the work has returned (the thread is parked or gone).</summary>
    public bool Done => _done;

    /// <summary>Lets the parked thread end and waits until it has.</summary>
    public void Release()
    {
        _released = true;
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
            _done = true;
            while (!_released)
            {
                Thread.Sleep(5);
            }
        }
    }
}
