using System.Globalization;
using RapidFix.MatchingService;

namespace RapidFix.TradeDriver.Measure;

/// <summary>
/// How big the service's input journal and session stores must be for a run, and whether this machine can hold
/// them. The input journal keeps only a write window in memory (<see cref="JournalBytes"/>, committed at the
/// service's startup, the same for a run of any length); its file grows with the inputs, so the disk must hold
/// inputs × <see cref="BytesPerInput"/>. The session stores keep a write window of their journals too
/// (StoreWindowBytes, committed at startup with StoreCommitMemory=Y: <see cref="SessionStoreMemoryBytes"/> each, the
/// same for a run of any length); their files hold every answer, on disk. Sized at startup from rate × duration; a
/// run that cannot fit is refused before anything starts, never discovered as refused inputs an hour in.
/// </summary>
internal readonly record struct JournalSizing(long Inputs, long JournalBytes, long SessionStoreBytes, int Participants, long DriverBytes = 0)
{
    /// <summary>
    /// The driver's process apart from its set: the runtime, the four initiators (fixed stores: PersistMessages=N),
    /// the latency histograms, the sampler's arrays. Measured: about 150 MiB resident at 30,000 messages/s
    /// (docs/performance.md); rounded up.
    /// </summary>
    public const long DriverBaseBytes = 256L << 20;

    /// <summary>
    /// Journal bytes one generated input takes, record framing included, with headroom: the generated set's inputs
    /// average about 770 bytes (1 GiB held about 1.4 million of them).
    /// </summary>
    public const long BytesPerInput = 800;

    /// <summary>Bytes of one answer in a session store, as the service's settings have always sized them.</summary>
    public const long BytesPerAnswer = 600;

    /// <summary>
    /// Memory of one session store, whatever the run's length: its 16 MiB write window (StoreWindowBytes' default),
    /// its index of the last window/64 messages (4 MiB), its read buffer (1 MiB) and checkpoints (0.75 MiB); rounded up.
    /// </summary>
    public const long SessionStoreMemoryBytes = 22L << 20;

    /// <summary>The largest write window the journal can have: one array, rounded down to a MiB.</summary>
    public static readonly long MaxJournalBytes = Array.MaxLength & ~((1L << 20) - 1);

    /// <summary>The service's default write window (64 MiB): at 800 bytes an input, about 84,000 inputs not yet on disk.</summary>
    public const long DefaultJournalBytes = 64L << 20;

    private const long MinJournalBytes = 1L << 20;

    /// <summary>
    /// The sizes for <paramref name="inputs"/> inputs: the input journal's write window
    /// <paramref name="requestedJournalBytes"/> when given (0: the service's default, whatever the run's length).
    /// </summary>
    /// <param name="rate">Messages per second: sizes the driver's streamed set and intended-time window (<see cref="TradeSet.BytesFor"/>), not the run's length.</param>
    public static JournalSizing For(long inputs, int participants, long requestedJournalBytes, double rate = 10_000)
    {
        long journal = requestedJournalBytes > 0 ? requestedJournalBytes : DefaultJournalBytes;
        // Each participant's store is sized for every input (as Verifier.ServiceSettings does): the answers of one
        // participant are fewer, but the count is cheap and an undersized store would refuse answers mid-run.
        // The bytes are the file's (the store keeps only a window in memory), so no longer capped by an array's size.
        long session = Math.Max(100_000, inputs + 1000) * BytesPerAnswer;
        return new JournalSizing(inputs, journal, session, participants, DriverBaseBytes + TradeSet.BytesFor(rate));
    }

    /// <summary>Bytes the input journal's file reaches by the end of the run.</summary>
    public long JournalFileBytes => (Inputs + 1000) * BytesPerInput;

    /// <summary>
    /// Bytes the session stores of all participants together write to disk an input, with headroom: measured 401
    /// (a 40,000/s step: 210 MB of stores for 524,000 inputs, acks and CLS; the input journal took 360 an input).
    /// Each store's file may grow to <see cref="SessionStoreBytes"/> (a cap for one participant, not what it writes):
    /// the disk check summed those caps, four times what a run writes, and refused a 300-s confirmation at 40,000/s
    /// (37 GB asked, about 9 written).
    /// </summary>
    public const long StoreBytesPerInput = 600;

    /// <summary>Bytes the session stores write by the end of the run (all participants).</summary>
    public long SessionStoresDiskBytes => (Inputs + 1000) * StoreBytesPerInput;

    /// <summary>Bytes the run needs on disk: the journal file and what the session stores write.</summary>
    public long DiskBytes => JournalFileBytes + SessionStoresDiskBytes;

    /// <summary>The largest open-trade table a run asks for (about 3 GiB of the matcher's tables).</summary>
    public const int MaxOpenTrades = 1 << 20;

    /// <summary>
    /// Bytes the matcher's tables take for each open trade they are sized for: its record (about 180), eight message
    /// rows (about 230 each), their ID index entries, a quarter of a kept cleared trade's IDs, the trade-key and
    /// account buckets. The index and bucket tables round up to powers of two, so what a trade costs steps with the
    /// size: the service's resident memory grew 2,659 bytes a trade from 65,536 to 262,144 open trades, and 2,664 to
    /// 2,981 from 65,536 to 200,000, 400,000, 600,000, 800,000 and 1,048,576 (2,484-2,811 before the 4-byte index
    /// entries, which 2,688 here did not cover everywhere); 3,072 with headroom.
    /// </summary>
    public const long MatcherBytesPerOpenTrade = 3_072;

    /// <summary>
    /// Open trades the service's matcher is sized for (<c>--open-trades</c>): a quarter of the run's trades, at least
    /// the service's default and at most <see cref="MaxOpenTrades"/>. A trade one of whose messages was refused for
    /// back-pressure never completes (the open-loop driver does not resend a refused message, as a participant
    /// would) and holds its row until it expires; while the input ring is full, refusals come between admitted
    /// inputs, so nearly every trade of that time is left open: 17,000-40,000 trades after a 2-s stall at
    /// 140,000/s, 102,000 and more than 107,749 (the table then full) after a 4-s one (tools/stall-recovery.py,
    /// docs/performance.md). At the service's default a stall of a few seconds near capacity filled the table, and
    /// every later trade was answered TABLE-FULL while the load lasted; a quarter holds the trades of 15 s of a 60-s
    /// step.
    /// </summary>
    public int OpenTrades => (int)Math.Clamp(Inputs / 7 / 4, ServiceOptions.DefaultOpenTrades, MaxOpenTrades);

    /// <summary>Bytes of the matcher's tables for <see cref="OpenTrades"/>.</summary>
    public long MatcherBytes => OpenTrades * MatcherBytesPerOpenTrade;

    /// <summary>
    /// Bytes of memory the run pins: the service's journal window and session stores' windows (committed at its
    /// startup), its matcher's tables (<see cref="MatcherBytes"/>) and the driver (<see cref="DriverBytes"/>: its
    /// streamed set's ring and intended-time window, sized by the rate, and its runtime).
    /// </summary>
    public long MemoryBytes => JournalBytes + (Participants * SessionStoreMemoryBytes) + MatcherBytes + DriverBytes;

    /// <summary>
    /// Why the run cannot go on this machine, or null when it can: a window outside what one array holds, more
    /// inputs than the service counts, a disk or memory that cannot hold the run. <paramref name="freeDisk"/> and
    /// <paramref name="availableMemory"/> are what the machine has (-1: unknown, not checked).
    /// </summary>
    public string? Refusal(long freeDisk, long availableMemory)
    {
        if (JournalBytes < MinJournalBytes || JournalBytes > MaxJournalBytes)
        {
            return string.Create(CultureInfo.InvariantCulture,
                $"--journal-bytes {JournalBytes} is outside what the input journal's write window can be ({MinJournalBytes} to {MaxJournalBytes} bytes, one array)");
        }

        if (Inputs + 1000 > int.MaxValue)
        {
            return string.Create(CultureInfo.InvariantCulture, $"a run of {Inputs:N0} inputs is more than the service's --max-inputs can count: lower --rate or the duration");
        }

        if (freeDisk >= 0 && DiskBytes > freeDisk)
        {
            return string.Create(CultureInfo.InvariantCulture,
                $"the run needs {DiskBytes / (1 << 20):N0} MiB on disk (input journal {JournalFileBytes / (1 << 20):N0} MiB, session stores {SessionStoresDiskBytes / (1 << 20):N0} MiB) and the disk has {freeDisk / (1 << 20):N0} MiB free: free some, use --out on a larger disk, or lower --rate or the duration");
        }

        if (availableMemory >= 0 && MemoryBytes > availableMemory)
        {
            return string.Create(CultureInfo.InvariantCulture,
                $"the run pins about {MemoryBytes / (1 << 20):N0} MiB of memory (input journal window {JournalBytes / (1 << 20):N0} MiB, session stores {Participants * SessionStoreMemoryBytes / (1 << 20):N0} MiB, the matcher's tables {MatcherBytes / (1 << 20):N0} MiB, the driver {DriverBytes / (1 << 20):N0} MiB) and the machine has {availableMemory / (1 << 20):N0} MiB available: lower --rate or the duration");
        }

        return null;
    }

    /// <summary>
    /// Bytes PostgreSQL's throwaway cluster takes an input when the persister runs beside the run, with headroom:
    /// measured 930-1,030 (tables, indexes and WAL; 710 MiB every 800,000 inputs in the middle of a 300-s step at
    /// 40,000/s, 14.3 GB for its 12.1 million inputs once the persister had caught up at its end). Not in the
    /// check before: a run that fitted its journal and stores could fill the disk with the database halfway through.
    /// </summary>
    public const long DatabaseBytesPerInput = 1_200;

    /// <summary>Bytes the persister's database reaches by the end of the run.</summary>
    public long DatabaseDiskBytes => (Inputs + 1000) * DatabaseBytesPerInput;

    /// <summary>
    /// Why the database beside the run cannot fit, or null: <paramref name="freeDisk"/> is the free space where the
    /// cluster lives (the temporary folder); <paramref name="sameDiskAsRun"/> when the run's files share that disk.
    /// </summary>
    public string? DatabaseRefusal(long freeDisk, bool sameDiskAsRun, string where)
    {
        long need = DatabaseDiskBytes + (sameDiskAsRun ? DiskBytes : 0);
        if (freeDisk < 0 || need <= freeDisk)
        {
            return null;
        }

        return string.Create(CultureInfo.InvariantCulture,
            $"the run needs {need / (1 << 20):N0} MiB on the disk of {where} (PostgreSQL's database {DatabaseDiskBytes / (1 << 20):N0} MiB{(sameDiskAsRun ? $", the input journal and session stores {DiskBytes / (1 << 20):N0} MiB" : "")}) and it has {freeDisk / (1 << 20):N0} MiB free: free some, point TMPDIR at a larger disk, give --no-persister, or lower --rate or the duration");
    }

    /// <summary>Checks the disk of PostgreSQL's throwaway cluster for the run (the persister runs); throws the refusal.</summary>
    public void CheckDatabase(string directory)
    {
        string temp = Path.GetTempPath();
        try
        {
            var db = new DriveInfo(temp);
            var run = new DriveInfo(Path.GetFullPath(directory));
            // One file system when both report the same size (a path's DriveInfo on Linux is statvfs of that path).
            bool same = db.TotalSize == run.TotalSize;
            if (DatabaseRefusal(db.AvailableFreeSpace, same, temp) is { } why)
            {
                throw new InvalidDataException(why);
            }
        }
        catch (Exception e) when (e is IOException or ArgumentException or UnauthorizedAccessException)
        {
            // not measurable here: not checked
        }
    }

    /// <summary>Checks the machine for the run's files in <paramref name="directory"/>; throws the refusal (exit code 2).</summary>
    public void Check(string directory)
    {
        Directory.CreateDirectory(directory);
        long free;
        try
        {
            free = new DriveInfo(Path.GetFullPath(directory)).AvailableFreeSpace;
        }
        catch (Exception e) when (e is IOException or ArgumentException or UnauthorizedAccessException)
        {
            free = -1;
        }

        if (Refusal(free, AvailableMemory()) is { } why)
        {
            throw new InvalidDataException(why);
        }
    }

    /// <summary>MemAvailable from /proc/meminfo (Linux), or -1 when unknown.</summary>
    public static long AvailableMemory()
    {
        try
        {
            foreach (var line in File.ReadLines("/proc/meminfo"))
            {
                if (line.StartsWith("MemAvailable:", StringComparison.Ordinal))
                {
                    var parts = line.Split(' ', StringSplitOptions.RemoveEmptyEntries);
                    return long.Parse(parts[1], CultureInfo.InvariantCulture) * 1024;
                }
            }
        }
        catch (Exception e) when (e is IOException or UnauthorizedAccessException or FormatException)
        {
            // not Linux, or not readable: not checked
        }

        return -1;
    }
}
