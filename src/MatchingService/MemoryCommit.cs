using System.Runtime.CompilerServices;

namespace RapidFix.MatchingService;

/// <summary>
/// Commits a pre-sized array at startup: the kernel gives a page of a new array memory only when it is first written,
/// so a buffer written as the run goes (the input ring, the answer queues) raises resident memory for as long as its
/// first pass lasts. Writing every page once (its default value, over the default it already holds) at startup reaches
/// resident memory before the continuous phase (docs/store.md "What else is pre-sized in the service").
/// </summary>
internal static class MemoryCommit
{
    private const int PageBytes = 4096;

    public static T[] Touch<T>(T[] array)
    {
        int step = Math.Max(1, PageBytes / Unsafe.SizeOf<T>());
        for (int i = 0; i < array.Length; i += step)
        {
            array[i] = default!;
        }

        if (array.Length > 0)
        {
            array[^1] = default!;
        }

        return array;
    }
}
