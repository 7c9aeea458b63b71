using System.Buffers.Binary;
using System.Numerics;
using System.Runtime.CompilerServices;
using System.Runtime.InteropServices;
using System.Runtime.Intrinsics.X86;

namespace RapidFix.Fast.Codec;

/// <summary>
/// Stop-bit integers of any length: the value's 7-bit groups, most significant first, the stop bit on the last
/// byte. The length comes from a leading-zero count; up to 8 bytes are spread with one PDEP and stored as one word.
/// </summary>
internal static class StopBitWriter
{
    private const ulong Groups = 0x7F7F7F7F7F7F7F7FUL;

    /// <summary>Bytes an unsigned value takes: 1 to 10.</summary>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    public static int UnsignedLength(ulong value) => (64 - BitOperations.LeadingZeroCount(value | 1) + 6) / 7;

    /// <summary>Bytes a signed value takes (its significant bits and a sign bit, two's complement): 1 to 10.</summary>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    public static int SignedLength(long value) => (64 - BitOperations.LeadingZeroCount((ulong)(value ^ (value >> 63))) + 7) / 7;

    /// <summary>
    /// Writes the low <paramref name="length"/> groups of <paramref name="value"/> at <paramref name="offset"/>, or
    /// returns false when <paramref name="destination"/> has no room for them. With room for 8 bytes, up to 8 groups
    /// are written as one 8-byte store: the bytes after the integer are scratch that later fields overwrite.
    /// </summary>
    /// <remarks>
    /// <c>signed</c> says whether the groups past the 64 bits (of a 10-byte value) repeat the sign bit.
    /// </remarks>
    public static bool TryWrite(Span<byte> destination, int offset, ulong value, int length, bool signed)
    {
        if (length > destination.Length - offset)
        {
            return false;
        }

        ref byte at = ref Unsafe.Add(ref MemoryMarshal.GetReference(destination), offset);
        if (length <= 8 && destination.Length - offset >= 8 && Bmi2.X64.IsSupported && CompiledOps.FastPext)
        {
            // Group k (k = 0 least significant) into byte k, then the byte order reversed and shifted so that the
            // most significant written group comes first. PDEP is fast wherever PEXT is (CompiledOps.FastPext).
            ulong word = BinaryPrimitives.ReverseEndianness(Bmi2.X64.ParallelBitDeposit(value, Groups)) >> (8 * (8 - length));
            Unsafe.WriteUnaligned(ref at, word | (0x80UL << (8 * (length - 1))));
            return true;
        }

        for (int i = length - 1; i >= 0; i--)
        {
            Unsafe.Add(ref at, i) = (byte)(value & 0x7F);
            value = signed ? (ulong)((long)value >> 7) : value >> 7;
        }

        Unsafe.Add(ref at, length - 1) |= 0x80;
        return true;
    }
}
