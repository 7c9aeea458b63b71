using System.Reflection;
using System.Reflection.Emit;
using System.Runtime.CompilerServices;
using System.Runtime.InteropServices;
using RapidFix.Fast.Messages;
using RapidFix.Fast.Templates;

namespace RapidFix.Fast.Codec;

/// <summary>
/// Integer and split-decimal fields emitted as IL of their own: the operator, type, nullability, presence bit,
/// dictionary slot and initial value are resolved here, at compile time, so each field becomes a few loads,
/// compares and stores that branch straight to the next field. Anything the inline code does not decode (integers
/// of 9 or more bytes, overlong forms, a dictionary entry not yet assigned, a value out of range, every error)
/// goes to a cold block at the end of the method that decodes the whole field again from its first byte with
/// <see cref="CompiledOps.FieldSlow"/>: the inline code changes the dictionary only once it knows the field is its
/// own, so the retry sees the same state.
/// </summary>
/// <remarks>
/// Before this, each field was a call of an always-inlined <see cref="CompiledOps"/> method with constant
/// arguments. The JIT folded the constants but charged its inlining budget by IL size (the .NET 8 JIT ran out of
/// it in the 19-field market-data entry) and re-tested merged result codes; emitted IL has neither cost.
/// </remarks>
internal static partial class BodyCompiler
{
    private static readonly FieldInfo ValueInt = typeof(FastValue).GetField(nameof(FastValue.Int), Instance)!;
    private static readonly FieldInfo ValueAux = typeof(FastValue).GetField(nameof(FastValue.Aux), Instance)!;
    private static readonly FieldInfo ValueKind = typeof(FastValue).GetField(nameof(FastValue.KindValue), Instance)!;
    private static readonly FieldInfo PrevInt = typeof(PreviousValue).GetField(nameof(PreviousValue.Int), Instance)!;
    private static readonly FieldInfo PrevState = typeof(PreviousValue).GetField(nameof(PreviousValue.State), Instance)!;
    private static readonly FieldInfo PrevType = typeof(PreviousValue).GetField(nameof(PreviousValue.Type), Instance)!;
    private static readonly MethodInfo FieldSlowOp = typeof(CompiledOps).GetMethod(nameof(CompiledOps.FieldSlow), Static)!;
    private static readonly MethodInfo WordUnsignedOp = typeof(CompiledOps).GetMethod(nameof(CompiledOps.WordUnsigned), Static)!;
    private static readonly MethodInfo WordSignedOp = typeof(CompiledOps).GetMethod(nameof(CompiledOps.WordSigned), Static)!;
    private static readonly int ValueSize = Unsafe.SizeOf<FastValue>();
    private static readonly int PrevSize = Unsafe.SizeOf<PreviousValue>();

    /// <summary>A previous value's state and type are adjacent bytes: both are tested (and set) with one 16-bit access.</summary>
    private static readonly bool StateTypeAdjacent = IsStateTypeAdjacent();

    private static bool IsStateTypeAdjacent()
    {
        var p = default(PreviousValue);
        return Unsafe.ByteOffset(ref Unsafe.As<PreviousState, byte>(ref p.State), ref Unsafe.As<FastFieldType, byte>(ref p.Type)) == 1
            && BitConverter.IsLittleEndian;
    }

    /// <summary>One integer operation: a field's, or a split decimal's exponent or mantissa.</summary>
    private readonly record struct IntOperation(
        FastOperator Op, FastFieldType Type, bool Optional, bool Nullable, bool UsesBit, int DictSlot, bool HasInitial, long Initial)
    {
        public static IntOperation Of(FastField f) =>
            new(f.Operator, f.Type, f.IsOptional, f.Nullable, f.UsesPmapBit, f.DictSlot, f.HasInitial, f.InitialInt);
    }

    /// <summary>Fields <see cref="EmitIntegerField"/> emits (any other goes through its <see cref="CompiledOps"/> operation).</summary>
    private static bool IsEmittedInteger(FastField f) => f.Code switch
    {
        Opcode.Int => IsEmittedOperator(f.Operator),
        // The exponent must leave the dictionary alone: the mantissa can still send the field to the cold block.
        Opcode.SplitDecimal => f.Exponent!.Operator is FastOperator.None or FastOperator.Constant or FastOperator.Default
            && IsEmittedOperator(f.Mantissa!.Operator),
        _ => false,
    };

    private static bool IsEmittedOperator(FastOperator op) => op is FastOperator.None or FastOperator.Constant or FastOperator.Default
        or FastOperator.Copy or FastOperator.Increment or FastOperator.Delta;

