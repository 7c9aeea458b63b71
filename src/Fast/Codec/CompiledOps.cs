using System.Runtime.CompilerServices;
using System.Runtime.InteropServices;
using System.Runtime.Intrinsics.X86;
using RapidFix.Fast.Messages;
using RapidFix.Fast.Templates;

namespace RapidFix.Fast.Codec;

/// <summary>
/// What compiled template bodies call for the work not emitted as IL (BodyCompiler.Integers.cs and .Strings.cs
/// emit integers, decimals and strings themselves): the general integer and split-decimal operation of the fields'
/// cold paths (<see cref="FieldSlow"/>), a sequence's length and start, entry presence maps, instructions left to
/// the interpreter (<see cref="Other"/>), string appends, and stop-bit integers read from one word. The hot state
/// (read position, presence map window, the scope's first slot) stays in the compiled method's locals; rare paths
/// call out through <see cref="DecodeRun{THandler}"/> with the position handed over and taken back.
/// </summary>
/// <remarks>
/// The rules are the interpreter's (<see cref="DecodeRun{THandler}"/>); the differential tests decode the corpus,
/// mutated packets and random messages for every emitted operator both ways and require identical results.
/// </remarks>
internal static class CompiledOps
{
    private const int Present = 0;
    private const int Absent = 1;
    private const int Failed = -1;

