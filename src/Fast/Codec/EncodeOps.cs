using System.Runtime.CompilerServices;
using RapidFix.Fast.Messages;
using RapidFix.Fast.Templates;

namespace RapidFix.Fast.Codec;

/// <summary>
/// The operations compiled encoder bodies call, one per instruction, with the instruction's properties as
/// constants; the write position, the presence-map writer and the scope's first slot live in the compiled
/// method's locals. Rare paths (single-operator decimals, delta and tail strings, sequences, groups, template
/// references) go to the interpreter (<see cref="EncodeRun"/>). The rules are the interpreter's; the round-trip
/// tests require byte-identical output from both.
/// </summary>
internal static class EncodeOps
{
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    public static bool Int(
        ref EncodeRun run, Span<byte> dst, ref int pos, ref PmapWriter pm, ref FastValue scope, PreviousValue[] dict,
        int slot, FastOperator op, FastFieldType type, bool optional, bool nullable, int dictSlot, bool hasInitial, long initial)
    {
        ref var v = ref Unsafe.Add(ref scope, slot);
        bool present = v.KindValue is FastValueKind.Integer or FastValueKind.UnsignedInteger;
        if (!present && v.KindValue != FastValueKind.Absent)
        {
            return run.FailAt(FastErrorCode.D1, pos);
        }

        long value = v.Int;
        if (present && !InRange(type, value))
        {
            return run.FailAt(FastErrorCode.D2, pos);
        }

        return IntOperator(ref run, dst, ref pos, ref pm, dict, op, type, optional, nullable, dictSlot, hasInitial, initial, present, value);
    }

    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    public static bool SplitDecimal(
        ref EncodeRun run, Span<byte> dst, ref int pos, ref PmapWriter pm, ref FastValue scope, PreviousValue[] dict,
        int slot, bool optional,
        FastOperator exponentOp, bool exponentNullable, int exponentDict, bool exponentHasInitial, long exponentInitial,
        FastOperator mantissaOp, int mantissaDict, bool mantissaHasInitial, long mantissaInitial)
    {
        ref var v = ref Unsafe.Add(ref scope, slot);
        bool present = v.KindValue is FastValueKind.Decimal or FastValueKind.Integer;
        if (!present && v.KindValue != FastValueKind.Absent)
        {
            return run.FailAt(FastErrorCode.D1, pos);
        }

        int exponent = v.KindValue == FastValueKind.Decimal ? v.Aux : 0;
        long mantissa = v.Int;
        if (present)
        {
            if (exponent < -63 || exponent > 63)
            {
                return run.FailAt(FastErrorCode.R1, pos);
            }

            if (exponentOp == FastOperator.Constant && exponent != exponentInitial)
            {
                // A constant exponent fixes the scale: express the value with it when that is exact.
                if (!EncodeRun.TryRescale(mantissa, exponent, (int)exponentInitial, out mantissa))
                {
                    return run.FailAt(FastErrorCode.D3, pos);
                }

                exponent = (int)exponentInitial;
            }
        }

        if (!IntOperator(ref run, dst, ref pos, ref pm, dict, exponentOp, FastFieldType.Int32, optional, exponentNullable, exponentDict, exponentHasInitial, exponentInitial, present, exponent))
        {
            return false;
        }

        return !present || IntOperator(ref run, dst, ref pos, ref pm, dict, mantissaOp, FastFieldType.Int64, false, false, mantissaDict, mantissaHasInitial, mantissaInitial, true, mantissa);
    }

