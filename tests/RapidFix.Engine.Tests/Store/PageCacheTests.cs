using System.Runtime.InteropServices;
using System.Text;
using RapidFix.Engine.Configuration;
using RapidFix.Engine.Store;

namespace RapidFix.Engine.Tests.Store;

/// <summary>
/// The journals' page-cache limit (<see cref="JournalOptions.PageCacheLimitBytes"/>, StorePageCacheBytes): after an
/// fsync the written pages more than the limit behind the end leave the page cache, the last ones stay, and without
/// a limit (or under OsOnly) nothing is dropped. Residency is asked of the kernel (<c>mincore</c> over a mapping of
/// the file), so these run on Linux, on a file system with a page cache (not tmpfs); elsewhere they return early.
/// </summary>
public sealed class PageCacheTests
{
    private const int Records = 6000;                // 6,000 records of about 1 KB: about 6 MiB of journal
    private const long Limit = 2L << 20;

    // The kernel may keep a page the file system still holds right after its write (asking again a step later
    // drops most of those): a few percent stay at most in practice, against all of them without the limit.
    private const double DroppedStillCached = 0.25;

    [Fact]
    public void The_input_journal_drops_the_pages_behind_its_limit_and_keeps_the_last_ones()
    {
        using var dir = new TempDirectory();
        string path = dir.File("input.journal");
        if (!Applicable(dir.Path))
        {
            return;
        }

        long end;
        long dropped;
        using (var journal = JournalAppender.Open(AppenderOptions(path, FlushPolicy.GroupCommit, Limit), DateTime.UtcNow))
        {
            WriteRecords(journal);
            end = journal.WrittenPosition;
            dropped = journal.PageCacheDroppedBytes;

            // The drops come after the flusher's first batch, in what is its continuous phase: they allocate nothing
            // (the native call is bound when the journal is opened).
            Assert.Equal(0, journal.Counters.FlusherAllocatedBytes);
        }

        // Dropped in steps of at least a MiB, up to the limit behind the end: at least end - limit - step - a page.
        Assert.True(dropped >= end - Limit - GroupCommitFlusher.DropStepBytes - Environment.SystemPageSize, $"dropped {dropped} of {end}");
        Assert.True(dropped <= end - Limit, $"dropped {dropped}: more than the limit behind the end {end}");
        Assert.True(Resident(path, 0, dropped) < DroppedStillCached, $"{Resident(path, 0, dropped):P0} of the dropped range still cached; dropped {dropped} of {end}; map {Map(path, end)}");
        Assert.True(Resident(path, end - (Limit / 2), Limit / 2) > 0.95, $"only {Resident(path, end - (Limit / 2), Limit / 2):P0} of the last pages cached");
    }

    [Fact]
    public void Without_a_limit_or_under_os_only_nothing_is_dropped()
    {
        using var dir = new TempDirectory();
        if (!Applicable(dir.Path))
        {
            return;
        }

        foreach (var (policy, limit) in new[] { (FlushPolicy.GroupCommit, 0L), (FlushPolicy.OsOnly, Limit) })
        {
            string path = dir.File($"input-{policy}-{limit}.journal");
            long end;
            using (var journal = JournalAppender.Open(AppenderOptions(path, policy, limit), DateTime.UtcNow))
            {
                WriteRecords(journal);
                end = journal.WrittenPosition;
                Assert.Equal(0, journal.PageCacheDroppedBytes);
            }

            Assert.True(Resident(path, 0, end - Limit) > 0.95, $"{policy}, limit {limit}: only {Resident(path, 0, end - Limit):P0} of the file cached");
        }
    }

    [Fact]
    public void A_session_store_takes_its_limit_from_StorePageCacheBytes()
    {
        using var dir = new TempDirectory();
        if (!Applicable(dir.Path))
        {
            return;
        }

        string text = "[DEFAULT]\nConnectionType=acceptor\nSocketAcceptPort=1\nFileStorePath=" + dir.Path +
            "\n[SESSION]\nBeginString=FIX.4.4\nSenderCompID=S\nTargetCompID=T\nStorePageCacheBytes=" +
            Limit.ToString(System.Globalization.CultureInfo.InvariantCulture) +
            "\n[SESSION]\nBeginString=FIX.4.4\nSenderCompID=S\nTargetCompID=U\n";
        var file = SettingsFile.Parse(text);
        var options = MessageStoreFactory.JournalOptions(file.Sessions[0]);
        Assert.Equal(Limit, options.PageCacheLimitBytes);
        Assert.Equal(JournalOptions.DefaultPageCacheLimitBytes, MessageStoreFactory.JournalOptions(file.Sessions[1]).PageCacheLimitBytes);

        long end;
        long dropped;
        using (var store = JournalMessageStore.Open(options, DateTime.UtcNow))
        {
            var message = Encoding.ASCII.GetBytes(new string('m', 1000));
            for (int seq = 1; seq <= Records; seq++)
            {
                Assert.Equal(StoreWriteStatus.Ok, store.Append(seq, message));
                if (seq % 200 == 0)
                {
                    Assert.True(store.Flush());
                }
            }

            Assert.True(store.Flush());
            end = store.DurablePosition;
            dropped = store.PageCacheDroppedBytes;
            Assert.Equal(0, store.Counters.FlusherAllocatedBytes);
        }

        Assert.True(dropped >= end - Limit - GroupCommitFlusher.DropStepBytes - Environment.SystemPageSize, $"dropped {dropped} of {end}");
        Assert.True(Resident(options.FilePath, 0, dropped) < DroppedStillCached, $"{Resident(options.FilePath, 0, dropped):P0} of the dropped range still cached; dropped {dropped} end {end}; map {Map(options.FilePath, end)}");
    }

