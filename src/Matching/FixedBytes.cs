using System.Diagnostics.CodeAnalysis;
using System.Runtime.CompilerServices;
using System.Runtime.Intrinsics;

namespace RapidFix.Matching;

/// <summary>
/// Up to 16 bytes held inline (participant and account IDs, ISINs, places): copied out of a message so the tables
/// own their content without a string or an array per value.
/// </summary>
public struct Bytes16
{
    /// <summary>Bytes a value may have.</summary>
    public const int Capacity = 16;

    private Buffer16 _data;
    private byte _length;

    /// <summary>Number of bytes held.</summary>
    public readonly int Length => _length;

    /// <summary>The bytes held.</summary>
    [UnscopedRef]
    public readonly ReadOnlySpan<byte> Span => ((ReadOnlySpan<byte>)_data)[.._length];

    /// <summary>Copies <paramref name="value"/>; false (and nothing held) when it is longer than <see cref="Capacity"/>.</summary>
    public bool TrySet(ReadOnlySpan<byte> value) => FixedBytes.TrySet(_data, ref _length, value);

    /// <summary>
    /// Whether <paramref name="other"/> holds the same bytes: one 16-byte compare, the bytes past the length (which
    /// may hold anything) masked off, instead of a call comparing two spans.
    /// </summary>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    internal readonly bool SameBytes(in Bytes16 other)
    {
        if (_length != other._length)
        {
            return false;
        }

        var a = Vector128.LoadUnsafe(ref Unsafe.AsRef(in _data[0]));
        var b = Vector128.LoadUnsafe(ref Unsafe.AsRef(in other._data[0]));
        uint equal = Vector128.Equals(a, b).ExtractMostSignificantBits();
        uint used = (1u << _length) - 1; // _length is 0..16
        return (equal & used) == used;
    }

    /// <summary>The bytes as ASCII text (allocates: for logs and tests).</summary>
    public override readonly string ToString() => System.Text.Encoding.ASCII.GetString(Span);

    [InlineArray(Capacity)]
    private struct Buffer16
    {
        private byte _element;
    }
}

/// <summary>Up to 32 bytes held inline: message IDs (TradeReportID, AllocID, ConfirmID, SettlInstID).</summary>
public struct Bytes32
{
    /// <summary>Bytes a value may have.</summary>
    public const int Capacity = 32;

    private Buffer32 _data;
    private byte _length;

    /// <summary>Number of bytes held.</summary>
    public readonly int Length => _length;

    /// <summary>The bytes held.</summary>
    [UnscopedRef]
    public readonly ReadOnlySpan<byte> Span => ((ReadOnlySpan<byte>)_data)[.._length];

    /// <summary>Copies <paramref name="value"/>; false (and nothing held) when it is longer than <see cref="Capacity"/>.</summary>
    public bool TrySet(ReadOnlySpan<byte> value) => FixedBytes.TrySet(_data, ref _length, value);

    /// <summary>Copies as much of <paramref name="value"/> as fits (exception values are shown, not compared).</summary>
    public void SetTruncated(ReadOnlySpan<byte> value) => TrySet(value.Length > Capacity ? value[..Capacity] : value);

    /// <summary>The bytes as ASCII text (allocates: for logs and tests).</summary>
    public override readonly string ToString() => System.Text.Encoding.ASCII.GetString(Span);

    [InlineArray(Capacity)]
    private struct Buffer32
    {
        private byte _element;
    }
}

internal static class FixedBytes
{
    /// <summary>Copies <paramref name="value"/> into <paramref name="data"/>; false (and length 0) when it does not fit.</summary>
    public static bool TrySet(Span<byte> data, ref byte length, ReadOnlySpan<byte> value)
    {
        if (value.Length > data.Length)
        {
            length = 0;
            return false;
        }

        value.CopyTo(data);
        length = (byte)value.Length;
        return true;
    }
}
