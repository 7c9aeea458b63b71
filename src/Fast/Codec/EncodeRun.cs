using System.Numerics;
using System.Runtime.CompilerServices;
using RapidFix.Fast.Messages;
using RapidFix.Fast.Templates;

namespace RapidFix.Fast.Codec;

/// <summary>
/// One message being encoded. Each segment reserves room for its longest presence map, writes its fields, then
/// writes the shortest presence map (trailing zero bits dropped) and closes the gap.
/// </summary>
internal ref partial struct EncodeRun
{
    private readonly Span<byte> _dst;
    private readonly FastEncoder _encoder;
    private readonly FastMessage _message;
    private readonly PreviousValue[] _dict;
    private int _pos;
    private FastErrorCode _error;
    private int _errorOffset;
    private uint _templateId;

    public EncodeRun(FastEncoder encoder, FastMessage message, Span<byte> destination)
    {
        _encoder = encoder;
        _message = message;
        _dst = destination;
        _dict = encoder.State.Values;
    }

    public FastResult Message()
    {
        var template = _message.Template;
        if (template is null || _message.ScopeCount == 0)
        {
            return new FastResult(FastErrorCode.InvalidMessage, 0, 0);
        }

        if (!Segment(template, 0))
        {
            return new FastResult(_error, _errorOffset, _templateId);
        }

        return new FastResult(FastErrorCode.None, _pos, _templateId);
    }

    private bool Segment(FastTemplate template, int scope)
    {
        if (template.Id is not uint tid)
        {
            return Fail(FastErrorCode.D9, _pos);
        }

        _templateId = tid;
        if (!BeginPmap(template.Body.PmapBits + 1, out var pm))
        {
            return false;
        }

        var state = _encoder.State;
        if (state.TemplateIdAssigned && state.TemplateId == tid)
        {
            SetBit(ref pm, false);
        }
        else
        {
            SetBit(ref pm, true);
            if (!WriteUnsigned(tid))
            {
                return false;
            }

            state.TemplateId = tid;
            state.TemplateIdAssigned = true;
        }

        if (template.Reset)
        {
            // SCP 1.1: the template's reset property resets every dictionary, the template identifier's previous
            // value included, before the message's fields are processed (so the next message names its template).
            state.Reset();
        }

        return Body(template.Body, _message.Scopes[scope].Base, ref pm) && EndPmap(ref pm);
    }

    /// <summary>Encodes a body with its compiled code when it has some, else with the interpreter.</summary>
    private bool Body(FastGroupBody body, int valueBase, ref PmapWriter pm) =>
        body.CompiledEncoder is CompiledEncodeBody compiled
            ? compiled(ref this, valueBase, ref pm)
            : Instructions(body.Instructions, valueBase, ref pm);

    private bool Instructions(FastField[] instructions, int valueBase, ref PmapWriter pm)
    {
        foreach (var f in instructions)
        {
            if (!One(f, valueBase, ref pm))
            {
                return false;
            }
        }

        return true;
    }

    private bool One(FastField f, int valueBase, ref PmapWriter pm)
    {
        ref readonly var v = ref _message.Values[valueBase + f.Slot];
        return f.Code switch
        {
            Opcode.Int => Integer(f, in v, ref pm),
            Opcode.Decimal => Decimal(f, in v, ref pm),
            Opcode.SplitDecimal => SplitDecimal(f, in v, ref pm),
            Opcode.Ascii or Opcode.Bytes => Bytes(f, in v, ref pm),
            Opcode.Sequence => Sequence(f, in v, ref pm),
            Opcode.Group => Group(f, in v, valueBase, ref pm),
            _ => TemplateRef(f, in v),
        };
    }

    // ---- structure ---------------------------------------------------------------------------------------------

    private bool Sequence(FastField f, in FastValue v, ref PmapWriter pm)
    {
        bool present = v.KindValue == FastValueKind.Sequence;
        if (!present && v.KindValue != FastValueKind.Absent)
        {
            return Fail(FastErrorCode.InvalidMessage, _pos);
        }

        if (!IntegerOperator(f.Length!, present, v.Int, ref pm))
        {
            return false;
        }

        if (!present)
        {
            return true;
        }

        var body = f.Body!;
        int count = (int)v.Int;
        for (int i = 0; i < count; i++)
        {
            int valueBase = _message.Scopes[v.Aux + i].Base;
            if (body.HasPmap)
            {
                if (!BeginPmap(body.PmapBits, out var entryPm) || !Body(body, valueBase, ref entryPm) || !EndPmap(ref entryPm))
                {
                    return false;
                }
            }
            else
            {
                var none = default(PmapWriter);
                if (!Body(body, valueBase, ref none))
                {
                    return false;
                }
            }
        }

        return true;
    }

    private bool Group(FastField f, in FastValue v, int valueBase, ref PmapWriter pm)
    {
        bool present = v.KindValue == FastValueKind.Group || !f.IsOptional;
        if (f.IsOptional)
        {
            SetBit(ref pm, present);
            if (!present)
            {
                return true;
            }
        }

        var body = f.Body!;
        if (body.HasPmap)
        {
            return BeginPmap(body.PmapBits, out var groupPm) && Body(body, valueBase, ref groupPm) && EndPmap(ref groupPm);
        }

        var none = default(PmapWriter);
        return Body(body, valueBase, ref none);
    }

    private bool TemplateRef(FastField f, in FastValue v)
    {
        if (v.KindValue != FastValueKind.TemplateReference)
        {
            return Fail(FastErrorCode.InvalidMessage, _pos);
        }

        var template = _message.Scopes[v.Aux].Body.Template;
        return template is not null ? Segment(template, v.Aux) : Fail(FastErrorCode.D9, _pos);
    }

    // ---- integers ----------------------------------------------------------------------------------------------

    private bool Integer(FastField f, in FastValue v, ref PmapWriter pm)
    {
        bool present = v.KindValue is FastValueKind.Integer or FastValueKind.UnsignedInteger;
        if (!present && v.KindValue != FastValueKind.Absent)
        {
            return Fail(FastErrorCode.D1, _pos);
        }

        if (present && !InRange(f, v.Int))
        {
            return Fail(FastErrorCode.D2, _pos);
        }

        return IntegerOperator(f, present, v.Int, ref pm);
    }

    private static bool InRange(FastField f, long value) => f.Type switch
    {
        FastFieldType.UInt32 => value >= 0 && value <= uint.MaxValue,
        FastFieldType.Int32 => value >= int.MinValue && value <= int.MaxValue,
        _ => true,
    };

    /// <summary>Writes an integer field (or a sequence length, or a decimal's exponent or mantissa) with its operator.</summary>
    private bool IntegerOperator(FastField f, bool present, long value, ref PmapWriter pm)
    {
        if (!present && !f.IsOptional && f.Operator != FastOperator.Constant)
        {
            return Fail(FastErrorCode.InvalidMessage, _pos);
        }

        switch (f.Operator)
        {
            case FastOperator.None:
                return present ? WriteInt(f, value, f.Nullable) : WriteNull();

            case FastOperator.Constant:
                if (present && value != f.InitialInt)
                {
                    return Fail(FastErrorCode.D3, _pos);
                }

                if (f.IsOptional)
                {
                    SetBit(ref pm, present);
                }

                return true;

            case FastOperator.Default:
                if (present)
                {
                    if (f.HasInitial && value == f.InitialInt)
                    {
                        SetBit(ref pm, false);
                        return true;
                    }

                    SetBit(ref pm, true);
                    return WriteInt(f, value, f.Nullable);
                }

                if (!f.HasInitial)
                {
                    SetBit(ref pm, false);
                    return true;
                }

                SetBit(ref pm, true);
                return WriteNull();

            case FastOperator.Copy:
            case FastOperator.Increment:
                {
                    ref var prev = ref _dict[f.DictSlot];
                    if (!present)
                    {
                        return AbsentWithPrevious(f, ref prev, ref pm);
                    }

                    bool implied = false;
                    if (prev.State == PreviousState.Assigned && prev.Type == f.Type)
                    {
                        implied = f.Operator == FastOperator.Copy
                            ? prev.Int == value
                            : AddOne(f, prev.Int, out long next) && next == value;
                    }
                    else if (prev.State == PreviousState.Undefined && f.HasInitial)
                    {
                        implied = f.InitialInt == value;
                    }

                    prev.Int = value;
                    prev.State = PreviousState.Assigned;
                    prev.Type = f.Type;
                    SetBit(ref pm, !implied);
                    return implied || WriteInt(f, value, f.Nullable);
                }

            case FastOperator.Delta:
                {
                    if (!present)
                    {
                        return WriteNull();
                    }

                    ref var prev = ref _dict[f.DictSlot];
                    long baseValue;
                    switch (prev.State)
                    {
                        case PreviousState.Assigned:
                            if (prev.Type != f.Type)
                            {
                                return Fail(FastErrorCode.D4, _pos);
                            }

                            baseValue = prev.Int;
                            break;
                        case PreviousState.Undefined:
                            baseValue = f.HasInitial ? f.InitialInt : 0;
                            break;
                        default:
                            return Fail(FastErrorCode.D6, _pos);
                    }

                    long delta;
                    if (f.Type == FastFieldType.UInt64)
                    {
                        ulong a = (ulong)value;
                        ulong b = (ulong)baseValue;
                        delta = (long)(a - b);
                        if ((a >= b) != (delta >= 0))
                        {
                            return Fail(FastErrorCode.D2, _pos);
                        }
                    }
                    else
                    {
                        delta = value - baseValue;
                        if (((value ^ baseValue) & (value ^ delta)) < 0)
                        {
                            return Fail(FastErrorCode.D2, _pos);
                        }
                    }

                    prev.Int = value;
                    prev.State = PreviousState.Assigned;
                    prev.Type = f.Type;
                    return f.Nullable ? WriteNullableSigned(delta) : WriteSigned(delta);
                }

            default:
                return Fail(FastErrorCode.S2, _pos);
        }
    }

    private static bool AddOne(FastField f, long value, out long next)
    {
        next = value + 1;
        return f.Type switch
        {
            FastFieldType.UInt32 => next <= uint.MaxValue,
            FastFieldType.Int32 => next <= int.MaxValue,
            FastFieldType.UInt64 => value != -1,
            _ => value != long.MaxValue,
        };
    }

    /// <summary>An optional copy, increment or tail field that is absent: implied when the previous value says so, else NULL.</summary>
    private bool AbsentWithPrevious(FastField f, ref PreviousValue prev, ref PmapWriter pm)
    {
        if (prev.State == PreviousState.Empty || (prev.State == PreviousState.Undefined && !f.HasInitial))
        {
            prev.State = PreviousState.Empty;
            SetBit(ref pm, false);
            return true;
        }

        prev.State = PreviousState.Empty;
        SetBit(ref pm, true);
        return WriteNull();
    }

    private bool WriteInt(FastField f, long value, bool nullable)
    {
        if (f.Type is FastFieldType.UInt32 or FastFieldType.UInt64)
        {
            return nullable ? WriteNullableUnsigned((ulong)value) : WriteUnsigned((ulong)value);
        }

        return nullable ? WriteNullableSigned(value) : WriteSigned(value);
    }

    // ---- decimals ----------------------------------------------------------------------------------------------

    private bool Decimal(FastField f, in FastValue v, ref PmapWriter pm)
    {
        bool present = v.KindValue == FastValueKind.Decimal || v.KindValue == FastValueKind.Integer;
        if (!present && v.KindValue != FastValueKind.Absent)
        {
            return Fail(FastErrorCode.D1, _pos);
        }

        if (!present && !f.IsOptional && f.Operator != FastOperator.Constant)
        {
            return Fail(FastErrorCode.InvalidMessage, _pos);
        }

        long mantissa = v.Int;
        int exponent = v.KindValue == FastValueKind.Decimal ? v.Aux : 0;
        if (present && (exponent < -63 || exponent > 63))
        {
            return Fail(FastErrorCode.R1, _pos);
        }

        switch (f.Operator)
        {
            case FastOperator.None:
                return present ? WriteDecimal(mantissa, exponent, f.Nullable) : WriteNull();

            case FastOperator.Constant:
                if (present && (!TryRescale(mantissa, exponent, f.InitialExponent, out long scaled) || scaled != f.InitialInt))
                {
                    return Fail(FastErrorCode.D3, _pos);
                }

                if (f.IsOptional)
                {
                    SetBit(ref pm, present);
                }

                return true;

            case FastOperator.Default:
                if (present)
                {
                    bool implied = f.HasInitial && mantissa == f.InitialInt && exponent == f.InitialExponent;
                    SetBit(ref pm, !implied);
                    return implied || WriteDecimal(mantissa, exponent, f.Nullable);
                }

                SetBit(ref pm, f.HasInitial);
                return !f.HasInitial || WriteNull();

            case FastOperator.Copy:
                {
                    ref var prev = ref _dict[f.DictSlot];
                    if (!present)
                    {
                        return AbsentWithPrevious(f, ref prev, ref pm);
                    }

                    bool implied = prev.State switch
                    {
                        PreviousState.Assigned => prev.Type == FastFieldType.Decimal && prev.Int == mantissa && prev.Exponent == exponent,
                        PreviousState.Undefined => f.HasInitial && f.InitialInt == mantissa && f.InitialExponent == exponent,
                        _ => false,
                    };
                    prev.Int = mantissa;
                    prev.Exponent = exponent;
                    prev.State = PreviousState.Assigned;
                    prev.Type = FastFieldType.Decimal;
                    SetBit(ref pm, !implied);
                    return implied || WriteDecimal(mantissa, exponent, f.Nullable);
                }

            case FastOperator.Delta:
                {
                    if (!present)
                    {
                        return WriteNull();
                    }

                    ref var prev = ref _dict[f.DictSlot];
                    long baseMantissa;
                    int baseExponent;
                    switch (prev.State)
                    {
                        case PreviousState.Assigned:
                            if (prev.Type != FastFieldType.Decimal)
                            {
                                return Fail(FastErrorCode.D4, _pos);
                            }

                            baseMantissa = prev.Int;
                            baseExponent = prev.Exponent;
                            break;
                        case PreviousState.Undefined:
                            baseMantissa = f.HasInitial ? f.InitialInt : 0;
                            baseExponent = f.HasInitial ? f.InitialExponent : 0;
                            break;
                        default:
                            return Fail(FastErrorCode.D6, _pos);
                    }

                    long mantissaDelta = mantissa - baseMantissa;
                    if (((mantissa ^ baseMantissa) & (mantissa ^ mantissaDelta)) < 0)
                    {
                        return Fail(FastErrorCode.R1, _pos);
                    }

                    prev.Int = mantissa;
                    prev.Exponent = exponent;
                    prev.State = PreviousState.Assigned;
                    prev.Type = FastFieldType.Decimal;
                    long exponentDelta = exponent - baseExponent;
                    return (f.Nullable ? WriteNullableSigned(exponentDelta) : WriteSigned(exponentDelta)) && WriteSigned(mantissaDelta);
                }

            default:
                return Fail(FastErrorCode.S2, _pos);
        }
    }

    /// <summary>The mantissa of the same number with exponent <paramref name="target"/>, when exact and in range.</summary>
    internal static bool TryRescale(long mantissa, int exponent, int target, out long result)
    {
        result = mantissa;
        for (int e = exponent; e > target; e--)
        {
            if (result > long.MaxValue / 10 || result < long.MinValue / 10)
            {
                return false;
            }

            result *= 10;
        }

        for (int e = exponent; e < target; e++)
        {
            if (result % 10 != 0)
            {
                return false;
            }

            result /= 10;
        }

        return true;
    }

    private bool WriteDecimal(long mantissa, int exponent, bool nullable) =>
        (nullable ? WriteNullableSigned(exponent) : WriteSigned(exponent)) && WriteSigned(mantissa);

    private bool SplitDecimal(FastField f, in FastValue v, ref PmapWriter pm)
    {
        bool present = v.KindValue == FastValueKind.Decimal || v.KindValue == FastValueKind.Integer;
        if (!present && v.KindValue != FastValueKind.Absent)
        {
            return Fail(FastErrorCode.D1, _pos);
        }

        int exponent = v.KindValue == FastValueKind.Decimal ? v.Aux : 0;
        if (present && (exponent < -63 || exponent > 63))
        {
            return Fail(FastErrorCode.R1, _pos);
        }

        long mantissa = v.Int;
        var exponentField = f.Exponent!;
        if (present && exponentField.Operator == FastOperator.Constant && exponent != exponentField.InitialInt)
        {
            // A constant exponent fixes the scale: express the value with it when that is exact (5200 as 520e1).
            if (!TryRescale(mantissa, exponent, (int)exponentField.InitialInt, out mantissa))
            {
                return Fail(FastErrorCode.D3, _pos);
            }

            exponent = (int)exponentField.InitialInt;
        }

        if (!IntegerOperator(exponentField, present, exponent, ref pm))
        {
            return false;
        }

        return !present || IntegerOperator(f.Mantissa!, true, mantissa, ref pm);
    }

    // ---- strings and byte vectors ----------------------------------------------------------------------------

    private bool Bytes(FastField f, in FastValue v, ref PmapWriter pm)
    {
        bool present = v.KindValue == FastValueKind.Bytes;
        if (!present && v.KindValue != FastValueKind.Absent)
        {
            return Fail(FastErrorCode.D1, _pos);
        }

        if (!present && !f.IsOptional && f.Operator != FastOperator.Constant)
        {
            return Fail(FastErrorCode.InvalidMessage, _pos);
        }

        ReadOnlySpan<byte> value = present ? _message.BytesOf(v.Offset, v.Aux) : default;
        switch (f.Operator)
        {
            case FastOperator.None:
                return present ? WriteBytes(f, value, f.Nullable) : WriteNull();

            case FastOperator.Constant:
                if (present && !value.SequenceEqual(f.InitialBytes))
                {
                    return Fail(FastErrorCode.D3, _pos);
                }

                if (f.IsOptional)
                {
                    SetBit(ref pm, present);
                }

                return true;

            case FastOperator.Default:
                if (present)
                {
                    bool implied = f.HasInitial && value.SequenceEqual(f.InitialBytes);
                    SetBit(ref pm, !implied);
                    return implied || WriteBytes(f, value, f.Nullable);
                }

                SetBit(ref pm, f.HasInitial);
                return !f.HasInitial || WriteNull();

            case FastOperator.Copy:
                {
                    ref var prev = ref _dict[f.DictSlot];
                    if (!present)
                    {
                        return AbsentWithPrevious(f, ref prev, ref pm);
                    }

                    byte[] buffer = _encoder.State.Bytes[f.DictSlot]!;
                    if (value.Length > buffer.Length)
                    {
                        return Fail(FastErrorCode.CapacityExceeded, _pos);
                    }

                    bool implied = prev.State switch
                    {
                        PreviousState.Assigned => prev.Type == f.Type && value.SequenceEqual(buffer.AsSpan(0, prev.Length)),
                        PreviousState.Undefined => f.HasInitial && value.SequenceEqual(f.InitialBytes),
                        _ => false,
                    };
                    Remember(ref prev, f, buffer, value);
                    SetBit(ref pm, !implied);
                    return implied || WriteBytes(f, value, f.Nullable);
                }

            case FastOperator.Delta:
                return DeltaBytes(f, present, value);

            case FastOperator.Tail:
                return TailBytes(f, present, value, ref pm);

            default:
                return Fail(FastErrorCode.S2, _pos);
        }
    }

    private static void Remember(ref PreviousValue prev, FastField f, byte[] buffer, ReadOnlySpan<byte> value)
    {
        value.CopyTo(buffer);
        prev.Length = value.Length;
        prev.State = PreviousState.Assigned;
        prev.Type = f.Type;
    }

    private bool DeltaBytes(FastField f, bool present, ReadOnlySpan<byte> value)
    {
        if (!present)
        {
            return WriteNull();
        }

        ref var prev = ref _dict[f.DictSlot];
        byte[] buffer = _encoder.State.Bytes[f.DictSlot]!;
        if (value.Length > buffer.Length)
        {
            return Fail(FastErrorCode.CapacityExceeded, _pos);
        }

        ReadOnlySpan<byte> baseValue;
        switch (prev.State)
        {
            case PreviousState.Assigned:
                if (prev.Type != f.Type)
                {
                    return Fail(FastErrorCode.D4, _pos);
                }

                baseValue = buffer.AsSpan(0, prev.Length);
                break;
            case PreviousState.Undefined:
                baseValue = f.InitialBytes;
                break;
            default:
                return Fail(FastErrorCode.D6, _pos);
        }

        int prefix = value.CommonPrefixLength(baseValue);
        int suffix = CommonSuffixLength(value, baseValue);
        long subtraction;
        ReadOnlySpan<byte> delta;

        // Keep the longer common part; on a tie, append (a positive subtraction length).
        if (suffix > prefix)
        {
            subtraction = -(baseValue.Length - suffix) - 1;
            delta = value.Slice(0, value.Length - suffix);
        }
        else
        {
            subtraction = baseValue.Length - prefix;
            delta = value.Slice(prefix);
        }

        bool ok = (f.Nullable ? WriteNullableSigned(subtraction) : WriteSigned(subtraction)) && WriteBytes(f, delta, false);
        Remember(ref prev, f, buffer, value);
        return ok;
    }

    private static int CommonSuffixLength(ReadOnlySpan<byte> a, ReadOnlySpan<byte> b)
    {
        int n = Math.Min(a.Length, b.Length);
        int i = 0;
        while (i < n && a[a.Length - 1 - i] == b[b.Length - 1 - i])
        {
            i++;
        }

        return i;
    }

    private bool TailBytes(FastField f, bool present, ReadOnlySpan<byte> value, ref PmapWriter pm)
    {
        ref var prev = ref _dict[f.DictSlot];
        if (!present)
        {
            return AbsentWithPrevious(f, ref prev, ref pm);
        }

        byte[] buffer = _encoder.State.Bytes[f.DictSlot]!;
        if (value.Length > buffer.Length)
        {
            return Fail(FastErrorCode.CapacityExceeded, _pos);
        }

        bool assigned = prev.State == PreviousState.Assigned && prev.Type == f.Type;
        if ((assigned && value.SequenceEqual(buffer.AsSpan(0, prev.Length)))
            || (prev.State == PreviousState.Undefined && f.HasInitial && value.SequenceEqual(f.InitialBytes)))
        {
            Remember(ref prev, f, buffer, value);
            SetBit(ref pm, false);
            return true;
        }

        ReadOnlySpan<byte> baseValue = assigned ? buffer.AsSpan(0, prev.Length) : f.InitialBytes;
        ReadOnlySpan<byte> tail;
        if (value.Length == baseValue.Length)
        {
            tail = value.Slice(value.CommonPrefixLength(baseValue));
        }
        else if (value.Length > baseValue.Length)
        {
            tail = value;
        }
        else
        {
            return Fail(FastErrorCode.D3, _pos); // a tail cannot shorten the value
        }

        SetBit(ref pm, true);
        bool ok = WriteBytes(f, tail, f.Nullable);
        Remember(ref prev, f, buffer, value);
        return ok;
    }

    private bool WriteBytes(FastField f, ReadOnlySpan<byte> value, bool nullable)
    {
        if (f.Code == Opcode.Ascii)
        {
            return WriteAscii(value, nullable);
        }

        if (!(nullable ? WriteNullableUnsigned((ulong)value.Length) : WriteUnsigned((ulong)value.Length)))
        {
            return false;
        }

        if (value.Length > _dst.Length - _pos)
        {
            return Fail(FastErrorCode.BufferTooSmall, _pos);
        }

        value.CopyTo(_dst.Slice(_pos));
        _pos += value.Length;
        return true;
    }

    private bool WriteAscii(ReadOnlySpan<byte> value, bool nullable)
    {
        int extra = nullable ? 1 : 0;
        if (value.Length + 2 + extra > _dst.Length - _pos)
        {
            return Fail(FastErrorCode.BufferTooSmall, _pos);
        }

        if (value.IsEmpty)
        {
            if (nullable)
            {
                _dst[_pos++] = 0x00;
            }

            _dst[_pos++] = 0x80;
            return true;
        }

        if (value[0] == 0)
        {
            if (value.Length != 1)
            {
                return Fail(FastErrorCode.D3, _pos); // a string starting with NUL has no non-overlong encoding
            }

            _dst[_pos++] = 0x00;
            if (nullable)
            {
                _dst[_pos++] = 0x00;
            }

            _dst[_pos++] = 0x80;
            return true;
        }

        foreach (byte b in value)
        {
            if (b >= 0x80)
            {
                return Fail(FastErrorCode.D11, _pos);
            }
        }

        value.CopyTo(_dst.Slice(_pos));
        _pos += value.Length;
        _dst[_pos - 1] |= 0x80;
        return true;
    }

    // ---- presence maps -----------------------------------------------------------------------------------------

    private bool BeginPmap(int bits, out PmapWriter pm)
    {
        int reserved = Math.Max(1, (bits + 6) / 7);
        pm = new PmapWriter { Start = _pos, Reserved = reserved };
        if (reserved > _dst.Length - _pos)
        {
            return Fail(FastErrorCode.BufferTooSmall, _pos);
        }

        if (reserved > PmapWriter.RegisterBytes)
        {
            // Bits past the register's are set in memory.
            _dst.Slice(_pos + PmapWriter.RegisterBytes, reserved - PmapWriter.RegisterBytes).Clear();
        }

        _pos += reserved;
        return true;
    }

    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    private void SetBit(ref PmapWriter pm, bool bit) => pm.Set(bit, _dst);

    /// <summary>Writes the shortest presence map (trailing zero bytes dropped) and moves the fields after it.</summary>
    private bool EndPmap(ref PmapWriter pm)
    {
        int reserved = pm.Reserved;
        var map = _dst.Slice(pm.Start, reserved);
        int used;
        if (reserved <= PmapWriter.RegisterBytes)
        {
            // The last set bit gives the length: map bit b is register bit 62 - b.
            used = pm.Bits == 0 ? 1 : ((PmapWriter.RegisterBits - 1 - BitOperations.TrailingZeroCount(pm.Bits)) / 7) + 1;
            for (int k = 0; k < used; k++)
            {
                map[k] = pm.RegisterByte(k);
            }
        }
        else
        {
            for (int k = 0; k < PmapWriter.RegisterBytes; k++)
            {
                map[k] = pm.RegisterByte(k);
            }

            used = reserved;
            while (used > 1 && map[used - 1] == 0)
            {
                used--;
            }
        }

        map[used - 1] |= 0x80;
        int gap = reserved - used;
        if (gap > 0)
        {
            int fieldsStart = pm.Start + reserved;
            SmallCopy.MoveDown(_dst.Slice(fieldsStart - gap, _pos - fieldsStart + gap), gap);
            _pos -= gap;
        }

        return true;
    }

    // ---- primitives --------------------------------------------------------------------------------------------

    private bool WriteNull()
    {
        if (_pos >= _dst.Length)
        {
            return Fail(FastErrorCode.BufferTooSmall, _pos);
        }

        _dst[_pos++] = 0x80;
        return true;
    }

    private bool WriteUnsigned(ulong value)
    {
        if (value < 0x80 && _pos < _dst.Length)
        {
            _dst[_pos++] = (byte)(value | 0x80);
            return true;
        }

        return WriteGroups(value, StopBitWriter.UnsignedLength(value), signed: false);
    }

    private bool WriteSigned(long value)
    {
        if (value >= -64 && value < 64 && _pos < _dst.Length)
        {
            _dst[_pos++] = (byte)((value & 0x7F) | 0x80);
            return true;
        }

        return WriteGroups((ulong)value, StopBitWriter.SignedLength(value), signed: true);
    }

    private bool WriteGroups(ulong value, int length, bool signed)
    {
        if (!StopBitWriter.TryWrite(_dst, _pos, value, length, signed))
        {
            return Fail(FastErrorCode.BufferTooSmall, _pos);
        }

        _pos += length;
        return true;
    }

    private bool WriteNullableUnsigned(ulong value)
    {
        if (value == ulong.MaxValue)
        {
            return WriteCarry(0x02); // 2^64: one more than a ulong holds
        }

        return WriteUnsigned(value + 1);
    }

    private bool WriteNullableSigned(long value)
    {
        if (value == long.MaxValue)
        {
            return WriteCarry(0x01); // 2^63
        }

        return WriteSigned(value >= 0 ? value + 1 : value);
    }

    private bool WriteCarry(byte first)
    {
        if (10 > _dst.Length - _pos)
        {
            return Fail(FastErrorCode.BufferTooSmall, _pos);
        }

        _dst[_pos] = first;
        _dst.Slice(_pos + 1, 8).Clear();
        _dst[_pos + 9] = 0x80;
        _pos += 10;
        return true;
    }

    private bool Fail(FastErrorCode code, int offset)
    {
        if (_error == FastErrorCode.None)
        {
            _error = code;
            _errorOffset = offset;
        }

        return false;
    }
}
