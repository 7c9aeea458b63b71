using System.Reflection;
using System.Reflection.Emit;
using RapidFix.Fast.Messages;
using RapidFix.Fast.Templates;

namespace RapidFix.Fast.Codec;

/// <summary>
/// ASCII string (and byte vector) fields emitted as IL, like the integers (BodyCompiler.Integers.cs): constant and default values
/// are stored as references into the template's constant pool, one-character strings (nearly all of them in
/// market data) are appended to the message arena inline, longer ones with <see cref="CompiledOps.AppendWireAscii"/>.
/// Everything else (empty strings, "\0", overlong forms, a previous value that is not assigned, a full arena,
/// every error) goes to a cold block that has the interpreter decode the field from its first byte.
/// </summary>
internal static partial class BodyCompiler
{
    private static readonly FieldInfo ValueOffset = typeof(FastValue).GetField(nameof(FastValue.Offset), Instance)!;
    private static readonly FieldInfo PrevLength = typeof(PreviousValue).GetField(nameof(PreviousValue.Length), Instance)!;
    private static readonly FieldInfo MessageArena = typeof(FastMessage).GetField(nameof(FastMessage.Arena), Instance)!;
    private static readonly FieldInfo MessageArenaLength = typeof(FastMessage).GetField(nameof(FastMessage.ArenaLength), Instance)!;
    private static readonly MethodInfo GetDictionaryBytes = RunType.GetProperty(nameof(DecodeRun<FastMessageWriter>.DictionaryByteArrays), Instance)!.GetMethod!;
    private static readonly MethodInfo GetMaxStringBytes = RunType.GetProperty(nameof(DecodeRun<FastMessageWriter>.MaxStringBytes), Instance)!.GetMethod!;
    private static readonly MethodInfo InterpretWithBit = RunType.GetMethod(nameof(DecodeRun<FastMessageWriter>.InterpretWithBit), Instance)!;
    private static readonly MethodInfo AppendWireAsciiOp = typeof(CompiledOps).GetMethod(nameof(CompiledOps.AppendWireAscii), Static)!;
    private static readonly MethodInfo AppendPreviousOp = typeof(CompiledOps).GetMethod(nameof(CompiledOps.AppendPrevious), Static)!;

    /// <summary>
    /// Fields <see cref="EmitStringField"/> emits: ASCII strings, and byte vectors, whose values on the wire (a length,
    /// then the bytes) always go to the cold block; their template and previous values are handled alike.
    /// </summary>
    private static bool IsEmittedString(FastField f) =>
        f.Code is Opcode.Ascii or Opcode.Bytes && f.Operator is FastOperator.None or FastOperator.Constant or FastOperator.Default or FastOperator.Copy;

