using System.IO.MemoryMappedFiles;
using Microsoft.Win32.SafeHandles;
using RapidFix.MatchingService;
using Slot = RapidFix.MatchingService.ServiceStatsPublisher.Slot;

namespace RapidFix.TradeDriver.Measure;

/// <summary>One reading of the service's stats file (<see cref="ServiceStatsPublisher"/>).</summary>
internal struct ServiceStats
{
    public long Timestamp;
    public long ApplicationReceived;
    public long Journalled;
    public long Refused;
    public long Matched;
    public long RingBacklogBytes;
    public long AnswersSent;
    public long AnswersQueued;
    public long Gen0Collections;
    public long Gen2Collections;
    public long AllocatedBytes;
    public bool Continuous;
    public long OpenTrades;
    public long TradesCleared;
    public long InputsRejected;
    public long TableFull;
}

/// <summary>
/// Reads the service's stats file from the measuring process: the mapping is opened once (startup), each
/// <see cref="TryRead"/> copies the slots under the seqlock without allocating. Also reads the service's resident
/// memory from /proc (Linux), through a handle opened once.
/// </summary>
internal sealed class ServiceStatsReader : IDisposable
{
    private readonly MemoryMappedFile _file;
    private readonly MemoryMappedViewAccessor _view;
    private readonly SafeFileHandle? _statm;
    private readonly byte[] _statmBuffer = new byte[128];
    private readonly long _pageBytes = Environment.SystemPageSize;

    private ServiceStatsReader(MemoryMappedFile file, MemoryMappedViewAccessor view, SafeFileHandle? statm)
    {
        _file = file;
        _view = view;
        _statm = statm;
    }

    /// <summary>The service's process id, as it wrote it.</summary>
    public long ProcessId => _view.ReadInt64(ServiceStatsPublisher.Offset(Slot.ProcessId));

    /// <summary>Opens the file once the service wrote it; null while it has not (yet).</summary>
    public static ServiceStatsReader? TryOpen(string path)
    {
        if (!File.Exists(path) || new FileInfo(path).Length < ServiceStatsPublisher.FileBytes)
        {
            return null;
        }

        var stream = new FileStream(path, FileMode.Open, FileAccess.Read, FileShare.ReadWrite | FileShare.Delete);
        var file = MemoryMappedFile.CreateFromFile(stream, null, 0, MemoryMappedFileAccess.Read, HandleInheritability.None, leaveOpen: false);
        var view = file.CreateViewAccessor(0, ServiceStatsPublisher.FileBytes, MemoryMappedFileAccess.Read);
        if (view.ReadInt64(ServiceStatsPublisher.Offset(Slot.Magic)) != ServiceStatsPublisher.Magic)
        {
            view.Dispose();
            file.Dispose();
            return null;
        }

        long pid = view.ReadInt64(ServiceStatsPublisher.Offset(Slot.ProcessId));
        string statm = $"/proc/{pid}/statm";
        var handle = OperatingSystem.IsLinux() && File.Exists(statm) ? File.OpenHandle(statm) : null;
        return new ServiceStatsReader(file, view, handle);
    }

    /// <summary>A consistent copy of the counters; false when the writer kept changing them under the reader.</summary>
    public bool TryRead(out ServiceStats stats)
    {
        stats = default;
        for (int attempt = 0; attempt < 100; attempt++)
        {
            long before = _view.ReadInt64(ServiceStatsPublisher.Offset(Slot.Version));
            if ((before & 1) != 0)
            {
                Thread.SpinWait(20);
                continue;
            }

            Thread.MemoryBarrier();
            stats.Timestamp = Read(Slot.Timestamp);
            stats.ApplicationReceived = Read(Slot.ApplicationReceived);
            stats.Journalled = Read(Slot.Journalled);
            stats.Refused = Read(Slot.Refused);
            stats.Matched = Read(Slot.Matched);
            stats.RingBacklogBytes = Read(Slot.RingBacklogBytes);
            stats.AnswersSent = Read(Slot.AnswersSent);
            stats.AnswersQueued = Read(Slot.AnswersQueued);
            stats.Gen0Collections = Read(Slot.Gen0Collections);
            stats.Gen2Collections = Read(Slot.Gen2Collections);
            stats.AllocatedBytes = Read(Slot.AllocatedBytes);
            stats.Continuous = Read(Slot.Continuous) != 0;
            stats.OpenTrades = Read(Slot.OpenTrades);
            stats.TradesCleared = Read(Slot.TradesCleared);
            stats.InputsRejected = Read(Slot.InputsRejected);
            stats.TableFull = Read(Slot.TableFull);
            Thread.MemoryBarrier();
            if (_view.ReadInt64(ServiceStatsPublisher.Offset(Slot.Version)) == before)
            {
                return true;
            }
        }

        return false;
    }

    /// <summary>The service's resident memory in bytes (/proc/&lt;pid&gt;/statm), 0 when it cannot be read.</summary>
    public long ResidentBytes()
    {
        if (_statm is null)
        {
            return 0;
        }

        try
        {
            int n = RandomAccess.Read(_statm, _statmBuffer, 0);
            // "size resident shared ...": the second number, in pages.
            int i = 0;
            while (i < n && _statmBuffer[i] != (byte)' ')
            {
                i++;
            }

            long pages = 0;
            for (i++; i < n && _statmBuffer[i] >= (byte)'0' && _statmBuffer[i] <= (byte)'9'; i++)
            {
                pages = (pages * 10) + (_statmBuffer[i] - '0');
            }

            return pages * _pageBytes;
        }
        catch (IOException)
        {
            return 0; // the process ended
        }
    }

    public void Dispose()
    {
        _statm?.Dispose();
        _view.Dispose();
        _file.Dispose();
    }

    private long Read(Slot slot) => _view.ReadInt64(ServiceStatsPublisher.Offset(slot));
}
