using System.Runtime.CompilerServices;

namespace RapidFix.Fast.Codec;

/// <summary>Copies of the few bytes FAST strings usually have, without the call into the general memmove.</summary>
internal static class SmallCopy
{
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    public static void Copy(ReadOnlySpan<byte> source, Span<byte> destination)
    {
        if (source.Length <= 8 && source.Length <= destination.Length)
        {
            for (int i = 0; i < source.Length; i++)
            {
                destination[i] = source[i];
            }
        }
        else
        {
            source.CopyTo(destination);
        }
    }
}