    /// <summary>A constant or default string or byte vector.</summary>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    public static bool BytesInitial(
        ref EncodeRun run, Span<byte> dst, ref int pos, ref PmapWriter pm, ref FastValue scope, PreviousValue[] dict, FastMessage message,
        int slot, bool ascii, FastOperator op, bool optional, bool nullable, bool hasInitial, int poolOffset, int length, byte[] pool)
    {
        ref var v = ref Unsafe.Add(ref scope, slot);
        bool present = v.KindValue == FastValueKind.Bytes;
        if (!present && v.KindValue != FastValueKind.Absent)
        {
            return run.FailAt(FastErrorCode.D1, pos);
        }

        if (!present && !optional && op != FastOperator.Constant)
        {
            return run.FailAt(FastErrorCode.InvalidMessage, pos);
        }

        bool equalsInitial = present && (op == FastOperator.Constant || hasInitial) && EqualsInitial(in v, message, poolOffset, length, pool);
        if (op == FastOperator.Constant)
        {
            if (present && !equalsInitial)
            {
                return run.FailAt(FastErrorCode.D3, pos);
            }

            if (optional)
            {
                SetBit(dst, ref pm, present);
            }

            return true;
        }

        if (present)
        {
            SetBit(dst, ref pm, !equalsInitial);
            return equalsInitial || WriteBytes(ref run, dst, ref pos, ascii, message.BytesOf(v.Offset, v.Aux), nullable);
        }

        SetBit(dst, ref pm, hasInitial);
        return !hasInitial || WriteNull(ref run, dst, ref pos);
    }

    /// <summary>A string or byte vector without operator.</summary>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    public static bool BytesNone(
        ref EncodeRun run, Span<byte> dst, ref int pos, ref PmapWriter pm, ref FastValue scope, PreviousValue[] dict, FastMessage message,
        int slot, bool ascii, bool optional, bool nullable)
    {
        ref var v = ref Unsafe.Add(ref scope, slot);
        if (v.KindValue == FastValueKind.Bytes)
        {
            return WriteBytes(ref run, dst, ref pos, ascii, message.BytesOf(v.Offset, v.Aux), nullable);
        }

        if (v.KindValue != FastValueKind.Absent)
        {
            return run.FailAt(FastErrorCode.D1, pos);
        }

        return optional ? WriteNull(ref run, dst, ref pos) : run.FailAt(FastErrorCode.InvalidMessage, pos);
    }

    /// <summary>A copy string or byte vector.</summary>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    public static bool BytesCopy(
        ref EncodeRun run, Span<byte> dst, ref int pos, ref PmapWriter pm, ref FastValue scope, PreviousValue[] dict, FastMessage message,
        int slot, bool ascii, FastFieldType type, bool optional, bool nullable, int dictSlot, bool hasInitial, int poolOffset, int length, byte[] pool)
    {
        ref var v = ref Unsafe.Add(ref scope, slot);
        ref var prev = ref Previous(dict, dictSlot);
        bool present = v.KindValue == FastValueKind.Bytes;
        if (!present)
        {
            if (v.KindValue != FastValueKind.Absent)
            {
                return run.FailAt(FastErrorCode.D1, pos);
            }

            if (!optional)
            {
                return run.FailAt(FastErrorCode.InvalidMessage, pos);
            }

            return AbsentWithPrevious(ref run, dst, ref pos, ref pm, ref prev, hasInitial);
        }

        var value = message.BytesOf(v.Offset, v.Aux);
        byte[] buffer = run.DictionaryBytes(dictSlot);
        if (value.Length > buffer.Length)
        {
            return run.FailAt(FastErrorCode.CapacityExceeded, pos);
        }

        bool implied = prev.State switch
        {
            PreviousState.Assigned => prev.Type == type && value.SequenceEqual(buffer.AsSpan(0, prev.Length)),
            PreviousState.Undefined => hasInitial && EqualsInitial(in v, message, poolOffset, length, pool),
            _ => false,
        };
        if (!implied || prev.State != PreviousState.Assigned)
        {
            SmallCopy.Copy(value, buffer);
            prev.Length = value.Length;
            prev.State = PreviousState.Assigned;
            prev.Type = type;
        }

        SetBit(dst, ref pm, !implied);
        return implied || WriteBytes(ref run, dst, ref pos, ascii, value, nullable);
    }

    /// <summary>Any other instruction, by the interpreter.</summary>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    public static bool Other(
        ref EncodeRun run, Span<byte> dst, ref int pos, ref PmapWriter pm, ref FastValue scope, PreviousValue[] dict,
        int fieldIndex, int valueBase)
    {
        run.Position = pos;
        if (!run.EncodeOne(fieldIndex, valueBase, ref pm))
        {
            return false;
        }

        pos = run.Position;
        return true;
    }

    // ---- operators on local state (the same rules as EncodeRun.IntegerOperator) ---------------------------------

    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    private static bool IntOperator(
        ref EncodeRun run, Span<byte> dst, ref int pos, ref PmapWriter pm, PreviousValue[] dict,
        FastOperator op, FastFieldType type, bool optional, bool nullable, int dictSlot, bool hasInitial, long initial, bool present, long value)
    {
        if (!present && !optional && op != FastOperator.Constant)
        {
            return run.FailAt(FastErrorCode.InvalidMessage, pos);
        }

        switch (op)
        {
            case FastOperator.None:
                return present ? WriteInt(ref run, dst, ref pos, type, value, nullable) : WriteNull(ref run, dst, ref pos);

            case FastOperator.Constant:
                if (present && value != initial)
                {
                    return run.FailAt(FastErrorCode.D3, pos);
                }

                if (optional)
                {
                    SetBit(dst, ref pm, present);
                }

                return true;

            case FastOperator.Default:
                if (present)
                {
                    bool implied = hasInitial && value == initial;
                    SetBit(dst, ref pm, !implied);
                    return implied || WriteInt(ref run, dst, ref pos, type, value, nullable);
                }

                SetBit(dst, ref pm, hasInitial);
                return !hasInitial || WriteNull(ref run, dst, ref pos);

            case FastOperator.Copy:
            case FastOperator.Increment:
                {
                    ref var prev = ref Previous(dict, dictSlot);
                    if (!present)
                    {
                        return AbsentWithPrevious(ref run, dst, ref pos, ref pm, ref prev, hasInitial);
                    }

                    bool implied = false;
                    if (prev.State == PreviousState.Assigned && prev.Type == type)
                    {
                        implied = op == FastOperator.Copy ? prev.Int == value : AddOne(type, prev.Int, out long next) && next == value;
                    }
                    else if (prev.State == PreviousState.Undefined && hasInitial)
                    {
                        implied = initial == value;
                    }

                    prev.Int = value;
                    prev.State = PreviousState.Assigned;
                    prev.Type = type;
                    SetBit(dst, ref pm, !implied);
                    return implied || WriteInt(ref run, dst, ref pos, type, value, nullable);
                }

            case FastOperator.Delta:
                {
                    if (!present)
                    {
                        return WriteNull(ref run, dst, ref pos);
                    }

                    ref var prev = ref Previous(dict, dictSlot);
                    long baseValue;
                    switch (prev.State)
                    {
                        case PreviousState.Assigned:
                            if (prev.Type != type)
                            {
                                return run.FailAt(FastErrorCode.D4, pos);
                            }

                            baseValue = prev.Int;
                            break;
                        case PreviousState.Undefined:
                            baseValue = hasInitial ? initial : 0;
                            break;
                        default:
                            return run.FailAt(FastErrorCode.D6, pos);
                    }

                    long delta;
                    if (type == FastFieldType.UInt64)
                    {
                        ulong a = (ulong)value;
                        ulong b = (ulong)baseValue;
                        delta = (long)(a - b);
                        if ((a >= b) != (delta >= 0))
                        {
                            return run.FailAt(FastErrorCode.D2, pos);
                        }
                    }
                    else
                    {
                        delta = value - baseValue;
                        if (((value ^ baseValue) & (value ^ delta)) < 0)
                        {
                            return run.FailAt(FastErrorCode.D2, pos);
                        }
                    }

                    prev.Int = value;
                    prev.State = PreviousState.Assigned;
                    prev.Type = type;
                    return nullable ? WriteNullableSigned(ref run, dst, ref pos, delta) : WriteSigned(ref run, dst, ref pos, delta);
                }

            default:
                return run.FailAt(FastErrorCode.S2, pos);
        }
    }

    /// <summary>A dictionary entry by a slot the template compiler resolved (always inside the array: no bounds check).</summary>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    private static ref PreviousValue Previous(PreviousValue[] dict, int slot) =>
        ref Unsafe.Add(ref System.Runtime.InteropServices.MemoryMarshal.GetArrayDataReference(dict), slot);

    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    private static bool AbsentWithPrevious(ref EncodeRun run, Span<byte> dst, ref int pos, ref PmapWriter pm, ref PreviousValue prev, bool hasInitial)
    {
        if (prev.State == PreviousState.Empty || (prev.State == PreviousState.Undefined && !hasInitial))
        {
            prev.State = PreviousState.Empty;
            SetBit(dst, ref pm, false);
            return true;
        }

        prev.State = PreviousState.Empty;
        SetBit(dst, ref pm, true);
        return WriteNull(ref run, dst, ref pos);
    }

    /// <summary>True when the value is the template's initial value (decoded ones even point at it in the pool).</summary>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    private static bool EqualsInitial(in FastValue v, FastMessage message, int poolOffset, int length, byte[] pool)
    {
        if (v.Aux != length)
        {
            return false;
        }

        if (length == 0 || v.Offset == ~poolOffset)
        {
            return true;
        }

        return message.BytesOf(v.Offset, v.Aux).SequenceEqual(pool.AsSpan(poolOffset, length));
    }

    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    private static bool InRange(FastFieldType type, long value) => type switch
    {
        FastFieldType.UInt32 => value >= 0 && value <= uint.MaxValue,
        FastFieldType.Int32 => value >= int.MinValue && value <= int.MaxValue,
        _ => true,
    };

    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    private static bool AddOne(FastFieldType type, long value, out long next)
    {
        next = value + 1;
        return type switch
        {
            FastFieldType.UInt32 => next <= uint.MaxValue,
            FastFieldType.Int32 => next <= int.MaxValue,
            FastFieldType.UInt64 => value != -1,
            _ => value != long.MaxValue,
        };
    }

    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    private static void SetBit(Span<byte> dst, ref PmapWriter pm, bool bit) => pm.Set(bit, dst);

    // ---- primitives (the same encodings as EncodeRun's) ---------------------------------------------------------

    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    private static bool WriteInt(ref EncodeRun run, Span<byte> dst, ref int pos, FastFieldType type, long value, bool nullable)
    {
        if (type is FastFieldType.UInt32 or FastFieldType.UInt64)
        {
            if (nullable)
            {
                return (ulong)value == ulong.MaxValue ? WriteSlow(ref run, ref pos, type, value, true) : WriteUnsigned(ref run, dst, ref pos, (ulong)value + 1);
            }

            return WriteUnsigned(ref run, dst, ref pos, (ulong)value);
        }

        return nullable ? WriteNullableSigned(ref run, dst, ref pos, value) : WriteSigned(ref run, dst, ref pos, value);
    }

    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    private static bool WriteUnsigned(ref EncodeRun run, Span<byte> dst, ref int pos, ulong value)
    {
        int p = pos;
        if (value < 0x80 && (uint)p < (uint)dst.Length)
        {
            dst[p] = (byte)(value | 0x80);
            pos = p + 1;
            return true;
        }

        if (value < 0x4000 && (uint)(p + 1) < (uint)dst.Length)
        {
            dst[p] = (byte)(value >> 7);
            dst[p + 1] = (byte)((value & 0x7F) | 0x80);
            pos = p + 2;
            return true;
        }

        return WriteGroups(ref run, dst, ref pos, value, StopBitWriter.UnsignedLength(value), signed: false);
    }

    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    private static bool WriteSigned(ref EncodeRun run, Span<byte> dst, ref int pos, long value)
    {
        int p = pos;
        if (value >= -64 && value < 64 && (uint)p < (uint)dst.Length)
        {
            dst[p] = (byte)((value & 0x7F) | 0x80);
            pos = p + 1;
            return true;
        }

        return WriteGroups(ref run, dst, ref pos, (ulong)value, StopBitWriter.SignedLength(value), signed: true);
    }

    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    private static bool WriteNullableSigned(ref EncodeRun run, Span<byte> dst, ref int pos, long value)
    {
        if (value == long.MaxValue)
        {
            return WriteSlow(ref run, ref pos, FastFieldType.Int64, value, true); // 2^63 after the +1: the interpreter's carry
        }

        return WriteSigned(ref run, dst, ref pos, value >= 0 ? value + 1 : value);
    }

    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    private static bool WriteNull(ref EncodeRun run, Span<byte> dst, ref int pos)
    {
        if ((uint)pos >= (uint)dst.Length)
        {
            return run.FailAt(FastErrorCode.BufferTooSmall, pos);
        }

        dst[pos++] = 0x80;
        return true;
    }

    /// <summary>An integer of more than the inline paths' bytes.</summary>
    private static bool WriteGroups(ref EncodeRun run, Span<byte> dst, ref int pos, ulong value, int length, bool signed)
    {
        if (!StopBitWriter.TryWrite(dst, pos, value, length, signed))
        {
            return run.FailAt(FastErrorCode.BufferTooSmall, pos);
        }

        pos += length;
        return true;
    }

    /// <summary>The 10-byte nullable extremes (2^63, 2^64): the interpreter's writer, the position handed over and taken back.</summary>
    private static bool WriteSlow(ref EncodeRun run, ref int pos, FastFieldType type, long value, bool nullable)
    {
        run.Position = pos;
        bool ok = run.WriteInteger(type, value, nullable);
        pos = run.Position;
        return ok;
    }

    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    private static bool WriteBytes(ref EncodeRun run, Span<byte> dst, ref int pos, bool ascii, ReadOnlySpan<byte> value, bool nullable)
    {
        int p = pos;
        if (ascii && value.Length > 0 && value[0] != 0 && value.Length < dst.Length - p)
        {
            // An ordinary ASCII string: the bytes, the stop bit on the last one.
            for (int i = 0; i < value.Length; i++)
            {
                byte b = value[i];
                if (b >= 0x80)
                {
                    return run.FailAt(FastErrorCode.D11, p);
                }

                dst[p + i] = b;
            }

            dst[p + value.Length - 1] |= 0x80;
            pos = p + value.Length;
            return true;
        }

        run.Position = pos;
        bool ok = run.WriteValueBytes(ascii, value, nullable);
        pos = run.Position;
        return ok;
    }
}
