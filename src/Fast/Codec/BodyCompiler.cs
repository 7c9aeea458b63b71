using System.Reflection;
using System.Reflection.Emit;
using System.Runtime.CompilerServices;
using RapidFix.Fast.Messages;
using RapidFix.Fast.Templates;

namespace RapidFix.Fast.Codec;

/// <summary>Compiled decoding code of one body (template, sequence entry or group) for a given handler type.</summary>
internal delegate bool CompiledBody<THandler>(ref DecodeRun<THandler> run, ref PresenceMap pm, int depth)
    where THandler : struct, IFastDecodeHandler;

/// <summary>
/// Compiles template bodies at startup into straight-line methods (one DynamicMethod per body) that decode into a
/// <see cref="FastMessage"/>: the read position, the presence map, the dictionary and the scope's first slot are
/// loaded into locals, and each instruction becomes a call to a <see cref="CompiledOps"/> operation with its
/// properties as constants, which the JIT inlines and folds. No per-field dispatch remains and the hot state stays
/// in registers. Skipped where code cannot be generated (e.g. NativeAOT): the interpreter then does the work.
/// </summary>
internal static class BodyCompiler
{
    private const BindingFlags Instance = BindingFlags.Instance | BindingFlags.NonPublic | BindingFlags.Public;
    private const BindingFlags Static = BindingFlags.Static | BindingFlags.NonPublic | BindingFlags.Public;

    private static readonly Type RunType = typeof(DecodeRun<FastMessageWriter>);
    private static readonly MethodInfo GetPosition = RunType.GetProperty(nameof(DecodeRun<FastMessageWriter>.Position), Instance)!.GetMethod!;
    private static readonly MethodInfo SetPosition = RunType.GetProperty(nameof(DecodeRun<FastMessageWriter>.Position), Instance)!.SetMethod!;
    private static readonly MethodInfo GetData = RunType.GetProperty(nameof(DecodeRun<FastMessageWriter>.Data), Instance)!.GetMethod!;
    private static readonly MethodInfo GetDictionary = RunType.GetProperty(nameof(DecodeRun<FastMessageWriter>.Dictionary), Instance)!.GetMethod!;
    private static readonly MethodInfo GetMessage = RunType.GetProperty(nameof(DecodeRun<FastMessageWriter>.TargetMessage), Instance)!.GetMethod!;
    private static readonly MethodInfo ScopeStart = RunType.GetMethod(nameof(DecodeRun<FastMessageWriter>.ScopeStart), Instance)!;
    private static readonly MethodInfo IntOp = typeof(CompiledOps).GetMethod(nameof(CompiledOps.Int), Static)!;
    private static readonly MethodInfo SplitDecimalOp = typeof(CompiledOps).GetMethod(nameof(CompiledOps.SplitDecimal), Static)!;
    private static readonly MethodInfo BytesInitialOp = typeof(CompiledOps).GetMethod(nameof(CompiledOps.BytesInitial), Static)!;
    private static readonly MethodInfo BytesNoneOp = typeof(CompiledOps).GetMethod(nameof(CompiledOps.BytesNone), Static)!;
    private static readonly MethodInfo BytesCopyOp = typeof(CompiledOps).GetMethod(nameof(CompiledOps.BytesCopy), Static)!;
    private static readonly MethodInfo OtherOp = typeof(CompiledOps).GetMethod(nameof(CompiledOps.Other), Static)!;

    public static bool IsSupported => RuntimeFeature.IsDynamicCodeSupported && RuntimeFeature.IsDynamicCodeCompiled;

    public static void Compile(IReadOnlyList<FastTemplate> templates)
    {
        var done = new HashSet<FastGroupBody>();
        foreach (var t in templates)
        {
            Compile(t.Body, done);
        }
    }

