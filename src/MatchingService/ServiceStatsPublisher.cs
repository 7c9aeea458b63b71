using System.Diagnostics;
using System.IO.MemoryMappedFiles;

namespace RapidFix.MatchingService;

/// <summary>
/// Publishes the service's queue counters into a small memory-mapped file for a measuring process
/// (tools/TradeDriver's operational analysis, docs/measurement.md): a thread started at startup copies the counters
/// into the mapping every <see cref="Interval"/>, allocation-free, so that the service stays zero-GC while it is
/// watched. Enabled by the environment variable <see cref="EnvironmentVariable"/> (the file's path): the service's
/// command line stays as it is, and a service nobody watches runs no extra thread.
/// </summary>
/// <remarks>
/// Layout: 64-bit little-endian slots (<see cref="Slot"/>). The writer bumps <see cref="Slot.Version"/> to an odd value,
/// writes the counters, then bumps it to the next even value; a reader retries while the version is odd or changed
/// under it (a seqlock: no lock shared between processes).
/// </remarks>
public sealed class ServiceStatsPublisher : IDisposable
{
    /// <summary>The environment variable that names the stats file.</summary>
    public const string EnvironmentVariable = "RAPIDFIX_SERVICE_STATS";

    /// <summary>The first slot's value: identifies the file and its layout.</summary>
    public const long Magic = 0x3153_5453_5846_5052; // "RPFXSTS1"

    /// <summary>Bytes of the file.</summary>
    public const int FileBytes = 4096;

    /// <summary>How often the counters are copied.</summary>
    public static readonly TimeSpan Interval = TimeSpan.FromMilliseconds(10);

    private readonly MatchingServer _server;
    private readonly MemoryMappedFile _file;
    private readonly MemoryMappedViewAccessor _view;
    private readonly Thread _thread;
    private volatile bool _stop;
    private bool _running;

    /// <summary>The stats file's slots, in order.</summary>
    public enum Slot
    {
        /// <summary><see cref="Magic"/>.</summary>
        Magic,

        /// <summary>The seqlock's version: odd while a write is under way.</summary>
        Version,

        /// <summary>The service's process id.</summary>
        ProcessId,

        /// <summary><see cref="Stopwatch.GetTimestamp"/> of the copy (a monotonic clock every process on the machine shares).</summary>
        Timestamp,

        /// <summary>Application messages the participants' sessions received.</summary>
        ApplicationReceived,

        /// <summary>Inputs written to the input journal (and put on the matcher's ring).</summary>
        Journalled,

        /// <summary>Inputs refused for back-pressure (ring or journal full).</summary>
        Refused,

        /// <summary>Inputs the matcher thread processed.</summary>
        Matched,

        /// <summary>Bytes waiting on the matcher's input ring.</summary>
        RingBacklogBytes,

        /// <summary>Answers handed to the participants' sessions.</summary>
        AnswersSent,

        /// <summary>Answers waiting for a participant that is not logged on.</summary>
        AnswersQueued,

        /// <summary>Messages the sessions sent (answers, heartbeats).</summary>
        MessagesSent,

        /// <summary>Garbage collections of generation 0 (every collection counts there).</summary>
        Gen0Collections,

        /// <summary>Garbage collections of generation 2.</summary>
        Gen2Collections,

        /// <summary>Bytes the process allocated (imprecise: the runtime's cheap counter).</summary>
        AllocatedBytes,

        /// <summary>1 once the continuous phase began.</summary>
        Continuous,

        /// <summary>
        /// Written by the measuring process (<see cref="RequestStop"/>), never by the service: non-zero asks the service
        /// to stop as SIGTERM does, without a signal (the runtime's dispatch of a signal allocates, inside the phase).
        /// </summary>
        StopRequested,

        /// <summary>Trades open in the matcher: incomplete, waiting for their messages or for expiry (its table holds <see cref="ServiceOptions.OpenTrades"/>).</summary>
        OpenTrades,

        /// <summary>Trades the matcher cleared (a CLS each).</summary>
        TradesCleared,

        /// <summary>Inputs the matcher answered with an exception or a reject (TABLE-FULL ones included).</summary>
        InputsRejected,

        /// <summary>Inputs answered TABLE-FULL: the open-trade table was full (a trade that never completes holds its row until it expires).</summary>
        TableFull,

        /// <summary>The number of slots.</summary>
        Count,
    }

    private ServiceStatsPublisher(MatchingServer server, MemoryMappedFile file, MemoryMappedViewAccessor view)
    {
        _server = server;
        _file = file;
        _view = view;
        _thread = new Thread(Run) { IsBackground = true, Name = "service-stats" };
    }

    /// <summary>
    /// Starts publishing when <see cref="EnvironmentVariable"/> names a file (startup: the file is created and the
    /// thread started here); null when it does not.
    /// </summary>
    public static ServiceStatsPublisher? FromEnvironment(MatchingServer server) =>
        Environment.GetEnvironmentVariable(EnvironmentVariable) is { Length: > 0 } path ? Start(server, path) : null;

