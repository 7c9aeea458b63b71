using System.Globalization;

namespace RapidFix.TradeDriver.Measure;

/// <summary>
/// The kernel's page-cache writeback settings of the machine a run measured on (Linux, <c>/proc/sys/vm</c>), for the
/// report's header and <c>compare</c>: they decide the service's tail. The service acknowledges an input once its
/// journal is fsynced; PostgreSQL on the same disk leaves pages dirty that nothing of its own writes back (about 8-18
/// MB/s at 14,400 inputs/s), and with the kernel's defaults (background writeback at 10 % of memory, pages written
/// once 30 s old) they go out in one burst of 0.4-0.5 GB every 20-30 s, behind which the journal's fsyncs wait:
/// input-to-ack p99.99 190-290 ms. With <c>vm.dirty_background_bytes</c> at 32 MiB the kernel writes them as they
/// come: 40 ms (docs/measurement.md#the-hosts-writeback).
/// </summary>
internal static class HostWriteback
{
    /// <summary>One phrase: the four settings, or why they could not be read.</summary>
    public static string Describe()
    {
        if (!OperatingSystem.IsLinux())
        {
            return "not Linux: not read";
        }

        long? backgroundBytes = Read("dirty_background_bytes"), backgroundRatio = Read("dirty_background_ratio");
        long? expire = Read("dirty_expire_centisecs"), writeback = Read("dirty_writeback_centisecs");
        if (backgroundBytes is null || backgroundRatio is null || expire is null || writeback is null)
        {
            return "/proc/sys/vm not readable";
        }

        string background = backgroundBytes > 0
            ? string.Create(CultureInfo.InvariantCulture, $"background writeback from {backgroundBytes / (1 << 20):N0} MiB dirty (vm.dirty_background_bytes)")
            : string.Create(CultureInfo.InvariantCulture, $"background writeback from {backgroundRatio} % of memory dirty (vm.dirty_background_ratio)");
        return string.Create(CultureInfo.InvariantCulture,
            $"{background}, pages written once {expire / 100.0:0.#} s old, flusher every {writeback / 100.0:0.#} s");
    }

    private static long? Read(string name)
    {
        try
        {
            return long.TryParse(File.ReadAllText("/proc/sys/vm/" + name).Trim(), NumberStyles.Integer, CultureInfo.InvariantCulture, out long v) ? v : null;
        }
        catch (Exception e) when (e is IOException or UnauthorizedAccessException)
        {
            return null;
        }
    }
}