    private static void Compile(FastGroupBody body, HashSet<FastGroupBody> done)
    {
        if (!done.Add(body))
        {
            return;
        }

        foreach (var f in body.Instructions)
        {
            if (f.Body is not null)
            {
                Compile(f.Body, done);
            }
        }

        var method = new DynamicMethod(
            "fast_decode_" + body.Name,
            typeof(bool),
            [typeof(object), RunType.MakeByRefType(), typeof(PresenceMap).MakeByRefType(), typeof(int)],
            typeof(BodyCompiler).Module,
            skipVisibility: true);
        var il = method.GetILGenerator();
        var pm = il.DeclareLocal(typeof(PresenceMap));
        var pos = il.DeclareLocal(typeof(int));
        var data = il.DeclareLocal(typeof(ReadOnlySpan<byte>));
        var dict = il.DeclareLocal(typeof(PreviousValue[]));
        var scope = il.DeclareLocal(typeof(FastValue).MakeByRefType());
        var message = il.DeclareLocal(typeof(FastMessage));
        var fail = il.DefineLabel();

        // Prologue: the hot state into locals.
        il.Emit(OpCodes.Ldarg_2);
        il.Emit(OpCodes.Ldobj, typeof(PresenceMap));
        il.Emit(OpCodes.Stloc, pm);
        il.Emit(OpCodes.Ldarg_1);
        il.Emit(OpCodes.Call, GetPosition);
        il.Emit(OpCodes.Stloc, pos);
        il.Emit(OpCodes.Ldarg_1);
        il.Emit(OpCodes.Call, GetData);
        il.Emit(OpCodes.Stloc, data);
        il.Emit(OpCodes.Ldarg_1);
        il.Emit(OpCodes.Call, GetDictionary);
        il.Emit(OpCodes.Stloc, dict);
        il.Emit(OpCodes.Ldarg_1);
        il.Emit(OpCodes.Call, GetMessage);
        il.Emit(OpCodes.Stloc, message);
        if (body.Instructions.Length > 0)
        {
            il.Emit(OpCodes.Ldarg_1);
            il.Emit(OpCodes.Call, ScopeStart);
            il.Emit(OpCodes.Stloc, scope);
        }

        foreach (var f in body.Instructions)
        {
            // Every operation takes (run, data, ref pos, ref pm, ref scope, dict, constants...).
            il.Emit(OpCodes.Ldarg_1);
            il.Emit(OpCodes.Ldloc, data);
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
                    Bool(il, f.UsesPmapBit);
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
                    Bool(il, e.UsesPmapBit);
                    Int(il, e.DictSlot);
                    Bool(il, e.HasInitial);
                    il.Emit(OpCodes.Ldc_I8, e.InitialInt);
                    Int(il, (int)m.Operator);
                    Bool(il, m.UsesPmapBit);
                    Int(il, m.DictSlot);
                    Bool(il, m.HasInitial);
                    il.Emit(OpCodes.Ldc_I8, m.InitialInt);
                    il.Emit(OpCodes.Call, SplitDecimalOp);
                    break;

                case Opcode.Ascii or Opcode.Bytes when f.Operator is FastOperator.Constant or FastOperator.Default:
                    il.Emit(OpCodes.Ldloc, message);
                    Int(il, f.Slot);
                    Int(il, f.Index);
                    Bool(il, f.Code == Opcode.Ascii);
                    Int(il, (int)f.Operator);
                    Bool(il, f.IsOptional);
                    Bool(il, f.Nullable);
                    Bool(il, f.UsesPmapBit);
                    Bool(il, f.HasInitial);
                    Int(il, f.InitialPoolOffset);
                    Int(il, f.InitialBytes.Length);
                    il.Emit(OpCodes.Ldarg_3);
                    il.Emit(OpCodes.Call, BytesInitialOp);
                    break;

                case Opcode.Ascii or Opcode.Bytes when f.Operator == FastOperator.None:
                    il.Emit(OpCodes.Ldloc, message);
                    Int(il, f.Slot);
                    Int(il, f.Index);
                    Bool(il, f.Code == Opcode.Ascii);
                    Bool(il, f.Nullable);
                    il.Emit(OpCodes.Ldarg_3);
                    il.Emit(OpCodes.Call, BytesNoneOp);
                    break;

                case Opcode.Ascii or Opcode.Bytes when f.Operator == FastOperator.Copy:
                    il.Emit(OpCodes.Ldloc, message);
                    Int(il, f.Slot);
                    Int(il, f.Index);
                    Bool(il, f.Code == Opcode.Ascii);
                    Bool(il, f.Nullable);
                    Int(il, (int)f.Type);
                    Int(il, f.DictSlot);
                    il.Emit(OpCodes.Ldarg_3);
                    il.Emit(OpCodes.Call, BytesCopyOp);
                    break;

                default:
                    Int(il, f.Index);
                    Bool(il, f.Code == Opcode.Sequence ? f.Length!.UsesPmapBit : f.UsesPmapBit);
                    il.Emit(OpCodes.Ldarg_3);
                    il.Emit(OpCodes.Call, OtherOp);
                    break;
            }

            il.Emit(OpCodes.Brfalse, fail);
        }

        // Epilogue: hand the state back.
        il.Emit(OpCodes.Ldarg_2);
        il.Emit(OpCodes.Ldloc, pm);
        il.Emit(OpCodes.Stobj, typeof(PresenceMap));
        il.Emit(OpCodes.Ldarg_1);
        il.Emit(OpCodes.Ldloc, pos);
        il.Emit(OpCodes.Call, SetPosition);
        il.Emit(OpCodes.Ldc_I4_1);
        il.Emit(OpCodes.Ret);
        il.MarkLabel(fail);
        il.Emit(OpCodes.Ldc_I4_0);
        il.Emit(OpCodes.Ret);
        // Bound to a (unused) target: a closed delegate is invoked without the argument-shuffling thunk of an open static one.
        body.Compiled = method.CreateDelegate(typeof(CompiledBody<FastMessageWriter>), body);
    }

    private static void Int(ILGenerator il, int value) => il.Emit(OpCodes.Ldc_I4, value);

    private static void Bool(ILGenerator il, bool value) => il.Emit(value ? OpCodes.Ldc_I4_1 : OpCodes.Ldc_I4_0);
}