    /// <summary>
    /// An integer or split-decimal field, whose presence bits (if any) are the bits at <paramref name="shift"/> and
    /// after in the loaded window. A decimal whose mantissa has a bit leaves its window, shifted past what it read, in
    /// <see cref="State.OpPm"/> (see <see cref="AfterOp"/>).
    /// </summary>
    private static void EmitIntegerField(ILGenerator il, State s, FastField f, int shift, Label fail)
    {
        var end = il.DefineLabel();
        var absent = il.DefineLabel();
        var slow = il.DefineLabel();
        il.Emit(OpCodes.Ldloc, s.Pos);
        il.Emit(OpCodes.Stloc, s.At);

        bool windowOut = false;
        if (f.Code == Opcode.Int)
        {
            EmitIntOperation(il, s, IntOperation.Of(f), shift, absent, slow);
            StoreSlotValue(il, s, f.Slot, f.Type is FastFieldType.UInt32 or FastFieldType.UInt64 ? FastValueKind.UnsignedInteger : FastValueKind.Integer);
        }
        else
        {
            var e = f.Exponent!;
            var m = f.Mantissa!;
            // An exponent read from the wire outside [-63, 63] is R1, the cold block's to report (the template's
            // initial value was checked when it was loaded).
            EmitIntOperation(il, s, new IntOperation(e.Operator, FastFieldType.Int32, f.IsOptional, e.Nullable, e.UsesPmapBit, e.DictSlot, e.HasInitial, e.InitialInt), shift, absent, slow, exponent: true);
            SlotAddress(il, s, f.Slot);
            il.Emit(OpCodes.Ldloc, s.V);
            il.Emit(OpCodes.Conv_I4);
            il.Emit(OpCodes.Stfld, ValueAux); // overwritten by the cold block if it takes over

            // The mantissa's bit follows the exponent's; an absent mantissa is D6, the cold block's to report.
            int mantissaShift = shift + (e.UsesPmapBit ? 1 : 0);
            EmitIntOperation(il, s, new IntOperation(m.Operator, FastFieldType.Int64, false, false, m.UsesPmapBit, m.DictSlot, m.HasInitial, m.InitialInt), mantissaShift, slow, slow);
            StoreSlotValue(il, s, f.Slot, FastValueKind.Decimal);
            windowOut = m.UsesPmapBit;
            if (windowOut)
            {
                ShiftedWindow(il, s, mantissaShift + 1);
                il.Emit(OpCodes.Stloc, s.OpPm);
            }
        }

        il.Emit(OpCodes.Br, end);
        il.MarkLabel(absent);
        SlotAddress(il, s, f.Slot);
        il.Emit(OpCodes.Ldc_I4, (int)FastValueKind.Absent);
        il.Emit(OpCodes.Stfld, ValueKind);
        if (windowOut)
        {
            ShiftedWindow(il, s, shift + (f.Exponent!.UsesPmapBit ? 1 : 0));
            il.Emit(OpCodes.Stloc, s.OpPm);
        }

        il.MarkLabel(end);

        // Cold: the whole field again, by the general operation, from its first byte and bit.
        var at = s.At;
        s.Cold.Add(() =>
        {
            il.MarkLabel(slow);
            il.Emit(OpCodes.Ldarg_1);
            il.Emit(OpCodes.Ldloc, at);
            ShiftedWindow(il, s, shift);
            il.Emit(OpCodes.Ldloc, s.Scope);
            Int(il, f.Index);
            il.Emit(OpCodes.Call, FieldSlowOp);
            il.Emit(OpCodes.Brfalse, fail);
            il.Emit(OpCodes.Ldarg_1);
            il.Emit(OpCodes.Call, GetPosition);
            il.Emit(OpCodes.Stloc, s.Pos);
            if (windowOut)
            {
                il.Emit(OpCodes.Ldarg_1);
                il.Emit(OpCodes.Call, GetPmWindow);
                il.Emit(OpCodes.Stloc, s.OpPm);
            }

            il.Emit(OpCodes.Br, end);
        });
    }