    /// <summary>Creates (or overwrites) the stats file at <paramref name="path"/> and starts the publishing thread.</summary>
    public static ServiceStatsPublisher Start(MatchingServer server, string path)
    {
        ArgumentNullException.ThrowIfNull(server);
        using (var create = new FileStream(path, FileMode.Create, FileAccess.ReadWrite, FileShare.ReadWrite))
        {
            create.SetLength(FileBytes);
        }

        var stream = new FileStream(path, FileMode.Open, FileAccess.ReadWrite, FileShare.ReadWrite | FileShare.Delete);
        var file = MemoryMappedFile.CreateFromFile(stream, null, FileBytes, MemoryMappedFileAccess.ReadWrite, HandleInheritability.None, leaveOpen: false);
        var view = file.CreateViewAccessor(0, FileBytes, MemoryMappedFileAccess.ReadWrite);
        var publisher = new ServiceStatsPublisher(server, file, view);
        view.Write(Offset(Slot.ProcessId), (long)Environment.ProcessId);
        publisher.Publish();
        view.Write(Offset(Slot.Magic), Magic);
        publisher._thread.Start();
        // The thread's first steps (its start-up inside the runtime, the first sleep) allocate: they must happen
        // here, in startup, not after the continuous phase began.
        while (!Volatile.Read(ref publisher._running))
        {
            Thread.Sleep(1);
        }

        return publisher;
    }

    /// <summary>True once a measuring process asked the service to stop (<see cref="RequestStop"/>); allocation-free.</summary>
    public bool StopRequested
    {
        // Optimized at its first call (startup): the main thread polls it ten times a second, which would tier it up
        // inside the phase.
        [System.Runtime.CompilerServices.MethodImpl(System.Runtime.CompilerServices.MethodImplOptions.AggressiveOptimization)]
        get => _view.ReadInt64(Offset(Slot.StopRequested)) != 0;
    }

    /// <summary>Asks the service that publishes into the stats file at <paramref name="path"/> to stop (its main loop polls it).</summary>
    public static void RequestStop(string path)
    {
        var stream = new FileStream(path, FileMode.Open, FileAccess.ReadWrite, FileShare.ReadWrite | FileShare.Delete);
        using var file = MemoryMappedFile.CreateFromFile(stream, null, FileBytes, MemoryMappedFileAccess.ReadWrite, HandleInheritability.None, leaveOpen: false);
        using var view = file.CreateViewAccessor(0, FileBytes, MemoryMappedFileAccess.ReadWrite);
        view.Write(Offset(Slot.StopRequested), 1L);
        view.Flush();
    }

    /// <summary>The byte offset of a slot.</summary>
    public static long Offset(Slot slot) => (long)slot * sizeof(long);

    public void Dispose()
    {
        _stop = true;
        _thread.Join();
        _view.Dispose();
        _file.Dispose();
    }

    private void Run()
    {
        Thread.Sleep(Interval);
        Publish();
        Volatile.Write(ref _running, true);
        while (!_stop)
        {
            Thread.Sleep(Interval);
            Publish();
        }
    }

    // Reads every counter without allocating: the server's counter snapshot is a struct, the sessions are indexed.
    internal void Publish()
    {
        var c = _server.Counters;
        long received = 0, sent = 0;
        var sessions = _server.Host.Sessions;
        for (int i = 0; i < sessions.Count; i++) // not foreach: the list's enumerator would be boxed
        {
            var s = sessions[i].Counters;
            received += s.ApplicationMessagesReceived;
            sent += s.MessagesSent;
        }

        long version = _view.ReadInt64(Offset(Slot.Version));
        _view.Write(Offset(Slot.Version), version | 1);
        Thread.MemoryBarrier();
        _view.Write(Offset(Slot.Timestamp), Stopwatch.GetTimestamp());
        _view.Write(Offset(Slot.ApplicationReceived), received);
        _view.Write(Offset(Slot.Journalled), c.JournalledInputs);
        _view.Write(Offset(Slot.Refused), c.InputsRefused);
        _view.Write(Offset(Slot.Matched), c.InputsMatched);
        _view.Write(Offset(Slot.RingBacklogBytes), c.BacklogBytes);
        _view.Write(Offset(Slot.AnswersSent), c.AnswersSent);
        _view.Write(Offset(Slot.AnswersQueued), c.AnswersQueued);
        _view.Write(Offset(Slot.MessagesSent), sent);
        _view.Write(Offset(Slot.Gen0Collections), (long)GC.CollectionCount(0));
        _view.Write(Offset(Slot.Gen2Collections), (long)GC.CollectionCount(2));
        _view.Write(Offset(Slot.AllocatedBytes), GC.GetTotalAllocatedBytes(precise: false));
        _view.Write(Offset(Slot.Continuous), _server.Host.Phases.Phase == RapidFix.Pools.Phases.EnginePhase.Continuous ? 1L : 0L);
        // The matcher thread's own counters, read while it runs: each a whole 64-bit value, not one moment's set.
        var m = _server.MatcherCounters;
        _view.Write(Offset(Slot.OpenTrades), (long)_server.OpenTrades);
        _view.Write(Offset(Slot.TradesCleared), m.Cleared);
        _view.Write(Offset(Slot.InputsRejected), m.Rejected);
        _view.Write(Offset(Slot.TableFull), m.TableFull);
        Thread.MemoryBarrier();
        _view.Write(Offset(Slot.Version), (version | 1) + 1);
    }
}
