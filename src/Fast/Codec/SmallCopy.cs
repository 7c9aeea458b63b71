using System.Runtime.CompilerServices;
using System.Runtime.InteropServices;
using System.Runtime.Intrinsics;

namespace RapidFix.Fast.Codec;

/// <summary>Copies and moves of the few bytes FAST strings and segments usually have, without the general memmove.</summary>
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

    /// <summary>
    /// Moves <paramref name="span"/>'s bytes after the first <paramref name="gap"/> to its start (the fields behind
    /// a presence map that came out shorter than reserved). Up to 64 bytes are loaded whole before any is stored,
    /// which is safe for the overlap; <see cref="Span{T}.CopyTo"/> sends overlapping ranges to the C library's
    /// memmove.
    /// </summary>
    public static void MoveDown(Span<byte> span, int gap)
    {
        int length = span.Length - gap;
        ref byte dst = ref MemoryMarshal.GetReference(span);
        ref byte src = ref Unsafe.Add(ref dst, gap);
        if (length >= 32 && length <= 64)
        {
            var head = Vector256.LoadUnsafe(ref src);
            var tail = Vector256.LoadUnsafe(ref src, (nuint)(length - 32));
            head.StoreUnsafe(ref dst);
            tail.StoreUnsafe(ref dst, (nuint)(length - 32));
        }
        else if (length >= 16 && length < 32)
        {
            var head = Vector128.LoadUnsafe(ref src);
            var tail = Vector128.LoadUnsafe(ref src, (nuint)(length - 16));
            head.StoreUnsafe(ref dst);
            tail.StoreUnsafe(ref dst, (nuint)(length - 16));
        }
        else if (length >= 8 && length < 16)
        {
            ulong head = Unsafe.ReadUnaligned<ulong>(ref src);
            ulong tail = Unsafe.ReadUnaligned<ulong>(ref Unsafe.Add(ref src, length - 8));
            Unsafe.WriteUnaligned(ref dst, head);
            Unsafe.WriteUnaligned(ref Unsafe.Add(ref dst, length - 8), tail);
        }
        else if (length < 8)
        {
            // The destination is before the source: a forward byte loop never reads a byte it has overwritten.
            for (int i = 0; i < length; i++)
            {
                Unsafe.Add(ref dst, i) = Unsafe.Add(ref src, i);
            }
        }
        else
        {
            span.Slice(gap).CopyTo(span);
        }
    }
}