    /// <summary>
    /// One integer operation: falls through with the value in <see cref="State.V"/> (dictionary already updated),
    /// or branches to <paramref name="absent"/> (dictionary updated) or to <paramref name="slow"/> (nothing stored).
    /// </summary>
    private static void EmitIntOperation(ILGenerator il, State s, IntOperation op, int shift, Label absent, Label slow, bool exponent = false)
    {
        switch (op.Op)
        {
            case FastOperator.None:
                EmitRead(il, s, op.Type, op.Nullable, absent, slow, exponent);
                break;

            case FastOperator.Constant:
                if (op.Optional)
                {
                    BranchIfBitClear(il, s, op.UsesBit, shift, absent);
                }

                SetV(il, s, op.Initial);
                break;

            case FastOperator.Default:
                {
                    var fromTemplate = il.DefineLabel();
                    var done = il.DefineLabel();
                    BranchIfBitClear(il, s, op.UsesBit, shift, fromTemplate);
                    EmitRead(il, s, op.Type, op.Nullable, absent, slow, exponent);
                    il.Emit(OpCodes.Br, done);
                    il.MarkLabel(fromTemplate);
                    if (op.HasInitial)
                    {
                        SetV(il, s, op.Initial);
                    }
                    else
                    {
                        il.Emit(OpCodes.Br, absent);
                    }

                    il.MarkLabel(done);
                    break;
                }

            case FastOperator.Copy:
            case FastOperator.Increment:
                {
                    var previous = il.DefineLabel();
                    var done = il.DefineLabel();
                    BranchIfBitClear(il, s, op.UsesBit, shift, previous);

                    // On the wire: the new previous value (a NULL empties it).
                    var nullValue = il.DefineLabel();
                    EmitRead(il, s, op.Type, op.Nullable, nullValue, slow);
                    AssignPrevious(il, s, op.DictSlot, op.Type);
                    il.Emit(OpCodes.Br, done);
                    if (op.Nullable)
                    {
                        il.MarkLabel(nullValue);
                        PrevAddress(il, s, op.DictSlot);
                        il.Emit(OpCodes.Ldc_I4, (int)PreviousState.Empty);
                        il.Emit(OpCodes.Stfld, PrevState);
                        il.Emit(OpCodes.Br, absent);
                    }

                    // Bit clear: the assigned previous value (incremented), or an undefined one's initial value (as
                    // after each message of a template with reset="Y"); anything else is the cold block's.
                    il.MarkLabel(previous);
                    var notAssigned = il.DefineLabel();
                    BranchUnlessAssigned(il, s, op.DictSlot, op.Type, op.HasInitial ? notAssigned : slow);
                    PrevAddress(il, s, op.DictSlot);
                    il.Emit(OpCodes.Ldfld, PrevInt);
                    if (op.Op == FastOperator.Increment)
                    {
                        il.Emit(OpCodes.Ldc_I8, 1L);
                        il.Emit(OpCodes.Add);
                        il.Emit(OpCodes.Stloc, s.V);
                        BranchIfIncrementOverflows(il, s, op.Type, slow);
                        PrevAddress(il, s, op.DictSlot);
                        il.Emit(OpCodes.Ldloc, s.V);
                        il.Emit(OpCodes.Stfld, PrevInt);
                    }
                    else
                    {
                        il.Emit(OpCodes.Stloc, s.V);
                    }

                    if (op.HasInitial)
                    {
                        il.Emit(OpCodes.Br, done);
                        il.MarkLabel(notAssigned);
                        PrevAddress(il, s, op.DictSlot);
                        il.Emit(OpCodes.Ldfld, PrevState);
                        il.Emit(OpCodes.Brtrue, slow); // empty, or assigned by another type
                        SetV(il, s, op.Initial);
                        AssignPrevious(il, s, op.DictSlot, op.Type);
                    }

                    il.MarkLabel(done);
                    break;
                }

            case FastOperator.Delta:
                {
                    // A NULL delta leaves the dictionary as it is.
                    EmitReadSigned(il, s, op.Nullable, absent, slow);
                    var undefined = il.DefineLabel();
                    var done = il.DefineLabel();
                    BranchUnlessAssigned(il, s, op.DictSlot, op.Type, undefined);

                    // Assigned by this type: only the value changes.
                    PrevAddress(il, s, op.DictSlot);
                    il.Emit(OpCodes.Ldfld, PrevInt);
                    il.Emit(OpCodes.Stloc, s.W);
                    EmitDeltaSum(il, s, op.Type, slow);
                    PrevAddress(il, s, op.DictSlot);
                    il.Emit(OpCodes.Ldloc, s.V);
                    il.Emit(OpCodes.Stfld, PrevInt);
                    il.Emit(OpCodes.Br, done);

                    // Undefined: the base is the initial value or 0, and the entry becomes assigned; empty, or
                    // assigned by another type: cold.
                    il.MarkLabel(undefined);
                    PrevAddress(il, s, op.DictSlot);
                    il.Emit(OpCodes.Ldfld, PrevState);
                    il.Emit(OpCodes.Brtrue, slow);
                    il.Emit(OpCodes.Ldc_I8, op.HasInitial ? op.Initial : 0L);
                    il.Emit(OpCodes.Stloc, s.W);
                    EmitDeltaSum(il, s, op.Type, slow);
                    AssignPrevious(il, s, op.DictSlot, op.Type);
                    il.MarkLabel(done);
                    break;
                }

            default:
                throw new InvalidOperationException($"operator {op.Op} is not emitted inline");
        }
    }

