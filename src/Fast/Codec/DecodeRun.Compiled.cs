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

        return BytesOperator(_decoder.Templates.Fields[fieldIndex], true);
    }

    /// <summary>Any other instruction: the interpreter's code for it.</summary>
    [MethodImpl(MethodImplOptions.NoInlining)]
    internal bool CompiledGeneric(ref PresenceMap pm, int fieldIndex, int depth) =>
        One(_decoder.Templates.Fields[fieldIndex], ref pm, depth);
}