    private static JournalAppenderOptions AppenderOptions(string path, FlushPolicy policy, long limit) => new()
    {
        FilePath = path,
        FlushPolicy = policy,
        WindowBytes = 1 << 20,
        MaxMessageBytes = 2048,
        PageCacheLimitBytes = limit,
    };

    private static void WriteRecords(JournalAppender journal)
    {
        var message = Encoding.ASCII.GetBytes(new string('i', 1000));
        for (int i = 1; i <= Records; i++)
        {
            Assert.Equal(StoreWriteStatus.Ok, journal.Append(i, message));
            if (i % 200 == 0)
            {
                Assert.True(journal.WaitForDurable(journal.WrittenPosition, TimeSpan.FromSeconds(30)));
            }
        }

        Assert.True(journal.Flush());
    }

    // Linux, and the directory on a file system whose pages the kernel caches and can drop (not tmpfs or ramfs).
    private static bool Applicable(string directory)
    {
        if (!OperatingSystem.IsLinux() || !File.Exists("/proc/self/mounts"))
        {
            return false;
        }

        string type = string.Empty;
        int longest = -1;
        foreach (string line in File.ReadLines("/proc/self/mounts"))
        {
            string[] f = line.Split(' ');
            if (f.Length > 2 && (directory == f[1] || directory.StartsWith(f[1].TrimEnd('/') + "/", StringComparison.Ordinal)) && f[1].Length > longest)
            {
                longest = f[1].Length;
                type = f[2];
            }
        }

        return type is not ("tmpfs" or "ramfs" or "");
    }

    // The fraction of the pages of [offset, offset + length) of the file that are in the page cache (mincore over a
    // shared read-only mapping: mapping a file reads nothing, and mincore reports the cache for file mappings).
    private static double Resident(string path, long offset, long length)
    {
        long page = Environment.SystemPageSize;
        long first = offset / page * page;
        long bytes = offset + length - first;
        if (bytes <= 0)
        {
            return 0;
        }

        int fd = Open(path, 0);
        Assert.True(fd >= 0, $"open {path}");
        try
        {
            nint map = Mmap(0, (nuint)bytes, 1 /* PROT_READ */, 1 /* MAP_SHARED */, fd, first);
            Assert.True(map != -1, "mmap");
            try
            {
                var vector = new byte[(bytes + page - 1) / page];
                Assert.Equal(0, Mincore(map, (nuint)bytes, vector));
                return vector.Count(v => (v & 1) != 0) / (double)vector.Length;
            }
            finally
            {
                _ = Munmap(map, (nuint)bytes);
            }
        }
        finally
        {
            _ = Close(fd);
        }
    }

    // The file's residency in 256-KB steps ('.' none of it cached, '#' all, '+' some), for failure messages.
    private static string Map(string path, long end)
    {
        var sb = new StringBuilder();
        long page = Environment.SystemPageSize;
        for (long p = 0; p < end; p += 64 * page)
        {
            double r = Resident(path, p, Math.Min(64 * page, end - p));
            sb.Append(r == 0 ? '.' : r == 1 ? '#' : '+');
        }

        return sb.ToString();
    }

    [DllImport("libc", EntryPoint = "open")]
    private static extern int Open([MarshalAs(UnmanagedType.LPUTF8Str)] string path, int flags);

    [DllImport("libc", EntryPoint = "close")]
    private static extern int Close(int fd);

    [DllImport("libc", EntryPoint = "mmap")]
    private static extern nint Mmap(nint address, nuint length, int protection, int flags, int fd, long offset);

    [DllImport("libc", EntryPoint = "munmap")]
    private static extern int Munmap(nint address, nuint length);

    [DllImport("libc", EntryPoint = "mincore")]
    private static extern int Mincore(nint address, nuint length, byte[] vector);
}