    /// <summary>Base <see cref="State.W"/> + delta <see cref="State.V"/> into <see cref="State.V"/>, to <paramref name="slow"/> out of the type's range.</summary>
    private static void EmitDeltaSum(ILGenerator il, State s, FastFieldType type, Label slow)
    {
        il.Emit(OpCodes.Ldloc, s.W);
        il.Emit(OpCodes.Ldloc, s.V);
        il.Emit(OpCodes.Add);
        il.Emit(OpCodes.Stloc, s.X);
        BranchIfSumOutOfRange(il, s, type, slow);
        il.Emit(OpCodes.Ldloc, s.X);
        il.Emit(OpCodes.Stloc, s.V);
    }

    /// <summary>An integer of <paramref name="type"/> on the wire into <see cref="State.V"/>, NULL to <paramref name="nullValue"/>.</summary>
    private static void EmitRead(ILGenerator il, State s, FastFieldType type, bool nullable, Label nullValue, Label slow, bool exponent = false)
    {
        if (type is FastFieldType.UInt32 or FastFieldType.UInt64)
        {
            EmitReadUnsigned(il, s, type, nullable, nullValue, slow);
        }
        else
        {
            EmitReadSigned(il, s, nullable, nullValue, slow, int32: type == FastFieldType.Int32);
            if (exponent)
            {
                il.Emit(OpCodes.Ldloc, s.V);
                il.Emit(OpCodes.Ldc_I8, 63L);
                il.Emit(OpCodes.Add);
                il.Emit(OpCodes.Ldc_I8, 126L);
                il.Emit(OpCodes.Bgt_Un, slow);
            }
        }
    }

    /// <summary>
    /// An unsigned integer: one and two bytes inline, three to eight from one word
    /// (<see cref="CompiledOps.WordUnsigned"/>), anything else (and an overlong first byte) to <paramref name="slow"/>.
    /// </summary>
    private static void EmitReadUnsigned(ILGenerator il, State s, FastFieldType type, bool nullable, Label nullValue, Label slow)
    {
        var two = il.DefineLabel();
        var word = il.DefineLabel();
        var got = il.DefineLabel();
        LoadFirstByte(il, s, slow, two);
        il.Emit(OpCodes.Ldloc, s.B);
        il.Emit(OpCodes.Ldc_I4, 0x7F);
        il.Emit(OpCodes.And);
        il.Emit(OpCodes.Conv_U8);
        il.Emit(OpCodes.Stloc, s.V);
        Advance(il, s, 1);
        il.Emit(OpCodes.Br, got);

        il.MarkLabel(two);
        il.Emit(OpCodes.Ldloc, s.B);
        il.Emit(OpCodes.Brfalse, slow); // a leading zero byte: overlong, or an integer the slow path reads
        BranchUnlessAvailable(il, s, 1, slow);
        LoadByteAt(il, s, 1);
        il.Emit(OpCodes.Ldc_I4, 0x80);
        il.Emit(OpCodes.Blt_Un, word);
        il.Emit(OpCodes.Ldloc, s.B);
        il.Emit(OpCodes.Ldc_I4_7);
        il.Emit(OpCodes.Shl);
        LoadByteAt(il, s, 1);
        il.Emit(OpCodes.Ldc_I4, 0x7F);
        il.Emit(OpCodes.And);
        il.Emit(OpCodes.Or);
        il.Emit(OpCodes.Conv_U8);
        il.Emit(OpCodes.Stloc, s.V);
        Advance(il, s, 2);
        il.Emit(OpCodes.Br, got);

        // Three to eight bytes: value in the low 56 bits, length in the top 8 (0: not decoded here).
        il.MarkLabel(word);
        ReadWord(il, s, WordUnsignedOp, slow);
        il.Emit(OpCodes.Ldloc, s.X);
        il.Emit(OpCodes.Ldc_I8, 0x00FF_FFFF_FFFF_FFFFL);
        il.Emit(OpCodes.And);
        il.Emit(OpCodes.Stloc, s.V);
        if (type == FastFieldType.UInt32)
        {
            // Only a word can hold more than 32 bits (D2, the cold block's to report); NULL takes one value.
            il.Emit(OpCodes.Ldloc, s.V);
            il.Emit(OpCodes.Ldc_I8, (long)uint.MaxValue + (nullable ? 1 : 0));
            il.Emit(OpCodes.Bgt_Un, slow);
        }

        AdvancePastWord(il, s);

        il.MarkLabel(got);
        if (nullable)
        {
            il.Emit(OpCodes.Ldloc, s.V);
            il.Emit(OpCodes.Brfalse, nullValue);
            il.Emit(OpCodes.Ldloc, s.V);
            il.Emit(OpCodes.Ldc_I8, 1L);
            il.Emit(OpCodes.Sub);
            il.Emit(OpCodes.Stloc, s.V);
        }
    }