    /// <summary>An ASCII string field whose presence bit (if any) is the bit at <paramref name="shift"/> in the loaded window.</summary>
    private static void EmitStringField(ILGenerator il, State s, FastField f, int shift, Label fail)
    {
        var end = il.DefineLabel();
        var slow = il.DefineLabel();
        var absent = il.DefineLabel();
        var at = s.At;
        bool wireBit = f.Operator != FastOperator.None; // the bit, when the value comes from the wire
        il.Emit(OpCodes.Ldloc, s.Pos);
        il.Emit(OpCodes.Stloc, at);

        switch (f.Operator)
        {
            case FastOperator.None:
                EmitWireString(il, s, f, absent, slow, copy: false);
                break;

            case FastOperator.Constant:
                if (f.IsOptional)
                {
                    BranchIfBitClear(il, s, f.UsesPmapBit, shift, absent);
                }

                StoreTemplateString(il, s, f);
                break;

            case FastOperator.Default:
                {
                    var fromTemplate = il.DefineLabel();
                    BranchIfBitClear(il, s, f.UsesPmapBit, shift, fromTemplate);
                    EmitWireString(il, s, f, absent, slow, copy: false);
                    il.Emit(OpCodes.Br, end);
                    il.MarkLabel(fromTemplate);
                    if (f.HasInitial)
                    {
                        StoreTemplateString(il, s, f);
                    }
                    else
                    {
                        il.Emit(OpCodes.Br, absent);
                    }

                    break;
                }

            case FastOperator.Copy:
                {
                    var previous = il.DefineLabel();
                    BranchIfBitClear(il, s, shift, previous); // a copy always reads its bit (BitsTaken)
                    EmitWireString(il, s, f, absent, slow, copy: true);
                    il.Emit(OpCodes.Br, end);
                    il.MarkLabel(previous);
                    EmitPreviousString(il, s, f, slow);
                    break;
                }
        }

        il.Emit(OpCodes.Br, end);
        il.MarkLabel(absent);
        SlotAddress(il, s, f.Slot);
        il.Emit(OpCodes.Ldc_I4, (int)FastValueKind.Absent);
        il.Emit(OpCodes.Stfld, ValueKind);
        il.MarkLabel(end);

        // Cold: the interpreter decodes the field from its first byte. The wire path is the only one that can get
        // here with the bit set; a copy with the bit clear and no assigned previous value comes with it clear.
        var previousSlow = il.DefineLabel();
        s.Cold.Add(() =>
        {
            il.MarkLabel(slow);
            if (f.Operator == FastOperator.Copy)
            {
                // Which path sent the field here: the bit tells.
                ShiftedWindow(il, s, shift);
                il.Emit(OpCodes.Ldc_I8, 0L);
                il.Emit(OpCodes.Clt);
            }
            else
            {
                Bool(il, wireBit);
            }

            il.Emit(OpCodes.Stloc, s.B);
            il.Emit(OpCodes.Ldarg_1);
            il.Emit(OpCodes.Ldloc, at);
            il.Emit(OpCodes.Call, SetPosition);
            il.Emit(OpCodes.Ldarg_1);
            Int(il, f.Index);
            il.Emit(OpCodes.Ldloc, s.B);
            il.Emit(OpCodes.Ldc_I4_0); // only structure reads the depth
            il.Emit(OpCodes.Call, InterpretWithBit);
            il.Emit(OpCodes.Brfalse, fail);
            il.Emit(OpCodes.Ldarg_1);
            il.Emit(OpCodes.Call, GetPosition);
            il.Emit(OpCodes.Stloc, s.Pos);
            il.Emit(OpCodes.Br, end);
        });
    }

    /// <summary>The template's value, by reference into the constant pool (absent for a default without one).</summary>
    private static void StoreTemplateString(ILGenerator il, State s, FastField f)
    {
        int length = f.InitialBytes.Length;
        SlotAddress(il, s, f.Slot);
        Int(il, (int)FastValueKind.Bytes);
        il.Emit(OpCodes.Stfld, ValueKind);
        SlotAddress(il, s, f.Slot);
        Int(il, length == 0 ? 0 : ~f.InitialPoolOffset);
        il.Emit(OpCodes.Stfld, ValueOffset);
        SlotAddress(il, s, f.Slot);
        Int(il, length);
        il.Emit(OpCodes.Stfld, ValueAux);
    }

