using System.Reflection;
using System.Reflection.Emit;
using RapidFix.Fast.Messages;
using RapidFix.Fast.Templates;

namespace RapidFix.Fast.Codec;

/// <summary>
/// Compiles template bodies at startup into straight-line encoding methods, as <see cref="BodyCompiler"/> does
/// for decoding: the write position, destination, presence-map writer, dictionary, message and the scope's first
/// slot in locals, and one <see cref="EncodeOps"/> call per instruction with its properties as constants.
/// </summary>
internal static class EncoderCompiler
{
    private const BindingFlags Instance = BindingFlags.Instance | BindingFlags.NonPublic | BindingFlags.Public;
    private const BindingFlags Static = BindingFlags.Static | BindingFlags.NonPublic | BindingFlags.Public;

    private static readonly Type RunType = typeof(EncodeRun);
    private static readonly MethodInfo GetPosition = RunType.GetProperty(nameof(EncodeRun.Position), Instance)!.GetMethod!;
    private static readonly MethodInfo SetPosition = RunType.GetProperty(nameof(EncodeRun.Position), Instance)!.SetMethod!;
    private static readonly MethodInfo GetDestination = RunType.GetProperty(nameof(EncodeRun.Destination), Instance)!.GetMethod!;
    private static readonly MethodInfo GetDictionary = RunType.GetProperty(nameof(EncodeRun.Dictionary), Instance)!.GetMethod!;
    private static readonly MethodInfo GetSource = RunType.GetProperty(nameof(EncodeRun.Source), Instance)!.GetMethod!;
    private static readonly MethodInfo ValueRef = RunType.GetMethod(nameof(EncodeRun.ValueRef), Instance)!;
    private static readonly MethodInfo IntOp = typeof(EncodeOps).GetMethod(nameof(EncodeOps.Int), Static)!;
    private static readonly MethodInfo SplitDecimalOp = typeof(EncodeOps).GetMethod(nameof(EncodeOps.SplitDecimal), Static)!;
    private static readonly MethodInfo BytesInitialOp = typeof(EncodeOps).GetMethod(nameof(EncodeOps.BytesInitial), Static)!;
    private static readonly MethodInfo BytesNoneOp = typeof(EncodeOps).GetMethod(nameof(EncodeOps.BytesNone), Static)!;
    private static readonly MethodInfo BytesCopyOp = typeof(EncodeOps).GetMethod(nameof(EncodeOps.BytesCopy), Static)!;
    private static readonly MethodInfo OtherOp = typeof(EncodeOps).GetMethod(nameof(EncodeOps.Other), Static)!;

    public static void Compile(IReadOnlyList<FastTemplate> templates, byte[] pool)
    {
        var done = new HashSet<FastGroupBody>();
        foreach (var t in templates)
        {
            Compile(t.Body, pool, done);
        }
    }

    private static void Compile(FastGroupBody body, byte[] pool, HashSet<FastGroupBody> done)
    {
        if (!done.Add(body))
        {
            return;
        }

        foreach (var f in body.Instructions)
        {
            if (f.Body is not null)
            {
                Compile(f.Body, pool, done);
            }
        }

        // The constant pool is bound as the delegate's target (a closed delegate over the array), so each
        // registry's compiled code sees its own pool without a lookup.
        var instructions = body.Instructions;
        DynamicMethod method;
        if (instructions.Length <= PartLength)
        {
            method = EmitPart(body.Name, instructions);
        }
        else
        {
            // Parts of the body, called in turn, each with the whole state handed over (position, presence map).
            method = NewMethod(body.Name);
            var il = method.GetILGenerator();
            var fail = il.DefineLabel();
            for (int from = 0, part = 0; from < instructions.Length; from += PartLength, part++)
            {
                var next = EmitPart($"{body.Name}_{part}", instructions.AsSpan(from, Math.Min(PartLength, instructions.Length - from)));
                il.Emit(OpCodes.Ldarg_0);
                il.Emit(OpCodes.Ldarg_1);
                il.Emit(OpCodes.Ldarg_2);
                il.Emit(OpCodes.Ldarg_3);
                il.Emit(OpCodes.Call, next);
                il.Emit(OpCodes.Brfalse, fail);
            }

            ReturnTrueOrFalse(il, fail);
        }

        body.CompiledEncoder = method.CreateDelegate(typeof(CompiledEncodeBody), pool);
    }