    /// <summary>
    /// A signed integer into <see cref="State.V"/>: one and two bytes inline, three to eight from one word
    /// (<see cref="CompiledOps.WordSigned"/>); longer ones, overlong forms and int32 values out of range (when
    /// <paramref name="int32"/>) to <paramref name="slow"/>.
    /// </summary>
    private static void EmitReadSigned(ILGenerator il, State s, bool nullable, Label nullValue, Label slow, bool int32 = false)
    {
        var two = il.DefineLabel();
        var word = il.DefineLabel();
        var got = il.DefineLabel();
        LoadFirstByte(il, s, slow, two);
        il.Emit(OpCodes.Ldloc, s.B);
        il.Emit(OpCodes.Conv_U8);
        il.Emit(OpCodes.Ldc_I4, 57);
        il.Emit(OpCodes.Shl);
        il.Emit(OpCodes.Ldc_I4, 57);
        il.Emit(OpCodes.Shr); // sign from bit 6
        il.Emit(OpCodes.Stloc, s.V);
        Advance(il, s, 1);
        il.Emit(OpCodes.Br, got);

        il.MarkLabel(two);
        BranchUnlessAvailable(il, s, 1, slow);
        LoadByteAt(il, s, 1);
        il.Emit(OpCodes.Ldc_I4, 0x80);
        il.Emit(OpCodes.Blt_Un, word);
        il.Emit(OpCodes.Ldloc, s.B);
        il.Emit(OpCodes.Conv_U8);
        il.Emit(OpCodes.Ldc_I4, 57);
        il.Emit(OpCodes.Shl);
        LoadByteAt(il, s, 1);
        il.Emit(OpCodes.Ldc_I4, 0x7F);
        il.Emit(OpCodes.And);
        il.Emit(OpCodes.Conv_U8);
        il.Emit(OpCodes.Ldc_I4, 50);
        il.Emit(OpCodes.Shl);
        il.Emit(OpCodes.Or);
        il.Emit(OpCodes.Ldc_I4, 50);
        il.Emit(OpCodes.Shr); // 14 bits, sign from bit 13
        il.Emit(OpCodes.Stloc, s.V);

        // A value that fits 7 bits is an overlong two-byte form: the slow path decides what that is.
        il.Emit(OpCodes.Ldloc, s.V);
        il.Emit(OpCodes.Ldc_I8, 64L);
        il.Emit(OpCodes.Add);
        il.Emit(OpCodes.Ldc_I8, 128L);
        il.Emit(OpCodes.Blt_Un, slow);
        Advance(il, s, 2);
        il.Emit(OpCodes.Br, got);

        // Three to eight bytes: value in the low 56 bits (sign at bit 55), length in the top 8 (0: not decoded here).
        il.MarkLabel(word);
        ReadWord(il, s, WordSignedOp, slow);
        il.Emit(OpCodes.Ldloc, s.X);
        il.Emit(OpCodes.Ldc_I4_8);
        il.Emit(OpCodes.Shl);
        il.Emit(OpCodes.Ldc_I4_8);
        il.Emit(OpCodes.Shr);
        il.Emit(OpCodes.Stloc, s.V);
        if (int32)
        {
            il.Emit(OpCodes.Ldloc, s.V);
            il.Emit(OpCodes.Ldloc, s.V);
            il.Emit(OpCodes.Conv_I4);
            il.Emit(OpCodes.Conv_I8);
            il.Emit(OpCodes.Bne_Un, slow); // D2, the cold block's to report
        }

        AdvancePastWord(il, s);

        il.MarkLabel(got);
        if (nullable)
        {
            var notPositive = il.DefineLabel();
            il.Emit(OpCodes.Ldloc, s.V);
            il.Emit(OpCodes.Brfalse, nullValue);
            il.Emit(OpCodes.Ldloc, s.V);
            il.Emit(OpCodes.Ldc_I8, 0L);
            il.Emit(OpCodes.Ble, notPositive);
            il.Emit(OpCodes.Ldloc, s.V);
            il.Emit(OpCodes.Ldc_I8, 1L);
            il.Emit(OpCodes.Sub);
            il.Emit(OpCodes.Stloc, s.V);
            il.MarkLabel(notPositive);
        }
    }

    /// <summary>
    /// A word read (<see cref="CompiledOps.WordUnsigned"/>, <see cref="CompiledOps.WordSigned"/>) at the read position
    /// into <see cref="State.X"/>: the value in the low 56 bits, the length in the top 8; to <paramref name="slow"/>
    /// when it is not one a word holds (0).
    /// </summary>
    private static void ReadWord(ILGenerator il, State s, MethodInfo op, Label slow)
    {
        il.Emit(OpCodes.Ldloc, s.DataRef);
        il.Emit(OpCodes.Ldloc, s.Len);
        il.Emit(OpCodes.Ldloc, s.Pos);
        il.Emit(OpCodes.Call, op);
        il.Emit(OpCodes.Stloc, s.X);
        il.Emit(OpCodes.Ldloc, s.X);
        il.Emit(OpCodes.Brfalse, slow);
    }