    /// <summary>An integer field with any operator, by the general rules (the cold path of emitted integer fields).</summary>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    public static bool Int(
        ref DecodeRun<FastMessageWriter> run, ReadOnlySpan<byte> data, ref int pos, ref ulong pm, ref FastValue scope, PreviousValue[] dict,
        int slot, FastOperator op, FastFieldType type, bool optional, bool nullable, bool usesBit, int dictSlot, bool hasInitial, long initial)
    {
        bool bit = usesBit && PresenceMap.NextLoaded(ref pm);
        int r = IntValue(ref run, data, ref pos, dict, op, type, optional, nullable, dictSlot, hasInitial, initial, bit, out long value);
        ref var v = ref Unsafe.Add(ref scope, slot);
        if (r == Present)
        {
            v.KindValue = type is FastFieldType.UInt32 or FastFieldType.UInt64 ? FastValueKind.UnsignedInteger : FastValueKind.Integer;
            v.Int = value;
        }
        else if (r == Absent)
        {
            v.KindValue = FastValueKind.Absent;
        }

        return r != Failed;
    }

    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    public static bool SplitDecimal(
        ref DecodeRun<FastMessageWriter> run, ReadOnlySpan<byte> data, ref int pos, ref ulong pm, ref FastValue scope, PreviousValue[] dict,
        int slot, bool optional,
        FastOperator exponentOp, bool exponentNullable, bool exponentUsesBit, int exponentDict, bool exponentHasInitial, long exponentInitial,
        FastOperator mantissaOp, bool mantissaUsesBit, int mantissaDict, bool mantissaHasInitial, long mantissaInitial)
    {
        int at = pos;
        ref var v = ref Unsafe.Add(ref scope, slot);

        // Absent exponent: the whole decimal is absent (no mantissa bit or byte).
        bool bit = exponentUsesBit && PresenceMap.NextLoaded(ref pm);
        int r = IntValue(ref run, data, ref pos, dict, exponentOp, FastFieldType.Int32, optional, exponentNullable, exponentDict, exponentHasInitial, exponentInitial, bit, out long exponent);
        if (r != Present)
        {
            v.KindValue = FastValueKind.Absent;
            return r != Failed;
        }

        if (exponent < -63 || exponent > 63)
        {
            return run.FailAt(FastErrorCode.R1, at);
        }

        bit = mantissaUsesBit && PresenceMap.NextLoaded(ref pm);
        r = IntValue(ref run, data, ref pos, dict, mantissaOp, FastFieldType.Int64, false, false, mantissaDict, mantissaHasInitial, mantissaInitial, bit, out long mantissa);
        if (r != Present)
        {
            return r == Absent ? run.FailAt(FastErrorCode.D6, at) : false;
        }

        v.KindValue = FastValueKind.Decimal;
        v.Int = mantissa;
        v.Aux = (int)exponent;
        return true;
    }

    /// <summary>
    /// A sequence in a compiled body, up to its entries: the length (with the length instruction's properties), then
    /// the limits and the scopes. The entry count (0 when absent), or -1 on error.
    /// </summary>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    public static int SequenceStart(
        ref DecodeRun<FastMessageWriter> run, ReadOnlySpan<byte> data, ref int pos, ref ulong pm, ref FastValue scope, PreviousValue[] dict,
        int slot, int fieldIndex, FastOperator op, FastFieldType type, bool optional, bool nullable, bool usesBit, int dictSlot, bool hasInitial, long initial, int depth)
    {
        bool bit = usesBit && PresenceMap.NextLoaded(ref pm);
        int at = pos;
        int r = IntValue(ref run, data, ref pos, dict, op, type, optional, nullable, dictSlot, hasInitial, initial, bit, out long length);
        if (r == Present)
        {
            return run.StartSequence(fieldIndex, length, at, pos, depth);
        }

        if (r == Absent)
        {
            Unsafe.Add(ref scope, slot).KindValue = FastValueKind.Absent;
            return 0;
        }

        return -1;
    }

    /// <summary>
    /// A sequence entry's presence map: maps of one byte, or of two when the body needs that many and the second
    /// byte is not overlong (0x80), inline; others out of line. (The body's size never exceeds the decoder's scan.)
    /// </summary>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    public static bool EntryPmap(ref DecodeRun<FastMessageWriter> run, ReadOnlySpan<byte> data, ref int pos, ref ulong pm, int maxBytes)
    {
        int start = pos;
        if ((uint)start < (uint)data.Length && At(data, start) >= 0x80)
        {
            pm = (ulong)(At(data, start) & 0x7F) << 57;
            pos = start + 1;
            return true;
        }

        if (maxBytes >= 2 && (uint)(start + 1) < (uint)data.Length && At(data, start + 1) > 0x80)
        {
            pm = ((ulong)At(data, start) << 57) | ((ulong)(At(data, start + 1) & 0x7F) << 50);
            pos = start + 2;
            return true;
        }

        int end = run.EntryPmap(start, maxBytes);
        if (end < 0)
        {
            return false;
        }

        pm = new PresenceMap(data, start, end).LoadedBits;
        pos = end;
        return true;
    }

    /// <summary>
    /// After a sequence entry: R8 when strict and a bit no instruction read is set. A strict map has at most the
    /// body's bytes (checked by <see cref="EntryPmap"/>), all of them loaded, so the unread bits are those left in
    /// <paramref name="pm"/>.
    /// </summary>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    public static bool EntryPmapDone(ref DecodeRun<FastMessageWriter> run, ulong pm, int pmStart) =>
        pm == 0 || !run.Strict || run.FailAt(FastErrorCode.R8, pmStart);

    /// <summary>Any other instruction (single-operator decimals, delta and tail strings, sequences, groups, template references).</summary>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    public static bool Other(
        ref DecodeRun<FastMessageWriter> run, ReadOnlySpan<byte> data, ref int pos, ref ulong pm, ref FastValue scope, PreviousValue[] dict,
        int fieldIndex, bool usesBit, int depth) =>
        Interpret(ref run, ref pos, fieldIndex, usesBit && PresenceMap.NextLoaded(ref pm), depth);

    /// <summary>
    /// The cold path of a field emitted as IL (<see cref="BodyCompiler"/>): the whole integer or split-decimal field
    /// from its first byte <paramref name="at"/> and its first presence bit (the top of <paramref name="pm"/>), by
    /// the general operation. The new position goes to <see cref="DecodeRun{THandler}.Position"/>, the window past
    /// the bits read to <see cref="DecodeRun{THandler}.PmWindow"/>.
    /// </summary>
    [MethodImpl(MethodImplOptions.NoInlining)]
    public static bool FieldSlow(ref DecodeRun<FastMessageWriter> run, int at, ulong pm, ref FastValue scope, int fieldIndex)
    {
        var f = run.Field(fieldIndex);
        var data = run.Data;
        var dict = run.Dictionary;
        int pos = at;
        bool ok;
        if (f.Code == Opcode.SplitDecimal)
        {
            var e = f.Exponent!;
            var m = f.Mantissa!;
            ok = SplitDecimal(
                ref run, data, ref pos, ref pm, ref scope, dict, f.Slot, f.IsOptional,
                e.Operator, e.Nullable, e.UsesPmapBit, e.DictSlot, e.HasInitial, e.InitialInt,
                m.Operator, m.UsesPmapBit, m.DictSlot, m.HasInitial, m.InitialInt);
        }
        else
        {
            ok = Int(ref run, data, ref pos, ref pm, ref scope, dict, f.Slot, f.Operator, f.Type, f.IsOptional, f.Nullable, f.UsesPmapBit, f.DictSlot, f.HasInitial, f.InitialInt);
        }

        run.Position = pos;
        run.PmWindow = pm;
        return ok;
    }

    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    private static bool Interpret(ref DecodeRun<FastMessageWriter> run, ref int pos, int fieldIndex, bool bit, int depth)
    {
        run.Position = pos;
        bool ok = run.InterpretWithBit(fieldIndex, bit, depth);
        pos = run.Position;
        return ok;
    }

    /// <summary>
    /// <c>data[index]</c> for an index the caller has just checked against the length (a read position, never
    /// negative): the JIT does not always see that its own check is redundant.
    /// </summary>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    private static byte At(ReadOnlySpan<byte> data, int index) => Unsafe.Add(ref MemoryMarshal.GetReference(data), (uint)index);

    /// <summary>A dictionary entry by a slot the template compiler resolved (always inside the array: no bounds check).</summary>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    private static ref PreviousValue Previous(PreviousValue[] dict, int slot) =>
        ref Unsafe.Add(ref MemoryMarshal.GetArrayDataReference(dict), slot);

    /// <summary>
    /// Copies an ASCII string from the wire to the end of the message arena, clearing its stop bit, and into
    /// <paramref name="previous"/> when given (a copy operator's dictionary buffer): the position after it, or -1
    /// when no stop bit comes within <paramref name="maxLength"/> or the data, or the arena is full (the
    /// interpreter then reports it). Kept out of line: its span temporaries would bloat every compiled body's
    /// frame; no out parameter for the offset either (the caller's local would live in memory).
    /// </summary>
    [MethodImpl(MethodImplOptions.NoInlining)]
    internal static int AppendWireAscii(FastMessage message, ReadOnlySpan<byte> data, int start, int maxLength, byte[]? previous)
    {
        byte[] arena = message.Arena;
        int offset = message.ArenaLength;
        if (BitConverter.IsLittleEndian && (uint)start < (uint)data.Length && maxLength >= sizeof(ulong) && arena.Length - offset >= sizeof(ulong)
            && (previous is null || previous.Length >= sizeof(ulong)))
        {
            // Strings of up to 8 bytes (nearly all of them) as one word: find the stop bit, clear it, store the word.
            // The bytes stored past the string's end lie in free arena space or past the previous value's length.
            ulong word = start + sizeof(ulong) <= data.Length ? Unsafe.ReadUnaligned<ulong>(in data[start]) : LastBytes(data, start);
            ulong stops = word & 0x8080808080808080UL;
            if (stops != 0)
            {
                int length = (System.Numerics.BitOperations.TrailingZeroCount(stops) >> 3) + 1;
                word &= ~(0x80UL << ((length - 1) * 8));
                Unsafe.WriteUnaligned(ref arena[offset], word);
                if (previous is not null)
                {
                    Unsafe.WriteUnaligned(ref previous[0], word);
                }

                message.ArenaLength = offset + length;
                return start + length;
            }
        }

        return AppendLongWireAscii(message, data, start, maxLength, previous);
    }

    /// <summary>The fewer than 8 bytes from <paramref name="start"/> to the end of <paramref name="data"/>, as a little-endian word.</summary>
    private static ulong LastBytes(ReadOnlySpan<byte> data, int start)
    {
        ulong word = 0;
        for (int i = data.Length - 1; i >= start; i--)
        {
            word = (word << 8) | data[i];
        }

        return word;
    }

    /// <summary><see cref="AppendWireAscii"/> for longer strings and near the end of the arena.</summary>
    private static int AppendLongWireAscii(FastMessage message, ReadOnlySpan<byte> data, int start, int maxLength, byte[]? previous)
    {
        int limit = Math.Min(data.Length, start + maxLength);
        int p = start;
        while (p < limit && data[p] < 0x80)
        {
            p++;
        }

        int offset = message.ArenaLength;
        int length = p + 1 - start;
        if (p >= limit || length > message.Arena.Length - offset)
        {
            return -1;
        }

        var target = message.Arena.AsSpan(offset, length);
        SmallCopy.Copy(data.Slice(start, length), target);
        target[length - 1] &= 0x7F;
        message.ArenaLength = offset + length;
        if (previous is not null)
        {
            SmallCopy.Copy(target, previous);
        }

        return p + 1;
    }

    /// <summary>Copies a previous value into the message arena: its offset, or -1 when the arena is full.</summary>
    [MethodImpl(MethodImplOptions.NoInlining)]
    internal static int AppendPrevious(FastMessage message, byte[] previous, int length)
    {
        byte[] arena = message.Arena;
        int offset = message.ArenaLength;
        if (length <= sizeof(ulong) && previous.Length >= sizeof(ulong) && arena.Length - offset >= sizeof(ulong))
        {
            // One word, as in AppendWireAscii: the bytes past the value land in free arena space.
            Unsafe.WriteUnaligned(ref arena[offset], Unsafe.ReadUnaligned<ulong>(ref previous[0]));
            message.ArenaLength = offset + length;
            return offset;
        }

        return message.TryAppendBytes(previous.AsSpan(0, length), out offset) ? offset : -1;
    }

    /// <summary>
    /// An unsigned integer of 3 to 8 bytes with a non-zero first byte (timestamps, identifiers, sequence numbers)
    /// from one word, without a loop: find the stop bit, put the bytes in value order, then join their 7-bit
    /// groups (<see cref="JoinGroups"/>). False for anything else (<see cref="DecodeRun{THandler}.SlowUnsigned"/> then reads it).
    /// </summary>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    internal static bool TryWordUnsigned(ReadOnlySpan<byte> data, int at, out ulong value, out int end)
    {
        ulong packed = WordUnsigned(ref MemoryMarshal.GetReference(data), data.Length, at);
        value = packed & 0x00FF_FFFF_FFFF_FFFFUL;
        end = at + (int)(packed >> 56);
        return packed != 0;
    }

    /// <summary>
    /// <see cref="TryWordUnsigned"/> as one value for emitted code: the integer in the low 56 bits (8 groups of 7)
    /// and its length in bytes in the top 8, or 0 when it is not one this reads.
    /// </summary>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    internal static ulong WordUnsigned(ref byte data, int length, int at)
    {
        if (BitConverter.IsLittleEndian && length >= sizeof(ulong) && (uint)at <= (uint)(length - sizeof(ulong)))
        {
            ulong word = Unsafe.ReadUnaligned<ulong>(ref Unsafe.Add(ref data, (uint)at));
            ulong stops = word & 0x8080808080808080UL;
            if (stops != 0 && (byte)word != 0)
            {
                int last = System.Numerics.BitOperations.TrailingZeroCount(stops) >> 3;
                return JoinGroups(word, last) | ((ulong)(last + 1) << 56);
            }
        }

        return 0;
    }

    /// <summary>
    /// The 7-bit groups of the bytes 0 to <paramref name="last"/> of <paramref name="word"/> (little-endian, first
    /// byte first on the wire) joined into one value: the bytes put in value order, then the groups packed, with
    /// one PEXT where it is fast, else pairwise in three steps.
    /// </summary>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    private static ulong JoinGroups(ulong word, int last)
    {
        int unused = 8 * (7 - last);
        ulong x = System.Buffers.Binary.BinaryPrimitives.ReverseEndianness(word & (0x7F7F7F7F7F7F7F7FUL >> unused)) >> unused;
        return Bmi2.X64.IsSupported && FastPext ? Bmi2.X64.ParallelBitExtract(x, 0x7F7F7F7F7F7F7F7FUL) : JoinGroupsPairwise(x);
    }

    /// <summary>The low 7 bits of each byte of <paramref name="x"/> packed together, without PEXT: pairs of groups, then pairs of pairs, then halves.</summary>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    internal static ulong JoinGroupsPairwise(ulong x)
    {
        x = ((x & 0x7F007F007F007F00UL) >> 1) | (x & 0x007F007F007F007FUL);
        x = ((x & 0x3FFF00003FFF0000UL) >> 2) | (x & 0x00003FFF00003FFFUL);
        return ((x & 0x0FFFFFFF00000000UL) >> 4) | (x & 0x000000000FFFFFFFUL);
    }

    /// <summary>
    /// PEXT takes a few cycles everywhere it exists except on AMD processors before Zen 3 (family 0x19), which
    /// run it as microcode (hundreds of cycles): there the pairwise steps are faster.
    /// </summary>
    internal static readonly bool FastPext = Bmi2.X64.IsSupported && !IsAmdBeforeZen3();

    private static bool IsAmdBeforeZen3()
    {
        if (!X86Base.IsSupported)
        {
            return false;
        }

        var (_, vendorB, vendorC, vendorD) = X86Base.CpuId(0, 0);
        bool amd = vendorB == 0x68747541 && vendorD == 0x69746E65 && vendorC == 0x444D4163; // "AuthenticAMD"
        int signature = X86Base.CpuId(1, 0).Eax;
        int family = (signature >> 8) & 0xF;
        if (family == 0xF)
        {
            family += (signature >> 20) & 0xFF;
        }

        return amd && family < 0x19;
    }

    /// <summary>
    /// A signed integer of 3 to 8 bytes from one word, as <see cref="WordUnsigned"/>: the value in the low 56 bits
    /// (two's complement, sign at bit 55), its length in the top 8, or 0 when it is not one this reads (no stop bit
    /// in the word, too near the end of the data, or overlong).
    /// </summary>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    internal static ulong WordSigned(ref byte data, int length, int at)
    {
        if (BitConverter.IsLittleEndian && length >= sizeof(ulong) && (uint)at <= (uint)(length - sizeof(ulong)))
        {
            ulong word = Unsafe.ReadUnaligned<ulong>(ref Unsafe.Add(ref data, (uint)at));
            ulong stops = word & 0x8080808080808080UL;

            // Overlong: a first byte of sign bits only (0x00 or 0x7F) whose next byte repeats the sign.
            ulong head = word & 0x407FUL;
            if (stops != 0 && head != 0 && head != 0x407FUL)
            {
                int last = System.Numerics.BitOperations.TrailingZeroCount(stops) >> 3;
                ulong x = JoinGroups(word, last);

                // Sign-extend from the top bit of the 7 * (last + 1) read, to 56 bits.
                int bits = 7 * (last + 1);
                x = (ulong)((long)(x << (64 - bits)) >> (64 - bits)) & 0x00FF_FFFF_FFFF_FFFFUL;
                return x | ((ulong)(last + 1) << 56);
            }
        }

        return 0;
    }

    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    private static int IntValue(
        ref DecodeRun<FastMessageWriter> run, ReadOnlySpan<byte> data, ref int pos, PreviousValue[] dict,
        FastOperator op, FastFieldType type, bool optional, bool nullable, int dictSlot, bool hasInitial, long initial, bool bit, out long value)
    {
        value = 0;
        switch (op)
        {
            case FastOperator.None:
                return ReadInt(ref run, data, ref pos, type, nullable, out value);

            case FastOperator.Constant:
                if (!optional || bit)
                {
                    value = initial;
                    return Present;
                }

                return Absent;

            case FastOperator.Default:
                if (bit)
                {
                    return ReadInt(ref run, data, ref pos, type, nullable, out value);
                }

                if (hasInitial)
                {
                    value = initial;
                    return Present;
                }

                return Absent;

            case FastOperator.Copy:
            case FastOperator.Increment:
                {
                    ref var prev = ref Previous(dict, dictSlot);
                    if (bit)
                    {
                        int r = ReadInt(ref run, data, ref pos, type, nullable, out value);
                        if (r == Present)
                        {
                            prev.Int = value;
                            prev.State = PreviousState.Assigned;
                            prev.Type = type;
                        }
                        else if (r == Absent)
                        {
                            prev.State = PreviousState.Empty;
                        }

                        return r;
                    }

                    if (prev.State == PreviousState.Assigned && prev.Type == type)
                    {
                        value = prev.Int;
                        if (op == FastOperator.Copy)
                        {
                            return Present;
                        }

                        if (!AddDelta(type, value, 1, out value))
                        {
                            return Fail(ref run, FastErrorCode.D2, pos);
                        }

                        prev.Int = value;
                        return Present;
                    }

                    switch (prev.State)
                    {
                        case PreviousState.Assigned:
                            return Fail(ref run, FastErrorCode.D4, pos);
                        case PreviousState.Undefined:
                            if (hasInitial)
                            {
                                value = initial;
                                prev.Int = value;
                                prev.State = PreviousState.Assigned;
                                prev.Type = type;
                                return Present;
                            }

                            if (optional)
                            {
                                prev.State = PreviousState.Empty;
                                return Absent;
                            }

                            return Fail(ref run, FastErrorCode.D5, pos);
                        default:
                            return optional ? Absent : Fail(ref run, FastErrorCode.D6, pos);
                    }
                }

            case FastOperator.Delta:
                {
                    int at = pos;
                    int r = ReadSigned(ref run, data, ref pos, nullable, out long delta);
                    if (r != Present)
                    {
                        return r;
                    }

                    ref var prev = ref Previous(dict, dictSlot);
                    long baseValue;
                    switch (prev.State)
                    {
                        case PreviousState.Assigned:
                            if (prev.Type != type)
                            {
                                return Fail(ref run, FastErrorCode.D4, at);
                            }

                            baseValue = prev.Int;
                            break;
                        case PreviousState.Undefined:
                            baseValue = hasInitial ? initial : 0;
                            break;
                        default:
                            return Fail(ref run, FastErrorCode.D6, at);
                    }

                    if (!AddDelta(type, baseValue, delta, out value))
                    {
                        return Fail(ref run, FastErrorCode.D2, at);
                    }

                    prev.Int = value;
                    prev.State = PreviousState.Assigned;
                    prev.Type = type;
                    return Present;
                }

            default:
                return Fail(ref run, FastErrorCode.S2, pos);
        }
    }

    /// <summary>
    /// <paramref name="baseValue"/> + <paramref name="delta"/> within the type's range (D2 otherwise). One
    /// expression per type, so the inlined check is a comparison or two and no boolean to test again.
    /// </summary>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    private static bool AddDelta(FastFieldType type, long baseValue, long delta, out long value)
    {
        long sum = unchecked(baseValue + delta);
        value = sum;
        return type switch
        {
            // Unsigned 64-bit: wrapped around when the sum moved against the delta's sign.
            FastFieldType.UInt64 => delta >= 0 ? (ulong)sum >= (ulong)baseValue : (ulong)sum < (ulong)baseValue,
            FastFieldType.UInt32 => ((baseValue ^ sum) & (delta ^ sum)) >= 0 && (ulong)sum <= uint.MaxValue,
            FastFieldType.Int32 => ((baseValue ^ sum) & (delta ^ sum)) >= 0 && sum == (int)sum,
            _ => ((baseValue ^ sum) & (delta ^ sum)) >= 0,
        };
    }

    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    private static int ReadInt(ref DecodeRun<FastMessageWriter> run, ReadOnlySpan<byte> data, ref int pos, FastFieldType type, bool nullable, out long value)
    {
        int at = pos;
        if (type is FastFieldType.UInt32 or FastFieldType.UInt64)
        {
            value = 0;
            ulong u;
            bool carry = false;
            int p = pos;
            if ((uint)p < (uint)data.Length && data[p] >= 0x80)
            {
                u = data[p] & 0x7FU;
                pos = p + 1;
            }
            else if ((uint)(p + 1) < (uint)data.Length && data[p] != 0 && data[p + 1] >= 0x80)
            {
                u = ((ulong)data[p] << 7) | (data[p + 1] & 0x7FU);
                pos = p + 2;
            }
            else
            {
                int next = run.SlowUnsigned(p);
                if (next < 0)
                {
                    return Failed;
                }

                u = run.SlowValue;
                carry = run.SlowCarry;
                pos = next;
            }

            if (nullable)
            {
                if (carry)
                {
                    if (type != FastFieldType.UInt64)
                    {
                        return Fail(ref run, FastErrorCode.D2, at);
                    }

                    value = -1;
                    return Present;
                }

                if (u == 0)
                {
                    return Absent;
                }

                u--;
            }
            else if (carry)
            {
                return Fail(ref run, FastErrorCode.D2, at);
            }

            if (type == FastFieldType.UInt32 && u > uint.MaxValue)
            {
                return Fail(ref run, FastErrorCode.D2, at);
            }

            value = (long)u;
            return Present;
        }

        int r = ReadSigned(ref run, data, ref pos, nullable, out value);
        if (r == Present && type == FastFieldType.Int32 && (value < int.MinValue || value > int.MaxValue))
        {
            return Fail(ref run, FastErrorCode.D2, at);
        }

        return r;
    }

    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    private static int ReadSigned(ref DecodeRun<FastMessageWriter> run, ReadOnlySpan<byte> data, ref int pos, bool nullable, out long value)
    {
        bool carry = false;
        int p = pos;
        if ((uint)p < (uint)data.Length && data[p] >= 0x80)
        {
            value = (long)((ulong)data[p] << 57) >> 57;
            pos = p + 1;
        }
        else
        {
            int next = run.SlowSigned(p);
            if (next < 0)
            {
                value = 0;
                return Failed;
            }

            value = (long)run.SlowValue;
            carry = run.SlowCarry;
            pos = next;
        }

        if (nullable)
        {
            if (carry)
            {
                value = long.MaxValue;
                return Present;
            }

            if (value == 0)
            {
                return Absent;
            }

            if (value > 0)
            {
                value--;
            }
        }
        else if (carry)
        {
            return Fail(ref run, FastErrorCode.D2, p);
        }

        return Present;
    }

    private static int Fail(ref DecodeRun<FastMessageWriter> run, FastErrorCode code, int offset)
    {
        run.FailAt(code, offset);
        return Failed;
    }
}
