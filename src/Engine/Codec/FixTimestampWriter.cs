using System.Runtime.CompilerServices;
using RapidFix.Engine.Fields;

namespace RapidFix.Engine.Codec;

/// <summary>
/// Formats UTCTimestamps, caching the "yyyyMMdd-HH:mm:ss" text of the last two seconds written (a message's
/// SendingTime and TransactTime may straddle a second): consecutive messages only format their fractional digits.
/// One instance per writing thread.
/// </summary>
public sealed class FixTimestampWriter
{
    private readonly byte[] _secondText = new byte[17];

    // Two cache slots: the 17 bytes of a second as two words and a byte, stored with three moves (no memmove call).
    private Slot _recent = new() { Second = long.MinValue };
    private Slot _older = new() { Second = long.MinValue };

    /// <summary>Writes the timestamp into <paramref name="destination"/> (exactly <see cref="FixTimeFormat.TimestampLength"/> bytes).</summary>
    public void Write(long unixNanoseconds, FixTimePrecision precision, Span<byte> destination)
    {
        if (destination.Length < FixTimeFormat.TimestampLength(precision))
        {
            throw new ArgumentException("destination too small for the timestamp", nameof(destination));
        }

        Write(unixNanoseconds, precision, ref System.Runtime.InteropServices.MemoryMarshal.GetReference(destination));
    }

    /// <summary>Writes the timestamp at <paramref name="destination"/>; the caller guarantees the room.</summary>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    internal void Write(long unixNanoseconds, FixTimePrecision precision, ref byte destination)
    {
        long second = unixNanoseconds >= 0 ? unixNanoseconds / FixTimeFormat.NanosPerSecond : ((unixNanoseconds + 1) / FixTimeFormat.NanosPerSecond) - 1;
        if (second != _recent.Second)
        {
            if (second == _older.Second)
            {
                (_recent, _older) = (_older, _recent);
            }
            else
            {
                Refresh(second);
            }
        }

        Unsafe.WriteUnaligned(ref destination, _recent.Head);
        Unsafe.WriteUnaligned(ref Unsafe.Add(ref destination, 8), _recent.Middle);
        Unsafe.Add(ref destination, 16) = _recent.Last;
        if (precision == FixTimePrecision.Seconds)
        {
            return;
        }

        Unsafe.Add(ref destination, 17) = (byte)'.';
        long frac = unixNanoseconds - (second * FixTimeFormat.NanosPerSecond);
        frac = precision switch
        {
            FixTimePrecision.Milliseconds => frac / 1_000_000,
            FixTimePrecision.Microseconds => frac / 1_000,
            _ => frac,
        };
        FixValue.WriteDigitsUnchecked((ulong)frac, ref Unsafe.Add(ref destination, 18), (int)precision);
    }

    [MethodImpl(MethodImplOptions.NoInlining)]
    private void Refresh(long second)
    {
        long days = second >= 0 ? second / 86_400 : ((second + 1) / 86_400) - 1;
        FixTimeFormat.WriteDateTimeToSecond(days, second - (days * 86_400), _secondText);
        _older = _recent;
        _recent = new Slot
        {
            Second = second,
            Head = Unsafe.ReadUnaligned<ulong>(ref _secondText[0]),
            Middle = Unsafe.ReadUnaligned<ulong>(ref _secondText[8]),
            Last = _secondText[16],
        };
    }

    private struct Slot
    {
        public long Second;
        public ulong Head;
        public ulong Middle;
        public byte Last;
    }
}