    /// <summary>
    /// A string on the wire: NULL (when nullable) to <paramref name="absent"/>, one character appended inline, a
    /// longer ordinary string by <see cref="CompiledOps.AppendWireAscii"/>; with <paramref name="copy"/>, it also
    /// becomes the dictionary's previous value. Anything else to <paramref name="slow"/>, nothing stored.
    /// </summary>
    private static void EmitWireString(ILGenerator il, State s, FastField f, Label absent, Label slow, bool copy)
    {
        if (f.Code == Opcode.Bytes)
        {
            il.Emit(OpCodes.Br, slow);
            return;
        }

        var longer = il.DefineLabel();
        var stored = il.DefineLabel();
        LoadFirstByte(il, s, slow);
        if (f.Nullable)
        {
            var notNull = il.DefineLabel();
            il.Emit(OpCodes.Ldloc, s.B);
            Int(il, 0x80);
            il.Emit(OpCodes.Bne_Un, notNull);
            if (copy)
            {
                PrevAddress(il, s, f.DictSlot);
                il.Emit(OpCodes.Ldc_I4, (int)PreviousState.Empty);
                il.Emit(OpCodes.Stfld, PrevState);
            }

            Advance(il, s, 1);
            il.Emit(OpCodes.Br, absent);
            il.MarkLabel(notNull);
        }

        // One character: a stop bit and a non-zero character (0x80 alone is the empty string, or NULL).
        il.Emit(OpCodes.Ldloc, s.B);
        Int(il, 0x80);
        il.Emit(OpCodes.Ble_Un, longer);
        LoadArenaLength(il, s);
        il.Emit(OpCodes.Stloc, s.Off);
        il.Emit(OpCodes.Ldloc, s.Off);
        il.Emit(OpCodes.Ldloc, s.ArenaSize);
        il.Emit(OpCodes.Bge_Un, slow); // the arena is full: the interpreter reports it
        ArenaByte(il, s);
        il.Emit(OpCodes.Ldloc, s.B);
        Int(il, 0x7F);
        il.Emit(OpCodes.And);
        il.Emit(OpCodes.Stind_I1);
        if (copy)
        {
            FirstDictionaryByte(il, s, f.DictSlot);
            il.Emit(OpCodes.Ldloc, s.B);
            Int(il, 0x7F);
            il.Emit(OpCodes.And);
            il.Emit(OpCodes.Stind_I1);
            PrevAddress(il, s, f.DictSlot);
            il.Emit(OpCodes.Ldc_I4_1);
            il.Emit(OpCodes.Stfld, PrevLength);
        }

        StoreArenaLength(il, s, 1);
        Advance(il, s, 1);
        il.Emit(OpCodes.Ldc_I4_1);
        il.Emit(OpCodes.Stloc, s.Len1);
        il.Emit(OpCodes.Br, stored);

        // Longer: an ordinary string (first character not zero); its end, or -1 for the interpreter to report.
        il.MarkLabel(longer);
        il.Emit(OpCodes.Ldloc, s.B);
        Int(il, 0x7F);
        il.Emit(OpCodes.And);
        il.Emit(OpCodes.Brfalse, slow);
        il.Emit(OpCodes.Ldloc, s.Message);
        il.Emit(OpCodes.Ldloc, s.Data);
        il.Emit(OpCodes.Ldloc, s.Pos);
        il.Emit(OpCodes.Ldarg_1);
        il.Emit(OpCodes.Call, GetMaxStringBytes);
        if (copy)
        {
            DictionaryBytes(il, s, f.DictSlot);
        }
        else
        {
            il.Emit(OpCodes.Ldnull);
        }

        il.Emit(OpCodes.Call, AppendWireAsciiOp);
        il.Emit(OpCodes.Stloc, s.Off); // the end, for now
        il.Emit(OpCodes.Ldloc, s.Off);
        il.Emit(OpCodes.Ldc_I4_0);
        il.Emit(OpCodes.Blt, slow);
        il.Emit(OpCodes.Ldloc, s.Off);
        il.Emit(OpCodes.Ldloc, s.Pos);
        il.Emit(OpCodes.Sub);
        il.Emit(OpCodes.Stloc, s.Len1);
        il.Emit(OpCodes.Ldloc, s.Off);
        il.Emit(OpCodes.Stloc, s.Pos);
        if (copy)
        {
            PrevAddress(il, s, f.DictSlot);
            il.Emit(OpCodes.Ldloc, s.Len1);
            il.Emit(OpCodes.Stfld, PrevLength);
        }

        LoadArenaLength(il, s); // appended last
        il.Emit(OpCodes.Ldloc, s.Len1);
        il.Emit(OpCodes.Sub);
        il.Emit(OpCodes.Stloc, s.Off);

        il.MarkLabel(stored);
        if (copy)
        {
            SetAssigned(il, s, f.DictSlot, f.Type);
        }

        StoreSlotBytes(il, s, f.Slot);
    }

    /// <summary>A copy string with its bit clear: the assigned previous value appended to the arena.</summary>
    private static void EmitPreviousString(ILGenerator il, State s, FastField f, Label slow)
    {
        var longer = il.DefineLabel();
        var stored = il.DefineLabel();
        BranchUnlessAssigned(il, s, f.DictSlot, f.Type, slow);
        PrevAddress(il, s, f.DictSlot);
        il.Emit(OpCodes.Ldfld, PrevLength);
        il.Emit(OpCodes.Stloc, s.Len1);
        il.Emit(OpCodes.Ldloc, s.Len1);
        il.Emit(OpCodes.Ldc_I4_1);
        il.Emit(OpCodes.Bne_Un, longer);
        LoadArenaLength(il, s);
        il.Emit(OpCodes.Stloc, s.Off);
        il.Emit(OpCodes.Ldloc, s.Off);
        il.Emit(OpCodes.Ldloc, s.ArenaSize);
        il.Emit(OpCodes.Bge_Un, slow);
        ArenaByte(il, s);
        FirstDictionaryByte(il, s, f.DictSlot);
        il.Emit(OpCodes.Ldind_U1);
        il.Emit(OpCodes.Stind_I1);
        StoreArenaLength(il, s, 1);
        il.Emit(OpCodes.Br, stored);

        il.MarkLabel(longer);
        il.Emit(OpCodes.Ldloc, s.Message);
        DictionaryBytes(il, s, f.DictSlot);
        il.Emit(OpCodes.Ldloc, s.Len1);
        il.Emit(OpCodes.Call, AppendPreviousOp);
        il.Emit(OpCodes.Stloc, s.Off);
        il.Emit(OpCodes.Ldloc, s.Off);
        il.Emit(OpCodes.Ldc_I4_0);
        il.Emit(OpCodes.Blt, slow);

        il.MarkLabel(stored);
        StoreSlotBytes(il, s, f.Slot);
    }

