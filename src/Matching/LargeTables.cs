using System.Runtime.CompilerServices;
using System.Runtime.InteropServices;

namespace RapidFix.Matching;

/// <summary>
/// Allocates the matcher's big tables (records, index entries, buckets) at startup, on 2 MB pages where the
/// operating system gives them: with a million open trades the index lookups land on random pages of tens of
/// megabytes, and on 4 KB pages nearly each of them also misses the TLB (a page walk, two-dimensional under a
/// hypervisor). A table of at least <see cref="MinimumBytes"/> is a pinned array (never moved, so its pages stay
/// put) whose whole 2 MB-aligned range is advised <c>MADV_HUGEPAGE</c> before it is first written; Linux with
/// transparent huge pages in <c>madvise</c> or <c>always</c> mode then backs it with huge pages. The advice is
/// only a hint: where it is refused, or elsewhere than on Linux, the table is an ordinary array and works the
/// same. The contents are always zeroed here (the caller then fills them), so nothing depends on the hint.
/// </summary>
internal static partial class LargeTables
{
    /// <summary>Smaller tables are ordinary arrays (a huge page would mostly be empty).</summary>
    public const long MinimumBytes = 4L << 20;

    private const long HugePage = 2L << 20;
    private const int MadvHugePage = 14;

    /// <summary>Whether tables are advised onto huge pages (on by default; off to measure the difference).</summary>
    internal static bool HugePages { get; set; } = true;

    /// <summary>How many tables were advised and the kernel accepted the advice (for tests and measurements).</summary>
    internal static int Advised => _advised;

    private static int _advised;

    /// <summary>A zeroed array of <paramref name="length"/> elements, advised onto huge pages when it is large.</summary>
    public static unsafe T[] Allocate<T>(int length)
        where T : unmanaged
    {
        long bytes = (long)length * sizeof(T);
        if (!HugePages || bytes < MinimumBytes || !OperatingSystem.IsLinux())
        {
            return new T[length];
        }

        var array = GC.AllocateUninitializedArray<T>(length, pinned: true);
        long start = (long)Unsafe.AsPointer(ref MemoryMarshal.GetArrayDataReference(array));
        long first = (start + HugePage - 1) & ~(HugePage - 1);
        long last = (start + bytes) & ~(HugePage - 1);
        try
        {
            if (last > first && Madvise((nint)first, (nuint)(last - first), MadvHugePage) == 0)
            {
                Interlocked.Increment(ref _advised);
            }
        }
        catch (Exception e) when (e is DllNotFoundException or EntryPointNotFoundException)
        {
            // No libc madvise here: the table stays on ordinary pages.
        }

        // First written after the advice (and zeroed whatever the allocator handed over).
        Array.Clear(array);
        return array;
    }

    [LibraryImport("libc", EntryPoint = "madvise")]
    private static partial int Madvise(nint address, nuint length, int advice);
}
