using System.Runtime.CompilerServices;
using System.Runtime.InteropServices;
using System.Runtime.Intrinsics;
using System.Runtime.Intrinsics.X86;

namespace RapidFix.Engine.Codec;

/// <summary>The FIX CheckSum: the sum of every byte before "10=", modulo 256.</summary>
public static class FixChecksum
{
    /// <summary>Sum of <paramref name="bytes"/> modulo 256.</summary>
    public static int Compute(ReadOnlySpan<byte> bytes)
    {
        ref byte start = ref MemoryMarshal.GetReference(bytes);
        int length = bytes.Length;
        int i = 0;
        ulong sum = 0;

        if (Avx2.IsSupported && length >= 32)
        {
            // psadbw against zero adds 8 bytes into each 64-bit lane: 32 bytes per instruction, no overflow for any
            // FIX message size.
            var acc = Vector256<ulong>.Zero;
            for (; i <= length - 32; i += 32)
            {
                var v = Vector256.LoadUnsafe(ref start, (nuint)i);
                acc = Avx2.Add(acc, Avx2.SumAbsoluteDifferences(v, Vector256<byte>.Zero).AsUInt64());
            }

            sum = acc.GetElement(0) + acc.GetElement(1) + acc.GetElement(2) + acc.GetElement(3);
        }
        else if (Sse2.IsSupported && length >= 16)
        {
            var acc = Vector128<ulong>.Zero;
            for (; i <= length - 16; i += 16)
            {
                var v = Vector128.LoadUnsafe(ref start, (nuint)i);
                acc = Sse2.Add(acc, Sse2.SumAbsoluteDifferences(v, Vector128<byte>.Zero).AsUInt64());
            }

            sum = acc.GetElement(0) + acc.GetElement(1);
        }

        for (; i <= length - 8; i += 8)
        {
            sum += HorizontalByteSum(Unsafe.ReadUnaligned<ulong>(ref Unsafe.Add(ref start, i)));
        }

        for (; i < length; i++)
        {
            sum += Unsafe.Add(ref start, i);
        }

        return (int)(sum & 0xFF);
    }

    /// <summary>Writes the three-digit checksum text (e.g. "007").</summary>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    public static void Write(int checksum, Span<byte> destination)
    {
        destination[0] = (byte)('0' + (checksum / 100));
        destination[1] = (byte)('0' + (checksum / 10 % 10));
        destination[2] = (byte)('0' + (checksum % 10));
    }

    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    private static ulong HorizontalByteSum(ulong x)
    {
        // Pairwise add bytes into 16-bit lanes, then multiply to gather the four lanes in the top 16 bits.
        x = (x & 0x00FF00FF00FF00FFUL) + ((x >> 8) & 0x00FF00FF00FF00FFUL);
        return (x * 0x0001000100010001UL) >> 48;
    }
}