    /// <summary>The read position moves past the word read in <see cref="State.X"/> (its length is the top byte).</summary>
    private static void AdvancePastWord(ILGenerator il, State s)
    {
        il.Emit(OpCodes.Ldloc, s.Pos);
        il.Emit(OpCodes.Ldloc, s.X);
        il.Emit(OpCodes.Ldc_I4, 56);
        il.Emit(OpCodes.Shr_Un);
        il.Emit(OpCodes.Conv_I4);
        il.Emit(OpCodes.Add);
        il.Emit(OpCodes.Stloc, s.Pos);
    }

    /// <summary>The first byte of an integer into <see cref="State.B"/> (see below); to <paramref name="more"/> when it has no stop bit.</summary>
    private static void LoadFirstByte(ILGenerator il, State s, Label slow, Label more)
    {
        LoadFirstByte(il, s, slow);
        il.Emit(OpCodes.Ldloc, s.B);
        il.Emit(OpCodes.Ldc_I4, 0x80);
        il.Emit(OpCodes.Blt_Un, more);
    }

    /// <summary>The byte at the read position into <see cref="State.B"/>, or to <paramref name="slow"/> at the end of the data.</summary>
    private static void LoadFirstByte(ILGenerator il, State s, Label slow)
    {
        BranchUnlessAvailable(il, s, 0, slow);
        LoadByteAt(il, s, 0);
        il.Emit(OpCodes.Stloc, s.B);
    }

    /// <summary>To <paramref name="slow"/> unless the byte at the read position + <paramref name="offset"/> is in the data.</summary>
    private static void BranchUnlessAvailable(ILGenerator il, State s, int offset, Label slow)
    {
        il.Emit(OpCodes.Ldloc, s.Pos);
        if (offset > 0)
        {
            Int(il, offset);
            il.Emit(OpCodes.Add);
        }

        il.Emit(OpCodes.Ldloc, s.Len);
        il.Emit(OpCodes.Bge_Un, slow);
    }

    /// <summary>Pushes the byte at the read position + <paramref name="offset"/> (checked by the caller).</summary>
    private static void LoadByteAt(ILGenerator il, State s, int offset)
    {
        il.Emit(OpCodes.Ldloc, s.DataRef);
        il.Emit(OpCodes.Ldloc, s.Pos);
        il.Emit(OpCodes.Conv_U);
        il.Emit(OpCodes.Add);
        if (offset > 0)
        {
            Int(il, offset);
            il.Emit(OpCodes.Add);
        }

        il.Emit(OpCodes.Ldind_U1);
    }

    private static void Advance(ILGenerator il, State s, int bytes)
    {
        il.Emit(OpCodes.Ldloc, s.Pos);
        Int(il, bytes);
        il.Emit(OpCodes.Add);
        il.Emit(OpCodes.Stloc, s.Pos);
    }

    private static void SetV(ILGenerator il, State s, long value)
    {
        il.Emit(OpCodes.Ldc_I8, value);
        il.Emit(OpCodes.Stloc, s.V);
    }

    /// <summary>
    /// To <paramref name="clear"/> when the operation has no presence bit (<paramref name="usesBit"/> false: it reads
    /// as clear, as in the interpreter) or its bit is 0.
    /// </summary>
    private static void BranchIfBitClear(ILGenerator il, State s, bool usesBit, int shift, Label clear)
    {
        if (usesBit)
        {
            BranchIfBitClear(il, s, shift, clear);
        }
        else
        {
            il.Emit(OpCodes.Br, clear);
        }
    }

    /// <summary>To <paramref name="clear"/> when the presence bit <paramref name="shift"/> bits into the loaded window is 0.</summary>
    private static void BranchIfBitClear(ILGenerator il, State s, int shift, Label clear)
    {
        ShiftedWindow(il, s, shift);
        il.Emit(OpCodes.Ldc_I8, 0L);
        il.Emit(OpCodes.Bge, clear); // the bit is the sign
    }

    /// <summary>Pushes the loaded window shifted past <paramref name="shift"/> bits.</summary>
    private static void ShiftedWindow(ILGenerator il, State s, int shift)
    {
        il.Emit(OpCodes.Ldloc, s.Pm);
        if (shift > 0)
        {
            Int(il, shift);
            il.Emit(OpCodes.Shl);
        }
    }

    private static void SlotAddress(ILGenerator il, State s, int slot)
    {
        il.Emit(OpCodes.Ldloc, s.Scope);
        if (slot > 0)
        {
            Int(il, slot * ValueSize);
            il.Emit(OpCodes.Add);
        }
    }