    /// <summary>
    /// Instructions a compiled method covers. .NET 8's JIT runs out of inlining budget in long bodies and leaves
    /// the <see cref="EncodeOps"/> calls of later fields as calls (14 arguments each, most on the stack): seen in a
    /// profile of the corpus' 19-field market-data entry. There the body is split into methods of 8 instructions;
    /// .NET 9 and later inline the whole entry, so a split would only add calls.
    /// </summary>
    private static readonly int PartLength = Environment.Version.Major < 9 ? 8 : int.MaxValue;

    private static DynamicMethod NewMethod(string name) => new(
        "fast_encode_" + name,
        typeof(bool),
        [typeof(byte[]), RunType.MakeByRefType(), typeof(int), typeof(PmapWriter).MakeByRefType()],
        typeof(EncoderCompiler).Module,
        skipVisibility: true);

    /// <summary>A method that encodes <paramref name="instructions"/>, with the run's state in locals.</summary>
    private static DynamicMethod EmitPart(string name, ReadOnlySpan<FastField> instructions)
    {
        var method = NewMethod(name);
        var il = method.GetILGenerator();
        var pm = il.DeclareLocal(typeof(PmapWriter));
        var pos = il.DeclareLocal(typeof(int));
        var dst = il.DeclareLocal(typeof(Span<byte>));
        var dict = il.DeclareLocal(typeof(PreviousValue[]));
        var scope = il.DeclareLocal(typeof(FastValue).MakeByRefType());
        var message = il.DeclareLocal(typeof(FastMessage));
        var fail = il.DefineLabel();

        il.Emit(OpCodes.Ldarg_3);
        il.Emit(OpCodes.Ldobj, typeof(PmapWriter));
        il.Emit(OpCodes.Stloc, pm);
        il.Emit(OpCodes.Ldarg_1);
        il.Emit(OpCodes.Call, GetPosition);
        il.Emit(OpCodes.Stloc, pos);
        il.Emit(OpCodes.Ldarg_1);
        il.Emit(OpCodes.Call, GetDestination);
        il.Emit(OpCodes.Stloc, dst);
        il.Emit(OpCodes.Ldarg_1);
        il.Emit(OpCodes.Call, GetDictionary);
        il.Emit(OpCodes.Stloc, dict);
        il.Emit(OpCodes.Ldarg_1);
        il.Emit(OpCodes.Call, GetSource);
        il.Emit(OpCodes.Stloc, message);
        il.Emit(OpCodes.Ldarg_1);
        il.Emit(OpCodes.Ldarg_2);
        il.Emit(OpCodes.Call, ValueRef);
        il.Emit(OpCodes.Stloc, scope);

        foreach (var f in instructions)
        {
            il.Emit(OpCodes.Ldarg_1);
            il.Emit(OpCodes.Ldloc, dst);
            il.Emit(OpCodes.Ldloca, pos);
            il.Emit(OpCodes.Ldloca, pm);
            il.Emit(OpCodes.Ldloc, scope);
            il.Emit(OpCodes.Ldloc, dict);
            switch (f.Code)
            {
                case Opcode.Int:
                    Int(il, f.Slot);
                    Int(il, (int)f.Operator);
                    Int(il, (int)f.Type);
                    Bool(il, f.IsOptional);
                    Bool(il, f.Nullable);
                    Int(il, f.DictSlot);
                    Bool(il, f.HasInitial);
                    il.Emit(OpCodes.Ldc_I8, f.InitialInt);
                    il.Emit(OpCodes.Call, IntOp);
                    break;

                case Opcode.SplitDecimal:
                    var e = f.Exponent!;
                    var m = f.Mantissa!;
                    Int(il, f.Slot);
                    Bool(il, f.IsOptional);
                    Int(il, (int)e.Operator);
                    Bool(il, e.Nullable);
                    Int(il, e.DictSlot);
                    Bool(il, e.HasInitial);
                    il.Emit(OpCodes.Ldc_I8, e.InitialInt);
                    Int(il, (int)m.Operator);
                    Int(il, m.DictSlot);
                    Bool(il, m.HasInitial);
                    il.Emit(OpCodes.Ldc_I8, m.InitialInt);
                    il.Emit(OpCodes.Call, SplitDecimalOp);
                    break;

                case Opcode.Ascii or Opcode.Bytes when f.Operator is FastOperator.Constant or FastOperator.Default:
                    il.Emit(OpCodes.Ldloc, message);
                    Int(il, f.Slot);
                    Bool(il, f.Code == Opcode.Ascii);
                    Int(il, (int)f.Operator);
                    Bool(il, f.IsOptional);
                    Bool(il, f.Nullable);
                    Bool(il, f.HasInitial);
                    Int(il, Math.Max(0, f.InitialPoolOffset));
                    Int(il, f.InitialBytes.Length);
                    il.Emit(OpCodes.Ldarg_0);
                    il.Emit(OpCodes.Call, BytesInitialOp);
                    break;

                case Opcode.Ascii or Opcode.Bytes when f.Operator == FastOperator.None:
                    il.Emit(OpCodes.Ldloc, message);
                    Int(il, f.Slot);
                    Bool(il, f.Code == Opcode.Ascii);
                    Bool(il, f.IsOptional);
                    Bool(il, f.Nullable);
                    il.Emit(OpCodes.Call, BytesNoneOp);
                    break;

                case Opcode.Ascii or Opcode.Bytes when f.Operator == FastOperator.Copy:
                    il.Emit(OpCodes.Ldloc, message);
                    Int(il, f.Slot);
                    Bool(il, f.Code == Opcode.Ascii);
                    Int(il, (int)f.Type);
                    Bool(il, f.IsOptional);
                    Bool(il, f.Nullable);
                    Int(il, f.DictSlot);
                    Bool(il, f.HasInitial);
                    Int(il, Math.Max(0, f.InitialPoolOffset));
                    Int(il, f.InitialBytes.Length);
                    il.Emit(OpCodes.Ldarg_0);
                    il.Emit(OpCodes.Call, BytesCopyOp);
                    break;

                default:
                    Int(il, f.Index);
                    il.Emit(OpCodes.Ldarg_2);
                    il.Emit(OpCodes.Call, OtherOp);
                    break;
            }

            il.Emit(OpCodes.Brfalse, fail);
        }

        il.Emit(OpCodes.Ldarg_3);
        il.Emit(OpCodes.Ldloc, pm);
        il.Emit(OpCodes.Stobj, typeof(PmapWriter));
        il.Emit(OpCodes.Ldarg_1);
        il.Emit(OpCodes.Ldloc, pos);
        il.Emit(OpCodes.Call, SetPosition);
        ReturnTrueOrFalse(il, fail);
        return method;
    }

    /// <summary>Returns true, and at <paramref name="fail"/> false.</summary>
    private static void ReturnTrueOrFalse(ILGenerator il, Label fail)
    {
        il.Emit(OpCodes.Ldc_I4_1);
        il.Emit(OpCodes.Ret);
        il.MarkLabel(fail);
        il.Emit(OpCodes.Ldc_I4_0);
        il.Emit(OpCodes.Ret);
    }

    private static void Int(ILGenerator il, int value) => il.Emit(OpCodes.Ldc_I4, value);

    private static void Bool(ILGenerator il, bool value) => il.Emit(value ? OpCodes.Ldc_I4_1 : OpCodes.Ldc_I4_0);
}
