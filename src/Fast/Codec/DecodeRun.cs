using System.Runtime.CompilerServices;
using RapidFix.Fast.Templates;

namespace RapidFix.Fast.Codec;

/// <summary>
/// One message being decoded: the input, the read position, the handler and the first error. Every read returns
/// false on error after recording the code and offset, so errors travel as values, never as exceptions.
/// </summary>
internal ref partial struct DecodeRun<THandler>
    where THandler : struct, IFastDecodeHandler
{
    private const int Present = 0;
    private const int Absent = 1;
    private const int Failed = -1;

    private readonly ReadOnlySpan<byte> _data;
    private readonly ref THandler _handler;
    private readonly FastDecoder _decoder;
    private readonly PreviousValue[] _dict;
    private int _pos;
    private FastErrorCode _error;
    private int _errorOffset;
    private uint _templateId;

    // Compiled bodies' out-of-line integer reads hand their value back here, not through out parameters: an out
    // argument makes its local address-taken, so every compiled body would keep that value in a stack slot.
    private ulong _slowValue;
    private bool _slowCarry;

    // A compiled body's presence map window while a part of the body runs in a method of its own (BodyCompiler).
    private ulong _pmWindow;

    public DecodeRun(FastDecoder decoder, ReadOnlySpan<byte> data, ref THandler handler)
    {
        _decoder = decoder;
        _data = data;
        _handler = ref handler;
        _dict = decoder.State.Values;
    }

    public FastResult Message()
    {
        if (!Segment(null, 0))
        {
            return new FastResult(_error, _errorOffset, _templateId);
        }

        return new FastResult(FastErrorCode.None, _pos, _templateId);
    }

    /// <summary>A presence map, a template identifier and the template's body: a message, or a dynamic template reference.</summary>
    [MethodImpl(MethodImplOptions.NoInlining)] // keeps the instruction loop's frame small
    private bool Segment(FastField? reference, int depth)
    {
        int start = _pos;
        PresenceMap pm;
        int pmapLength;
        bool idBit;
        if ((uint)start < (uint)_data.Length && _data[start] >= 0x80)
        {
            // One byte, the usual case: no scan, and no R8 check (a template needs at least the identifier's bit).
            idBit = (_data[start] & 0x40) != 0;
            pm = PresenceMap.OneByteAfterFirstBit(_data[start], start + 1);
            pmapLength = 1;
            _pos = start + 1;
        }
        else if (ReadPmap(out pm, out pmapLength))
        {
            idBit = pm.Next(_data);
        }
        else
        {
            return false;
        }

        var state = _decoder.State;
        uint tid;
        if (idBit)
        {
            int at = _pos;
            if (!ReadUnsigned(out ulong raw, out bool carry))
            {
                return false;
            }

            if (carry || raw > uint.MaxValue)
            {
                return Fail(FastErrorCode.D2, at);
            }

            tid = (uint)raw;
            state.TemplateId = tid;
            state.TemplateIdAssigned = true;
        }
        else if (state.TemplateIdAssigned)
        {
            tid = state.TemplateId;
        }
        else
        {
            return Fail(FastErrorCode.D5, _pos);
        }

        _templateId = tid;
        if (!_decoder.Templates.TryGet(tid, out var template))
        {
            return Fail(FastErrorCode.D9, start);
        }

        if (pmapLength > 1 && _decoder.Strict && pmapLength > (template.Body.PmapBits + 7) / 7)
        {
            return Fail(FastErrorCode.R8, start);
        }

        if (template.Reset)
        {
            // SCP 1.1: the template's reset property resets every dictionary, the template identifier's previous
            // value included, before the message's fields are processed (so the next message names its template).
            state.Reset();
        }

        if (reference is null)
        {
            if (!_handler.OnMessageStart(template))
            {
                return Fail(FastErrorCode.CapacityExceeded, start);
            }
        }
        else if (!_handler.OnTemplateRefStart(reference, template))
        {
            return Fail(FastErrorCode.CapacityExceeded, start);
        }

        if (!Body(template.Body, ref pm, depth) || !CheckPmapFullyRead(in pm, start))
        {
            return false;
        }

        if (reference is null)
        {
            _handler.OnMessageEnd(template);
        }
        else
        {
            _handler.OnTemplateRefEnd(reference);
        }

        return true;
    }

    /// <summary>Decodes a body's instructions one by one (the interpreter; compiled bodies do the same without the dispatch).</summary>
    private bool Instructions(FastField[] instructions, ref PresenceMap pm, int depth)
    {
        for (int i = 0; i < instructions.Length; i++)
        {
            if (!One(instructions[i], ref pm, depth))
            {
                return false;
            }
        }

        return true;
    }

    /// <summary>Decodes one instruction.</summary>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    private bool One(FastField f, ref PresenceMap pm, int depth)
    {
        var data = _data;
        bool bit = f.UsesPmapBit && pm.Next(data);
        bool ok;
        switch (f.Code)
        {
            case Opcode.Int:
                {
                    int r = IntOperator(f, bit, out long value);
                    if (r == Present)
                    {
                        _handler.OnInteger(f, value);
                    }
                    else if (r == Absent)
                    {
                        _handler.OnAbsent(f);
                    }

                    ok = r != Failed;
                    break;
                }

            case Opcode.Decimal:
                {
                    int r = DecimalOperator(f, bit, out long mantissa, out int exponent);
                    if (r == Present)
                    {
                        _handler.OnDecimal(f, mantissa, exponent);
                    }
                    else if (r == Absent)
                    {
                        _handler.OnAbsent(f);
                    }

                    ok = r != Failed;
                    break;
                }

            case Opcode.SplitDecimal:
                {
                    // The mantissa's bit is only there when the exponent is present, so the bits are read here, in order.
                    int at = _pos;
                    var exponentField = f.Exponent!;
                    int r = IntOperator(exponentField, exponentField.UsesPmapBit && pm.Next(data), out long exponent);
                    if (r == Present)
                    {
                        if (exponent < -63 || exponent > 63)
                        {
                            return Fail(FastErrorCode.R1, at);
                        }

                        var mantissaField = f.Mantissa!;
                        r = IntOperator(mantissaField, mantissaField.UsesPmapBit && pm.Next(data), out long mantissa);
                        if (r == Present)
                        {
                            _handler.OnDecimal(f, mantissa, (int)exponent);
                        }
                        else if (r == Absent)
                        {
                            return Fail(FastErrorCode.D6, at);
                        }
                    }
                    else if (r == Absent)
                    {
                        // An absent exponent makes the decimal absent: the mantissa takes no bit and no byte.
                        _handler.OnAbsent(f);
                    }

                    ok = r != Failed;
                    break;
                }

            case Opcode.Ascii:
            case Opcode.Bytes:
                ok = BytesOperator(f, bit);
                break;
            case Opcode.Sequence:
                ok = Sequence(f, f.Length!.UsesPmapBit && pm.Next(data), depth);
                break;
            case Opcode.Group:
                ok = Group(f, bit, depth);
                break;
            default:
                ok = depth < _decoder.MaxDepth ? Segment(f, depth + 1) : Fail(FastErrorCode.LimitExceeded, _pos);
                break;
        }

        return ok;
    }

    /// <summary>Decodes a body with its compiled code when it has some for this handler, else with the interpreter.</summary>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    private bool Body(FastGroupBody body, ref PresenceMap pm, int depth) =>
        body.Compiled is CompiledBody<THandler> compiled
            ? compiled(ref this, ref pm, depth)
            : Instructions(body.Instructions, ref pm, depth);

    // ---- structure ---------------------------------------------------------------------------------------------

    [MethodImpl(MethodImplOptions.NoInlining)] // keeps the instruction loop's frame small
    private bool Sequence(FastField f, bool lengthBit, int depth)
    {
        int at = _pos;
        int r = IntOperator(f.Length!, lengthBit, out long length);
        if (r == Failed)
        {
            return false;
        }

        if (r == Absent)
        {
            _handler.OnAbsent(f);
            return true;
        }

        if (!StartSequence(f, length, at, depth))
        {
            return false;
        }

        var body = f.Body!;
        int count = (int)length;
        if (body.CompiledEntries is CompiledEntries<THandler> entries)
        {
            // All entries in one compiled call: no per-entry call, state loading and scope bookkeeping.
            if (!entries(ref this, FirstEntryBase(f.Slot), count, depth + 1))
            {
                return false;
            }

            _handler.OnSequenceEnd(f);
            return true;
        }

        var compiled = body.Compiled as CompiledBody<THandler>;
        for (int i = 0; i < count; i++)
        {
            _handler.OnSequenceEntryStart(f, i);
            PresenceMap entryPm = default;
            int pmStart = _pos;
            if (body.HasPmap && (!ReadPmap(out entryPm, out int pmapLength) || !CheckPmapLength(body, pmapLength, pmStart)))
            {
                return false;
            }

            bool ok = compiled is not null ? compiled(ref this, ref entryPm, depth + 1) : Instructions(body.Instructions, ref entryPm, depth + 1);
            if (!ok || (body.HasPmap && !CheckPmapFullyRead(in entryPm, pmStart)))
            {
                return false;
            }

            _handler.OnSequenceEntryEnd(f);
        }

        _handler.OnSequenceEnd(f);
        return true;
    }

    /// <summary>A sequence's length checked against the limits and the input left, then announced to the handler.</summary>
    private bool StartSequence(FastField f, long length, int at, int depth)
    {
        if (length > _decoder.MaxSequenceLength)
        {
            return Fail(FastErrorCode.LimitExceeded, at);
        }

        // Each entry needs at least MinBytes on the wire: a length the packet cannot hold is a truncation, found before any work.
        if (length * f.Body!.MinBytes > _data.Length - _pos)
        {
            return Fail(FastErrorCode.UnexpectedEnd, at);
        }

        if (depth >= _decoder.MaxDepth)
        {
            return Fail(FastErrorCode.LimitExceeded, at);
        }

        return _handler.OnSequenceStart(f, (int)length) || Fail(FastErrorCode.CapacityExceeded, at);
    }

    [MethodImpl(MethodImplOptions.NoInlining)] // keeps the instruction loop's frame small
    private bool Group(FastField f, bool bit, int depth)
    {
        if (f.IsOptional && !bit)
        {
            _handler.OnAbsent(f);
            return true;
        }

        if (depth >= _decoder.MaxDepth)
        {
            return Fail(FastErrorCode.LimitExceeded, _pos);
        }

        var body = f.Body!;
        _handler.OnGroupStart(f);
        if (body.HasPmap)
        {
            int pmStart = _pos;
            if (!ReadPmap(out var groupPm, out int pmapLength) || !CheckPmapLength(body, pmapLength, pmStart)
                || !Body(body, ref groupPm, depth + 1) || !CheckPmapFullyRead(in groupPm, pmStart))
            {
                return false;
            }
        }
        else
        {
            var none = default(PresenceMap);
            if (!Body(body, ref none, depth + 1))
            {
                return false;
            }
        }

        _handler.OnGroupEnd(f);
        return true;
    }

    // ---- integers ----------------------------------------------------------------------------------------------

    /// <summary>Applies the field's operator to an integer field: Present with the value, Absent, or Failed.</summary>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    private int IntOperator(FastField f, bool bit, out long value) =>
        IntOperator(f.Operator, f.Type, f.IsOptional, f.Nullable, f.DictSlot, f.HasInitial, f.InitialInt, bit, out value);

    /// <summary>
    /// The integer operators, on the instruction's properties passed as values: the interpreter passes them from
    /// the <see cref="FastField"/>, compiled template code passes constants the JIT folds.
    /// </summary>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    private int IntOperator(FastOperator op, FastFieldType type, bool optional, bool nullable, int dictSlot, bool hasInitial, long initial, bool bit, out long value)
    {
        value = 0;
        switch (op)
        {
            case FastOperator.None:
                return ReadInt(type, nullable, out value);

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
                    return ReadInt(type, nullable, out value);
                }

                if (hasInitial)
                {
                    value = initial;
                    return Present;
                }

                return Absent; // S5 guarantees an optional field here

            case FastOperator.Copy:
            case FastOperator.Increment:
                {
                    ref var prev = ref _dict[dictSlot];
                    if (bit)
                    {
                        int r = ReadInt(type, nullable, out value);
                        if (r == Present)
                        {
                            Assign(ref prev, type, value);
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
                            return FailInt(FastErrorCode.D2, _pos);
                        }

                        prev.Int = value;
                        return Present;
                    }

                    return NotInStream(type, optional, hasInitial, initial, ref prev, out value);
                }

            case FastOperator.Delta:
                {
                    int at = _pos;
                    int r = ReadSignedValue(nullable, out long delta);
                    if (r != Present)
                    {
                        return r;
                    }

                    ref var prev = ref _dict[dictSlot];
                    long baseValue;
                    switch (prev.State)
                    {
                        case PreviousState.Assigned:
                            if (prev.Type != type)
                            {
                                return FailInt(FastErrorCode.D4, at);
                            }

                            baseValue = prev.Int;
                            break;
                        case PreviousState.Undefined:
                            baseValue = hasInitial ? initial : 0;
                            break;
                        default:
                            return FailInt(FastErrorCode.D6, at);
                    }

                    if (!AddDelta(type, baseValue, delta, out value))
                    {
                        return FailInt(FastErrorCode.D2, at);
                    }

                    Assign(ref prev, type, value);
                    return Present;
                }

            default:
                return FailInt(FastErrorCode.S2, _pos);
        }
    }

    /// <summary>Copy or increment with the bit clear and no usable previous value: the initial value, absence, or D4/D5/D6.</summary>
    private int NotInStream(FastFieldType type, bool optional, bool hasInitial, long initial, ref PreviousValue prev, out long value)
    {
        value = 0;
        switch (prev.State)
        {
            case PreviousState.Assigned:
                return FailInt(FastErrorCode.D4, _pos); // assigned by a field of another type

            case PreviousState.Undefined:
                if (hasInitial)
                {
                    value = initial;
                    Assign(ref prev, type, value);
                    return Present;
                }

                if (optional)
                {
                    prev.State = PreviousState.Empty;
                    return Absent;
                }

                return FailInt(FastErrorCode.D5, _pos);

            default:
                return optional ? Absent : FailInt(FastErrorCode.D6, _pos);
        }
    }

    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    private static void Assign(ref PreviousValue prev, FastFieldType type, long value)
    {
        prev.Int = value;
        prev.State = PreviousState.Assigned;
        prev.Type = type;
    }

    /// <summary>base + delta within the field type's range.</summary>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    private static bool AddDelta(FastFieldType type, long baseValue, long delta, out long value)
    {
        if (type == FastFieldType.UInt64)
        {
            ulong b = (ulong)baseValue;
            ulong r = b + (ulong)delta;
            value = (long)r;
            return delta >= 0 ? r >= b : r < b;
        }

        long sum = baseValue + delta;
        value = sum;
        if (((baseValue ^ sum) & (delta ^ sum)) < 0)
        {
            return false; // int64 overflow
        }

        return type switch
        {
            FastFieldType.UInt32 => sum >= 0 && sum <= uint.MaxValue,
            FastFieldType.Int32 => sum >= int.MinValue && sum <= int.MaxValue,
            _ => true,
        };
    }

    /// <summary>Reads an integer of the type from the stream, applying the nullable (+1) rule and the type's range.</summary>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    private int ReadInt(FastFieldType type, bool nullable, out long value)
    {
        int at = _pos;
        if (type is FastFieldType.UInt32 or FastFieldType.UInt64)
        {
            value = 0;
            if (!ReadUnsigned(out ulong u, out bool carry))
            {
                return Failed;
            }

            if (nullable)
            {
                if (carry)
                {
                    // 2^64 on the wire: the nullable encoding of uInt64's largest value.
                    if (type != FastFieldType.UInt64)
                    {
                        return FailInt(FastErrorCode.D2, at);
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
                return FailInt(FastErrorCode.D2, at);
            }

            if (type == FastFieldType.UInt32 && u > uint.MaxValue)
            {
                return FailInt(FastErrorCode.D2, at);
            }

            value = (long)u;
            return Present;
        }

        int r = ReadSignedValue(nullable, out value);
        if (r == Present && type == FastFieldType.Int32 && (value < int.MinValue || value > int.MaxValue))
        {
            return FailInt(FastErrorCode.D2, at);
        }

        return r;
    }

    /// <summary>A signed int64 from the stream, nullable or not.</summary>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    private int ReadSignedValue(bool nullable, out long value)
    {
        int at = _pos;
        if (!ReadSigned(out value, out bool carry))
        {
            return Failed;
        }

        if (nullable)
        {
            if (carry)
            {
                value = long.MaxValue; // 2^63 on the wire: the nullable encoding of int64's largest value
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
            return FailInt(FastErrorCode.D2, at);
        }

        return Present;
    }

    // ---- decimals ----------------------------------------------------------------------------------------------

    [MethodImpl(MethodImplOptions.NoInlining)] // keeps the instruction loop's frame small
    private int DecimalOperator(FastField f, bool bit, out long mantissa, out int exponent)
    {
        mantissa = 0;
        exponent = 0;
        switch (f.Operator)
        {
            case FastOperator.None:
                return ReadDecimal(f.Nullable, out mantissa, out exponent);

            case FastOperator.Constant:
                if (!f.IsOptional || bit)
                {
                    mantissa = f.InitialInt;
                    exponent = f.InitialExponent;
                    return Present;
                }

                return Absent;

            case FastOperator.Default:
                if (bit)
                {
                    return ReadDecimal(f.Nullable, out mantissa, out exponent);
                }

                if (f.HasInitial)
                {
                    mantissa = f.InitialInt;
                    exponent = f.InitialExponent;
                    return Present;
                }

                return Absent;

            case FastOperator.Copy:
                {
                    ref var prev = ref _dict[f.DictSlot];
                    if (bit)
                    {
                        int r = ReadDecimal(f.Nullable, out mantissa, out exponent);
                        if (r == Present)
                        {
                            AssignDecimal(ref prev, mantissa, exponent);
                        }
                        else if (r == Absent)
                        {
                            prev.State = PreviousState.Empty;
                        }

                        return r;
                    }

                    switch (prev.State)
                    {
                        case PreviousState.Assigned:
                            if (prev.Type != FastFieldType.Decimal)
                            {
                                return FailInt(FastErrorCode.D4, _pos);
                            }

                            mantissa = prev.Int;
                            exponent = prev.Exponent;
                            return Present;
                        case PreviousState.Undefined:
                            if (f.HasInitial)
                            {
                                mantissa = f.InitialInt;
                                exponent = f.InitialExponent;
                                AssignDecimal(ref prev, mantissa, exponent);
                                return Present;
                            }

                            if (f.IsOptional)
                            {
                                prev.State = PreviousState.Empty;
                                return Absent;
                            }

                            return FailInt(FastErrorCode.D5, _pos);
                        default:
                            return f.IsOptional ? Absent : FailInt(FastErrorCode.D6, _pos);
                    }
                }

            case FastOperator.Delta:
                {
                    int at = _pos;
                    int r = ReadSignedValue(f.Nullable, out long exponentDelta);
                    if (r != Present)
                    {
                        return r;
                    }

                    if (ReadSignedValue(false, out long mantissaDelta) != Present)
                    {
                        return Failed;
                    }

                    ref var prev = ref _dict[f.DictSlot];
                    long baseMantissa;
                    long baseExponent;
                    switch (prev.State)
                    {
                        case PreviousState.Assigned:
                            if (prev.Type != FastFieldType.Decimal)
                            {
                                return FailInt(FastErrorCode.D4, at);
                            }

                            baseMantissa = prev.Int;
                            baseExponent = prev.Exponent;
                            break;
                        case PreviousState.Undefined:
                            baseMantissa = f.HasInitial ? f.InitialInt : 0;
                            baseExponent = f.HasInitial ? f.InitialExponent : 0;
                            break;
                        default:
                            return FailInt(FastErrorCode.D6, at);
                    }

                    long e = baseExponent + exponentDelta;
                    long m = baseMantissa + mantissaDelta;
                    if (e < -63 || e > 63 || exponentDelta < int.MinValue || exponentDelta > int.MaxValue
                        || ((baseMantissa ^ m) & (mantissaDelta ^ m)) < 0)
                    {
                        return FailInt(FastErrorCode.R1, at);
                    }

                    mantissa = m;
                    exponent = (int)e;
                    AssignDecimal(ref prev, mantissa, exponent);
                    return Present;
                }

            default:
                return FailInt(FastErrorCode.S2, _pos);
        }
    }

    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    private static void AssignDecimal(ref PreviousValue prev, long mantissa, int exponent)
    {
        prev.Int = mantissa;
        prev.Exponent = exponent;
        prev.State = PreviousState.Assigned;
        prev.Type = FastFieldType.Decimal;
    }

    private int ReadDecimal(bool nullable, out long mantissa, out int exponent)
    {
        mantissa = 0;
        exponent = 0;
        int at = _pos;
        int r = ReadSignedValue(nullable, out long e);
        if (r != Present)
        {
            return r;
        }

        if (e < -63 || e > 63)
        {
            return FailInt(FastErrorCode.R1, at);
        }

        exponent = (int)e;
        return ReadSignedValue(false, out mantissa) == Present ? Present : Failed;
    }

    // ---- strings and byte vectors ----------------------------------------------------------------------------

    [MethodImpl(MethodImplOptions.NoInlining)] // keeps the instruction loop's frame small
    private bool BytesOperator(FastField f, bool bit)
    {
        ReadOnlySpan<byte> value;
        int r;
        switch (f.Operator)
        {
            case FastOperator.None:
                r = ReadBytes(f, f.Nullable, out value);
                break;

            case FastOperator.Constant:
                if (!f.IsOptional || bit)
                {
                    value = f.InitialBytes;
                    r = Present;
                }
                else
                {
                    value = default;
                    r = Absent;
                }

                break;

            case FastOperator.Default:
                if (bit)
                {
                    r = ReadBytes(f, f.Nullable, out value);
                }
                else if (f.HasInitial)
                {
                    value = f.InitialBytes;
                    r = Present;
                }
                else
                {
                    value = default;
                    r = Absent;
                }

                break;

            case FastOperator.Copy:
                r = CopyBytes(f, bit, out value);
                break;

            case FastOperator.Delta:
                r = DeltaBytes(f, out value);
                break;

            case FastOperator.Tail:
                r = TailBytes(f, bit, out value);
                break;

            default:
                return Fail(FastErrorCode.S2, _pos);
        }

        if (r == Present)
        {
            return _handler.OnBytes(f, value) || Fail(FastErrorCode.CapacityExceeded, _pos);
        }

        if (r == Absent)
        {
            _handler.OnAbsent(f);
            return true;
        }

        return false;
    }

    private int CopyBytes(FastField f, bool bit, out ReadOnlySpan<byte> value)
    {
        ref var prev = ref _dict[f.DictSlot];
        byte[] buffer = _decoder.State.Bytes[f.DictSlot]!;
        if (bit)
        {
            int r = ReadBytes(f, f.Nullable, out value);
            if (r == Present)
            {
                SmallCopy.Copy(value, buffer);
                AssignBytes(ref prev, f, value.Length);
                value = buffer.AsSpan(0, value.Length);
            }
            else if (r == Absent)
            {
                prev.State = PreviousState.Empty;
            }

            return r;
        }

        return BytesNotInStream(f, ref prev, buffer, out value);
    }

    /// <summary>Copy or tail with the bit clear: the previous value, the initial value, or absence.</summary>
    private int BytesNotInStream(FastField f, ref PreviousValue prev, byte[] buffer, out ReadOnlySpan<byte> value)
    {
        value = default;
        switch (prev.State)
        {
            case PreviousState.Assigned:
                if (prev.Type != f.Type)
                {
                    return FailInt(FastErrorCode.D4, _pos);
                }

                value = buffer.AsSpan(0, prev.Length);
                return Present;
            case PreviousState.Undefined:
                if (f.HasInitial)
                {
                    f.InitialBytes.CopyTo(buffer, 0);
                    AssignBytes(ref prev, f, f.InitialBytes.Length);
                    value = f.InitialBytes;
                    return Present;
                }

                if (f.IsOptional)
                {
                    prev.State = PreviousState.Empty;
                    return Absent;
                }

                return FailInt(FastErrorCode.D5, _pos);
            default:
                return f.IsOptional ? Absent : FailInt(FastErrorCode.D6, _pos);
        }
    }

    private int DeltaBytes(FastField f, out ReadOnlySpan<byte> value)
    {
        value = default;
        int at = _pos;
        int r = ReadSignedValue(f.Nullable, out long subtraction);
        if (r != Present)
        {
            return r;
        }

        if (ReadBytes(f, false, out var delta) != Present)
        {
            return Failed;
        }

        ref var prev = ref _dict[f.DictSlot];
        byte[] buffer = _decoder.State.Bytes[f.DictSlot]!;
        ReadOnlySpan<byte> baseValue;
        switch (prev.State)
        {
            case PreviousState.Assigned:
                if (prev.Type != f.Type)
                {
                    return FailInt(FastErrorCode.D4, at);
                }

                baseValue = buffer.AsSpan(0, prev.Length);
                break;
            case PreviousState.Undefined:
                baseValue = f.InitialBytes;
                break;
            default:
                return FailInt(FastErrorCode.D6, at);
        }

        int baseLength = baseValue.Length;
        bool front = subtraction < 0;
        long remove = front ? -subtraction - 1 : subtraction; // negative lengths are excess-1: -1 removes nothing from the front
        if (subtraction < int.MinValue || subtraction > int.MaxValue || remove > baseLength)
        {
            return FailInt(FastErrorCode.D7, at);
        }

        int kept = baseLength - (int)remove;
        int length = kept + delta.Length;
        if (length > buffer.Length)
        {
            return FailInt(FastErrorCode.CapacityExceeded, at);
        }

        if (front)
        {
            // value = delta + base[remove..]; CopyTo handles the overlap when the base is the buffer itself.
            baseValue.Slice((int)remove).CopyTo(buffer.AsSpan(delta.Length));
            delta.CopyTo(buffer);
        }
        else
        {
            baseValue.Slice(0, kept).CopyTo(buffer);
            delta.CopyTo(buffer.AsSpan(kept));
        }

        AssignBytes(ref prev, f, length);
        value = buffer.AsSpan(0, length);
        return Present;
    }

    private int TailBytes(FastField f, bool bit, out ReadOnlySpan<byte> value)
    {
        ref var prev = ref _dict[f.DictSlot];
        byte[] buffer = _decoder.State.Bytes[f.DictSlot]!;
        if (!bit)
        {
            return BytesNotInStream(f, ref prev, buffer, out value);
        }

        int at = _pos;
        int r = ReadBytes(f, f.Nullable, out var tail);
        value = default;
        if (r == Absent)
        {
            prev.State = PreviousState.Empty;
            return Absent;
        }

        if (r == Failed)
        {
            return Failed;
        }

        ReadOnlySpan<byte> baseValue;
        if (prev.State == PreviousState.Assigned)
        {
            if (prev.Type != f.Type)
            {
                return FailInt(FastErrorCode.D4, at);
            }

            baseValue = buffer.AsSpan(0, prev.Length);
        }
        else
        {
            baseValue = f.InitialBytes;
        }

        int length;
        if (tail.Length >= baseValue.Length)
        {
            tail.CopyTo(buffer);
            length = tail.Length;
        }
        else
        {
            int kept = baseValue.Length - tail.Length;
            baseValue.Slice(0, kept).CopyTo(buffer);
            tail.CopyTo(buffer.AsSpan(kept));
            length = baseValue.Length;
        }

        AssignBytes(ref prev, f, length);
        value = buffer.AsSpan(0, length);
        return Present;
    }

    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    private static void AssignBytes(ref PreviousValue prev, FastField f, int length)
    {
        prev.Length = length;
        prev.State = PreviousState.Assigned;
        prev.Type = f.Type;
    }

    /// <summary>Reads a string or byte vector value from the stream in the field's wire form.</summary>
    private int ReadBytes(FastField f, bool nullable, out ReadOnlySpan<byte> value)
    {
        return f.Code == Opcode.Ascii ? ReadAscii(nullable, out value) : ReadLengthPrefixed(nullable, out value);
    }

    /// <summary>A stop-bit terminated ASCII string, cleaned of its stop bit into the scratch buffer.</summary>
    private int ReadAscii(bool nullable, out ReadOnlySpan<byte> value)
    {
        value = default;
        int start = _pos;
        var data = _data;
        byte[] scratch = _decoder.Scratch;
        int limit = Math.Min(data.Length, start + scratch.Length + 2);
        int p = start;
        while (true)
        {
            if (p >= limit)
            {
                return FailInt(p >= data.Length ? FastErrorCode.UnexpectedEnd : FastErrorCode.LimitExceeded, start);
            }

            if (data[p++] >= 0x80)
            {
                break;
            }
        }

        _pos = p;
        int length = p - start;
        byte first = data[start];
        if ((first & 0x7F) == 0)
        {
            // 0x80 is empty (or NULL when nullable); 0x00 0x80 is "\0" (or empty when nullable); 0x00 0x00 0x80 is "\0" when nullable.
            if (length == 1)
            {
                return nullable ? Absent : Present;
            }

            if (length == 2 && data[start + 1] == 0x80)
            {
                if (nullable)
                {
                    return Present;
                }

                scratch[0] = 0;
                value = scratch.AsSpan(0, 1);
                return Present;
            }

            if (nullable && length == 3 && data[start + 1] == 0 && data[start + 2] == 0x80)
            {
                scratch[0] = 0;
                value = scratch.AsSpan(0, 1);
                return Present;
            }

            if (_decoder.Strict)
            {
                return FailInt(FastErrorCode.R9, start);
            }
        }

        var target = scratch.AsSpan(0, length);
        SmallCopy.Copy(data.Slice(start, length), target);
        target[length - 1] &= 0x7F;
        value = target;
        return Present;
    }

    /// <summary>A byte vector or unicode string: a uInt32 length (nullable when the field is), then the bytes.</summary>
    private int ReadLengthPrefixed(bool nullable, out ReadOnlySpan<byte> value)
    {
        value = default;
        int at = _pos;
        if (!ReadUnsigned(out ulong length, out bool carry))
        {
            return Failed;
        }

        if (carry)
        {
            return FailInt(FastErrorCode.D2, at);
        }

        if (nullable)
        {
            if (length == 0)
            {
                return Absent;
            }

            length--;
        }

        if (length > uint.MaxValue)
        {
            return FailInt(FastErrorCode.D2, at);
        }

        if (length > (ulong)_decoder.Scratch.Length)
        {
            return FailInt(FastErrorCode.LimitExceeded, at);
        }

        if (length > (ulong)(_data.Length - _pos))
        {
            return FailInt(FastErrorCode.UnexpectedEnd, at);
        }

        value = _data.Slice(_pos, (int)length);
        _pos += (int)length;
        return Present;
    }

    // ---- primitives --------------------------------------------------------------------------------------------

    /// <summary>Finds the presence map at the read position (bounded scan; R7 when it ends in a byte of zero bits).</summary>
    private bool ReadPmap(out PresenceMap pm, out int length)
    {
        int start = _pos;
        var data = _data;
        int limit = Math.Min(data.Length, start + _decoder.MaxPmapScan);
        int p = start;
        pm = default;
        length = 0;
        while (true)
        {
            if (p >= limit)
            {
                // Longer than any template needs: overlong when the next byte adds no set bit, else too many bits.
                var code = p >= data.Length ? FastErrorCode.UnexpectedEnd : (data[p] & 0x7F) != 0 ? FastErrorCode.R8 : FastErrorCode.R7;
                return Fail(code, start);
            }

            if (data[p++] >= 0x80)
            {
                break;
            }
        }

        length = p - start;
        if (length > 1 && data[p - 1] == 0x80 && _decoder.Strict)
        {
            return Fail(FastErrorCode.R7, start);
        }

        pm = new PresenceMap(data, start, p);
        _pos = p;
        return true;
    }

    private bool CheckPmapLength(FastGroupBody body, int length, int at) =>
        !_decoder.Strict || length <= (body.PmapBits + 6) / 7 || Fail(FastErrorCode.R8, at);

    private bool CheckPmapFullyRead(in PresenceMap pm, int at) =>
        !_decoder.Strict || !pm.HasUnreadSetBits(_data) || Fail(FastErrorCode.R8, at);

    /// <summary>A stop-bit unsigned integer of up to 10 bytes. <paramref name="carry"/>: the value is exactly 2^64.</summary>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    private bool ReadUnsigned(out ulong value, out bool carry)
    {
        int p = _pos;
        if ((uint)p < (uint)_data.Length)
        {
            uint b = _data[p];
            if (b >= 0x80)
            {
                _pos = p + 1;
                value = b & 0x7F;
                carry = false;
                return true;
            }

            // Two bytes, the next most common length (a leading zero byte would be overlong: left to the slow path).
            if ((uint)(p + 1) < (uint)_data.Length && b != 0)
            {
                uint b2 = _data[p + 1];
                if (b2 >= 0x80)
                {
                    _pos = p + 2;
                    value = (b << 7) | (b2 & 0x7F);
                    carry = false;
                    return true;
                }
            }
        }

        return ReadUnsignedSlow(out value, out carry);
    }

    private bool ReadUnsignedSlow(out ulong value, out bool carry)
    {
        var data = _data;
        int start = _pos;
        int p = start;
        ulong v = 0;
        carry = false;
        value = 0;
        for (int n = 0; ; n++)
        {
            if (p >= data.Length)
            {
                return Fail(FastErrorCode.UnexpectedEnd, start);
            }

            if (n == 10)
            {
                return Fail(data[start] == 0 ? FastErrorCode.R6 : FastErrorCode.D2, start);
            }

            uint b = data[p++];
            if (n == 9 && (v >> 57) != 0)
            {
                // 70 bits: only 2^64 exactly (0x02 then zeros) is meaningful, as the nullable uInt64 maximum.
                if (v == 1UL << 57 && b == 0x80)
                {
                    carry = true;
                    _pos = p;
                    return true;
                }

                return Fail(FastErrorCode.D2, start);
            }

            v = (v << 7) | (b & 0x7F);
            if (b >= 0x80)
            {
                break;
            }
        }

        if (data[start] == 0 && _decoder.Strict)
        {
            return Fail(FastErrorCode.R6, start);
        }

        _pos = p;
        value = v;
        return true;
    }

    /// <summary>A stop-bit signed (two's complement, sign in bit 6 of the first byte) integer of up to 10 bytes. <paramref name="carry"/>: exactly 2^63.</summary>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    private bool ReadSigned(out long value, out bool carry)
    {
        int p = _pos;
        if ((uint)p < (uint)_data.Length)
        {
            uint b = _data[p];
            if (b >= 0x80)
            {
                _pos = p + 1;
                value = (long)((ulong)b << 57) >> 57;
                carry = false;
                return true;
            }
        }

        return ReadSignedSlow(out value, out carry);
    }

    private bool ReadSignedSlow(out long value, out bool carry)
    {
        var data = _data;
        int start = _pos;
        int p = start;
        value = 0;
        carry = false;
        if (p >= data.Length)
        {
            return Fail(FastErrorCode.UnexpectedEnd, start);
        }

        uint first = data[p];
        long v = (first & 0x40) != 0 ? -1L : 0L;
        for (int n = 0; ; n++)
        {
            if (p >= data.Length)
            {
                return Fail(FastErrorCode.UnexpectedEnd, start);
            }

            if (n == 10)
            {
                return Fail(first is 0x00 or 0x7F ? FastErrorCode.R6 : FastErrorCode.D2, start);
            }

            uint b = data[p++];
            v = (v << 7) | (long)(b & 0x7F);
            if (b >= 0x80)
            {
                break;
            }
        }

        int length = p - start;
        if (length == 10)
        {
            // 70 bits: the first byte must only extend the sign of bit 63, except 2^63 (0x01 then zeros) for nullable int64.
            bool negative = v < 0;
            if (first != (negative ? 0x7Fu : 0x00u))
            {
                if (first == 0x01 && v == long.MinValue)
                {
                    carry = true;
                    _pos = p;
                    return true;
                }

                return Fail(FastErrorCode.D2, start);
            }
        }

        if (length > 1 && _decoder.Strict)
        {
            // Overlong: a first byte that only repeats the sign of the next one.
            uint second = data[start + 1];
            if ((first == 0x00 && (second & 0x40) == 0) || (first == 0x7F && (second & 0x40) != 0))
            {
                return Fail(FastErrorCode.R6, start);
            }
        }

        _pos = p;
        value = v;
        return true;
    }

    // ---- errors ------------------------------------------------------------------------------------------------

    private bool Fail(FastErrorCode code, int offset)
    {
        if (_error == FastErrorCode.None)
        {
            _error = code;
            _errorOffset = offset;
        }

        return false;
    }

    private int FailInt(FastErrorCode code, int offset)
    {
        Fail(code, offset);
        return Failed;
    }
}