    /// <summary>The slot holds <see cref="State.V"/> as <paramref name="kind"/>.</summary>
    private static void StoreSlotValue(ILGenerator il, State s, int slot, FastValueKind kind)
    {
        SlotAddress(il, s, slot);
        il.Emit(OpCodes.Ldloc, s.V);
        il.Emit(OpCodes.Stfld, ValueInt);
        SlotAddress(il, s, slot);
        Int(il, (int)kind);
        il.Emit(OpCodes.Stfld, ValueKind);
    }

    /// <summary>The dictionary entry (slots resolved by the template compiler, always inside the array).</summary>
    private static void PrevAddress(ILGenerator il, State s, int dictSlot)
    {
        il.Emit(OpCodes.Ldloc, s.DictRef);
        if (dictSlot > 0)
        {
            Int(il, dictSlot * PrevSize);
            il.Emit(OpCodes.Add);
        }
    }

    /// <summary>To <paramref name="otherwise"/> unless the entry is assigned by a field of <paramref name="type"/>.</summary>
    private static void BranchUnlessAssigned(ILGenerator il, State s, int dictSlot, FastFieldType type, Label otherwise)
    {
        if (StateTypeAdjacent)
        {
            PrevAddress(il, s, dictSlot);
            il.Emit(OpCodes.Ldflda, PrevState);
            il.Emit(OpCodes.Ldind_U2);
            Int(il, (int)PreviousState.Assigned | ((int)type << 8));
            il.Emit(OpCodes.Bne_Un, otherwise);
            return;
        }

        PrevAddress(il, s, dictSlot);
        il.Emit(OpCodes.Ldfld, PrevState);
        Int(il, (int)PreviousState.Assigned);
        il.Emit(OpCodes.Bne_Un, otherwise);
        PrevAddress(il, s, dictSlot);
        il.Emit(OpCodes.Ldfld, PrevType);
        Int(il, (int)type);
        il.Emit(OpCodes.Bne_Un, otherwise);
    }

    /// <summary>The entry becomes <see cref="State.V"/>, assigned by a field of <paramref name="type"/>.</summary>
    private static void AssignPrevious(ILGenerator il, State s, int dictSlot, FastFieldType type)
    {
        PrevAddress(il, s, dictSlot);
        il.Emit(OpCodes.Ldloc, s.V);
        il.Emit(OpCodes.Stfld, PrevInt);
        if (StateTypeAdjacent)
        {
            PrevAddress(il, s, dictSlot);
            il.Emit(OpCodes.Ldflda, PrevState);
            Int(il, (int)PreviousState.Assigned | ((int)type << 8));
            il.Emit(OpCodes.Stind_I2);
            return;
        }

        PrevAddress(il, s, dictSlot);
        Int(il, (int)PreviousState.Assigned);
        il.Emit(OpCodes.Stfld, PrevState);
        PrevAddress(il, s, dictSlot);
        Int(il, (int)type);
        il.Emit(OpCodes.Stfld, PrevType);
    }

    /// <summary>To <paramref name="slow"/> when the incremented <see cref="State.V"/> went past the type's maximum (D2).</summary>
    private static void BranchIfIncrementOverflows(ILGenerator il, State s, FastFieldType type, Label slow)
    {
        il.Emit(OpCodes.Ldloc, s.V);
        switch (type)
        {
            case FastFieldType.UInt32:
                il.Emit(OpCodes.Ldc_I8, (long)uint.MaxValue);
                il.Emit(OpCodes.Bgt_Un, slow);
                break;
            case FastFieldType.Int32:
                il.Emit(OpCodes.Ldloc, s.V);
                il.Emit(OpCodes.Conv_I4);
                il.Emit(OpCodes.Conv_I8);
                il.Emit(OpCodes.Bne_Un, slow);
                break;
            case FastFieldType.UInt64:
                il.Emit(OpCodes.Brfalse, slow);
                break;
            default:
                il.Emit(OpCodes.Ldc_I8, long.MinValue);
                il.Emit(OpCodes.Beq, slow);
                break;
        }
    }

