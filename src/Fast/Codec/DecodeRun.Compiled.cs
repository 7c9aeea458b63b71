using System.Runtime.CompilerServices;
using RapidFix.Fast.Messages;
using RapidFix.Fast.Templates;

namespace RapidFix.Fast.Codec;

/// <summary>
/// Entry points for template code compiled by <see cref="BodyCompiler"/>: each takes one instruction's properties
/// as arguments, which the compiled code passes as constants, so once inlined the JIT folds the operator, type,
/// nullability, slots and initial value away. Only used when the handler is <see cref="FastMessageWriter"/>.
/// </summary>
internal ref partial struct DecodeRun<THandler>
{
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    internal bool CompiledInt(ref PresenceMap pm, int slot, FastOperator op, FastFieldType type, bool optional, bool nullable, bool usesBit, int dictSlot, bool hasInitial, long initial)
    {
        bool bit = usesBit && pm.Next(_data);
        int r = IntOperator(op, type, optional, nullable, dictSlot, hasInitial, initial, bit, out long value);
        ref var writer = ref Unsafe.As<THandler, FastMessageWriter>(ref _handler);
        if (r == Present)
        {
            writer.SetInteger(slot, type is FastFieldType.UInt32 or FastFieldType.UInt64 ? FastValueKind.UnsignedInteger : FastValueKind.Integer, value);
            return true;
        }

        if (r == Absent)
        {
            writer.SetAbsent(slot);
            return true;
        }

        return false;
    }

    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    internal bool CompiledSplitDecimal(
        ref PresenceMap pm,
        int slot,
        bool optional,
        FastOperator exponentOp,
        bool exponentNullable,
        bool exponentUsesBit,
        int exponentDict,
        bool exponentHasInitial,
        long exponentInitial,
        FastOperator mantissaOp,
        bool mantissaUsesBit,
        int mantissaDict,
        bool mantissaHasInitial,
        long mantissaInitial)
    {
        int at = _pos;
        ref var writer = ref Unsafe.As<THandler, FastMessageWriter>(ref _handler);
        bool bit = exponentUsesBit && pm.Next(_data);
        int r = IntOperator(exponentOp, FastFieldType.Int32, optional, exponentNullable, exponentDict, exponentHasInitial, exponentInitial, bit, out long exponent);
        if (r != Present)
        {
            if (r == Absent)
            {
                writer.SetAbsent(slot); // no mantissa bit or byte
                return true;
            }

            return false;
        }

        if (exponent < -63 || exponent > 63)
        {
            return Fail(FastErrorCode.R1, at);
        }

        bit = mantissaUsesBit && pm.Next(_data);
        r = IntOperator(mantissaOp, FastFieldType.Int64, false, false, mantissaDict, mantissaHasInitial, mantissaInitial, bit, out long mantissa);
        if (r == Present)
        {
            writer.SetDecimal(slot, mantissa, (int)exponent);
            return true;
        }

        return r != Failed && Fail(FastErrorCode.D6, at);
    }

    /// <summary>A constant, or a default whose bit is clear: the template's own value, referenced in the constant pool.</summary>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    internal bool CompiledBytesInitial(ref PresenceMap pm, int slot, int fieldIndex, FastOperator op, bool optional, bool usesBit, bool hasInitial, int poolOffset, int length)
    {
        bool bit = usesBit && pm.Next(_data);
        ref var writer = ref Unsafe.As<THandler, FastMessageWriter>(ref _handler);
        bool fromTemplate = op == FastOperator.Constant ? !optional || bit : !bit;
        if (fromTemplate)
        {
            if (op == FastOperator.Constant || hasInitial)
            {
                writer.SetPooledBytes(slot, poolOffset, length);
            }
            else
            {
                writer.SetAbsent(slot);
            }

            return true;
        }

        if (op == FastOperator.Constant)
        {
            writer.SetAbsent(slot);
            return true;
        }

        return AsciiIntoMessage(slot, fieldIndex, true);
    }

    /// <summary>A string without operator.</summary>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    internal bool CompiledBytesNone(int slot, int fieldIndex) => AsciiIntoMessage(slot, fieldIndex, false);

    /// <summary>
    /// A string value on the wire: an ordinary ASCII string (first byte not zero) is copied once, straight into
    /// the message; NULL, empty, "\0", overlong forms, byte vectors and errors take the interpreter's path.
    /// </summary>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    private bool AsciiIntoMessage(int slot, int fieldIndex, bool bit)
    {
        var field = _decoder.Templates.Fields[fieldIndex];
        var data = _data;
        int start = _pos;
        if (field.Code == Opcode.Ascii && (uint)start < (uint)data.Length && (data[start] & 0x7F) != 0)
        {
            int limit = Math.Min(data.Length, start + _decoder.Scratch.Length);
            int p = start;
            while (p < limit && data[p] < 0x80)
            {
                p++;
            }

            if (p < limit)
            {
                ref var writer = ref Unsafe.As<THandler, FastMessageWriter>(ref _handler);
                if (!writer.SetAsciiFromWire(slot, data.Slice(start, p + 1 - start)))
                {
                    return Fail(FastErrorCode.CapacityExceeded, start);
                }

                _pos = p + 1;
                return true;
            }
        }

        return BytesOperator(field, bit);
    }

    /// <summary>A copy string or byte vector: the common case (bit clear, previous value assigned) inline, the rest interpreted.</summary>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    internal bool CompiledBytesCopy(ref PresenceMap pm, int slot, int fieldIndex, FastFieldType type, int dictSlot)
    {
        bool bit = pm.Next(_data);
        if (!bit)
        {
            ref var prev = ref _dict[dictSlot];
            if (prev.State == PreviousState.Assigned && prev.Type == type)
            {
                ref var writer = ref Unsafe.As<THandler, FastMessageWriter>(ref _handler);
                return writer.SetBytes(slot, _decoder.State.Bytes[dictSlot].AsSpan(0, prev.Length)) || Fail(FastErrorCode.CapacityExceeded, _pos);
            }
        }

        return BytesOperator(_decoder.Templates.Fields[fieldIndex], bit);
    }

    /// <summary>Any other instruction: the interpreter's code for it.</summary>
    [MethodImpl(MethodImplOptions.NoInlining)]
    internal bool CompiledGeneric(ref PresenceMap pm, int fieldIndex, int depth) =>
        One(_decoder.Templates.Fields[fieldIndex], ref pm, depth);
}