    /// <summary>The slot holds <see cref="State.Len1"/> bytes at arena offset <see cref="State.Off"/>.</summary>
    private static void StoreSlotBytes(ILGenerator il, State s, int slot)
    {
        SlotAddress(il, s, slot);
        Int(il, (int)FastValueKind.Bytes);
        il.Emit(OpCodes.Stfld, ValueKind);
        SlotAddress(il, s, slot);
        il.Emit(OpCodes.Ldloc, s.Off);
        il.Emit(OpCodes.Stfld, ValueOffset);
        SlotAddress(il, s, slot);
        il.Emit(OpCodes.Ldloc, s.Len1);
        il.Emit(OpCodes.Stfld, ValueAux);
    }

    private static void LoadArenaLength(ILGenerator il, State s)
    {
        il.Emit(OpCodes.Ldloc, s.Message);
        il.Emit(OpCodes.Ldfld, MessageArenaLength);
    }

    /// <summary>The arena's length becomes <see cref="State.Off"/> + <paramref name="bytes"/>.</summary>
    private static void StoreArenaLength(ILGenerator il, State s, int bytes)
    {
        il.Emit(OpCodes.Ldloc, s.Message);
        il.Emit(OpCodes.Ldloc, s.Off);
        Int(il, bytes);
        il.Emit(OpCodes.Add);
        il.Emit(OpCodes.Stfld, MessageArenaLength);
    }

    /// <summary>Pushes the address of the arena byte at <see cref="State.Off"/> (checked against the arena's size by the caller).</summary>
    private static void ArenaByte(ILGenerator il, State s)
    {
        il.Emit(OpCodes.Ldloc, s.ArenaRef);
        il.Emit(OpCodes.Ldloc, s.Off);
        il.Emit(OpCodes.Conv_U);
        il.Emit(OpCodes.Add);
    }

    /// <summary>
    /// The dictionary entry's byte buffer (one per slot that holds strings, allocated with the decoder at
    /// <see cref="FastCodecLimits.MaxStringBytes"/>; slots resolved at compile time: no bounds check).
    /// </summary>
    private static void DictionaryBytes(ILGenerator il, State s, int dictSlot)
    {
        il.Emit(OpCodes.Ldloc, s.DictBytesRef);
        if (dictSlot > 0)
        {
            Int(il, dictSlot * IntPtr.Size);
            il.Emit(OpCodes.Add);
        }

        il.Emit(OpCodes.Ldind_Ref);
    }

    /// <summary>Pushes the address of the first byte of the dictionary entry's buffer (never empty: <see cref="FastCodecLimits.MaxStringBytes"/> is positive).</summary>
    private static void FirstDictionaryByte(ILGenerator il, State s, int dictSlot)
    {
        DictionaryBytes(il, s, dictSlot);
        il.Emit(OpCodes.Call, ByteArrayReference);
    }

    private static readonly MethodInfo ByteArrayReference = typeof(System.Runtime.InteropServices.MemoryMarshal).GetMethods(Static)
        .Single(m => m.Name == nameof(System.Runtime.InteropServices.MemoryMarshal.GetArrayDataReference) && m.IsGenericMethodDefinition)
        .MakeGenericMethod(typeof(byte));

    private static readonly MethodInfo ByteArraysReference = typeof(System.Runtime.InteropServices.MemoryMarshal).GetMethods(Static)
        .Single(m => m.Name == nameof(System.Runtime.InteropServices.MemoryMarshal.GetArrayDataReference) && m.IsGenericMethodDefinition)
        .MakeGenericMethod(typeof(byte[]));

    /// <summary>The entry's state and type become assigned by a field of <paramref name="type"/> (its value is set by the caller).</summary>
    private static void SetAssigned(ILGenerator il, State s, int dictSlot, FastFieldType type)
    {
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
}
