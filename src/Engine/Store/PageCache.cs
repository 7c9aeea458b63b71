using System.Runtime.InteropServices;
using Microsoft.Win32.SafeHandles;

namespace RapidFix.Engine.Store;

/// <summary>
/// Drops a journal's written and fsynced pages from the operating system's page cache (Linux,
/// <c>posix_fadvise(POSIX_FADV_DONTNEED)</c>). A journal is written once and read back only at recovery or for an
/// old resend, so its pages in the cache are memory taken for nothing; and every new page of a growing file is a
/// fresh page of memory, which on a virtual machine whose host reclaims the guest's free memory (free page
/// reporting) costs a fault on the host each: writing a fresh gigabyte measured 5.5-6.2 s of system time there,
/// against 0.3-0.4 s when the pages behind the writes were dropped and so reused (docs/store.md, Page cache).
/// </summary>
internal static partial class PageCache
{
    private const int PosixFadvNormal = 0;
    private const int PosixFadvDontNeed = 4;

    // Set by Bind once the native call has been made: Drop never binds it (nor throws) in the continuous phase.
    private static volatile bool s_bound;

    /// <summary>
    /// Binds the native call now (startup): its first call loads and resolves it, which allocates, and the first
    /// drop comes only once the journal has grown past its limit, in the continuous phase. The advice given is the
    /// default access pattern (<c>POSIX_FADV_NORMAL</c> over the whole file), which changes nothing. Where the call
    /// does not exist, <see cref="Drop"/> then answers false without trying it.
    /// </summary>
    public static void Bind(SafeFileHandle file)
    {
        if (s_bound || !OperatingSystem.IsLinux())
        {
            return;
        }

        try
        {
            _ = Fadvise((int)file.DangerousGetHandle(), 0, 0, PosixFadvNormal);
            s_bound = true;
        }
        catch (Exception e) when (e is DllNotFoundException or EntryPointNotFoundException)
        {
            // No such call here: Drop answers false and nothing is dropped.
        }
    }

    /// <summary>
    /// Asks the kernel to drop the cached pages of [<paramref name="offset"/>, <paramref name="offset"/> +
    /// <paramref name="length"/>) of <paramref name="file"/>; they must be clean (fsynced), or the kernel only starts
    /// writing them. False where the call is not bound (<see cref="Bind"/>: not Linux, or no such call) or the kernel
    /// refused it; nothing changes then.
    /// </summary>
    public static bool Drop(SafeFileHandle file, long offset, long length) =>
        s_bound && length > 0 && Fadvise((int)file.DangerousGetHandle(), offset, length, PosixFadvDontNeed) == 0;

    // posix_fadvise returns the error number itself (it does not set errno). off_t is 64 bits on the 64-bit
    // platforms .NET runs on.
    [LibraryImport("libc", EntryPoint = "posix_fadvise")]
    private static partial int Fadvise(int fd, long offset, long length, int advice);
}