    /// <summary>To <paramref name="slow"/> when base <see cref="State.W"/> + delta <see cref="State.V"/> = <see cref="State.X"/> left the type's range (D2).</summary>
    private static void BranchIfSumOutOfRange(ILGenerator il, State s, FastFieldType type, Label slow)
    {
        if (type == FastFieldType.UInt64)
        {
            // Wrapped around when the sum moved against the delta's sign.
            var negative = il.DefineLabel();
            var ok = il.DefineLabel();
            il.Emit(OpCodes.Ldloc, s.V);
            il.Emit(OpCodes.Ldc_I8, 0L);
            il.Emit(OpCodes.Blt, negative);
            il.Emit(OpCodes.Ldloc, s.X);
            il.Emit(OpCodes.Ldloc, s.W);
            il.Emit(OpCodes.Blt_Un, slow);
            il.Emit(OpCodes.Br, ok);
            il.MarkLabel(negative);
            il.Emit(OpCodes.Ldloc, s.X);
            il.Emit(OpCodes.Ldloc, s.W);
            il.Emit(OpCodes.Bge_Un, slow);
            il.MarkLabel(ok);
            return;
        }

        // Signed overflow of the 64-bit sum: both operands' signs differ from the sum's.
        il.Emit(OpCodes.Ldloc, s.W);
        il.Emit(OpCodes.Ldloc, s.X);
        il.Emit(OpCodes.Xor);
        il.Emit(OpCodes.Ldloc, s.V);
        il.Emit(OpCodes.Ldloc, s.X);
        il.Emit(OpCodes.Xor);
        il.Emit(OpCodes.And);
        il.Emit(OpCodes.Ldc_I8, 0L);
        il.Emit(OpCodes.Blt, slow);
        if (type == FastFieldType.UInt32)
        {
            il.Emit(OpCodes.Ldloc, s.X);
            il.Emit(OpCodes.Ldc_I8, (long)uint.MaxValue);
            il.Emit(OpCodes.Bgt_Un, slow);
        }
        else if (type == FastFieldType.Int32)
        {
            il.Emit(OpCodes.Ldloc, s.X);
            il.Emit(OpCodes.Ldloc, s.X);
            il.Emit(OpCodes.Conv_I4);
            il.Emit(OpCodes.Conv_I8);
            il.Emit(OpCodes.Bne_Un, slow);
        }
    }

    /// <summary>
    /// The input's first byte and length, the dictionary's first entry, and for emitted strings among
    /// <paramref name="fields"/> the message arena and the dictionary's string buffers, as plain locals.
    /// </summary>
    private static void LoadRawState(ILGenerator il, State s, ReadOnlySpan<FastField> fields)
    {
        bool strings = false;
        bool copyStrings = false;
        foreach (var f in fields)
        {
            if (IsEmittedString(f))
            {
                strings = true;
                copyStrings |= f.Operator == FastOperator.Copy;
            }
        }

        il.Emit(OpCodes.Ldloc, s.Data);
        il.Emit(OpCodes.Call, SpanReference);
        il.Emit(OpCodes.Stloc, s.DataRef);
        il.Emit(OpCodes.Ldloca, s.Data);
        il.Emit(OpCodes.Call, SpanLength);
        il.Emit(OpCodes.Stloc, s.Len);
        il.Emit(OpCodes.Ldloc, s.Dict);
        il.Emit(OpCodes.Call, ArrayReference);
        il.Emit(OpCodes.Stloc, s.DictRef);
        if (strings)
        {
            il.Emit(OpCodes.Ldloc, s.Message);
            il.Emit(OpCodes.Ldfld, MessageArena);
            il.Emit(OpCodes.Dup);
            il.Emit(OpCodes.Ldlen);
            il.Emit(OpCodes.Conv_I4);
            il.Emit(OpCodes.Stloc, s.ArenaSize);
            il.Emit(OpCodes.Call, ByteArrayReference);
            il.Emit(OpCodes.Stloc, s.ArenaRef);
        }

        if (copyStrings)
        {
            il.Emit(OpCodes.Ldarg_1);
            il.Emit(OpCodes.Call, GetDictionaryBytes);
            il.Emit(OpCodes.Call, ByteArraysReference);
            il.Emit(OpCodes.Stloc, s.DictBytesRef);
        }
    }

    private static readonly MethodInfo SpanReference = typeof(MemoryMarshal).GetMethods(Static)
        .Single(m => m.Name == nameof(MemoryMarshal.GetReference) && m.GetParameters()[0].ParameterType.IsGenericType
            && m.GetParameters()[0].ParameterType.GetGenericTypeDefinition() == typeof(ReadOnlySpan<>))
        .MakeGenericMethod(typeof(byte));

    private static readonly MethodInfo SpanLength = typeof(ReadOnlySpan<byte>).GetProperty(nameof(ReadOnlySpan<byte>.Length))!.GetMethod!;

    private static readonly MethodInfo ArrayReference = typeof(MemoryMarshal).GetMethods(Static)
        .Single(m => m.Name == nameof(MemoryMarshal.GetArrayDataReference) && m.IsGenericMethodDefinition)
        .MakeGenericMethod(typeof(PreviousValue));

    /// <summary>The cold blocks collected while emitting a method, after its last return.</summary>
    private static void EmitCold(State s)
    {
        foreach (var block in s.Cold)
        {
            block();
        }

        s.Cold.Clear();
    }
}
