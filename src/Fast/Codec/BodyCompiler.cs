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
/// <see cref="FastMessage"/>: each instruction becomes a call to a <see cref="DecodeRun{THandler}"/> entry point
/// with its properties as constants, and the JIT inlines and folds them. No per-field dispatch remains, and the
/// code shares the interpreter's operator logic, so both decode the same way. Skipped where code cannot be
/// generated (e.g. NativeAOT): the interpreter then does the work.
/// </summary>
internal static class BodyCompiler
{
    private const BindingFlags Instance = BindingFlags.Instance | BindingFlags.NonPublic | BindingFlags.Public;

    private static readonly Type RunType = typeof(DecodeRun<FastMessageWriter>);
    private static readonly MethodInfo IntMethod = RunType.GetMethod(nameof(DecodeRun<FastMessageWriter>.CompiledInt), Instance)!;
    private static readonly MethodInfo SplitDecimalMethod = RunType.GetMethod(nameof(DecodeRun<FastMessageWriter>.CompiledSplitDecimal), Instance)!;
    private static readonly MethodInfo BytesInitialMethod = RunType.GetMethod(nameof(DecodeRun<FastMessageWriter>.CompiledBytesInitial), Instance)!;
    private static readonly MethodInfo BytesCopyMethod = RunType.GetMethod(nameof(DecodeRun<FastMessageWriter>.CompiledBytesCopy), Instance)!;
    private static readonly MethodInfo BytesNoneMethod = RunType.GetMethod(nameof(DecodeRun<FastMessageWriter>.CompiledBytesNone), Instance)!;
    private static readonly MethodInfo GenericMethod = RunType.GetMethod(nameof(DecodeRun<FastMessageWriter>.CompiledGeneric), Instance)!;

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
            [RunType.MakeByRefType(), typeof(PresenceMap).MakeByRefType(), typeof(int)],
            typeof(BodyCompiler).Module,
            skipVisibility: true);
        var il = method.GetILGenerator();
        var fail = il.DefineLabel();
        foreach (var f in body.Instructions)
        {
            il.Emit(OpCodes.Ldarg_0);
            il.Emit(OpCodes.Ldarg_1);
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
                    il.Emit(OpCodes.Call, IntMethod);
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
                    il.Emit(OpCodes.Call, SplitDecimalMethod);
                    break;

                case Opcode.Ascii or Opcode.Bytes when f.Operator is FastOperator.Constant or FastOperator.Default:
                    Int(il, f.Slot);
                    Int(il, f.Index);
                    Int(il, (int)f.Operator);
                    Bool(il, f.IsOptional);
                    Bool(il, f.UsesPmapBit);
                    Bool(il, f.HasInitial);
                    Int(il, f.InitialPoolOffset);
                    Int(il, f.InitialBytes.Length);
                    il.Emit(OpCodes.Call, BytesInitialMethod);
                    break;

                case Opcode.Ascii or Opcode.Bytes when f.Operator == FastOperator.Copy:
                    Int(il, f.Slot);
                    Int(il, f.Index);
                    Int(il, (int)f.Type);
                    Int(il, f.DictSlot);
                    il.Emit(OpCodes.Call, BytesCopyMethod);
                    break;

                case Opcode.Ascii when f.Operator == FastOperator.None:
                    il.Emit(OpCodes.Pop); // no presence map needed
                    Int(il, f.Slot);
                    Int(il, f.Index);
                    il.Emit(OpCodes.Call, BytesNoneMethod);
                    break;

                default:
                    Int(il, f.Index);
                    il.Emit(OpCodes.Ldarg_2);
                    il.Emit(OpCodes.Call, GenericMethod);
                    break;
            }

            il.Emit(OpCodes.Brfalse, fail);
        }

        il.Emit(OpCodes.Ldc_I4_1);
        il.Emit(OpCodes.Ret);
        il.MarkLabel(fail);
        il.Emit(OpCodes.Ldc_I4_0);
        il.Emit(OpCodes.Ret);
        body.Compiled = method.CreateDelegate(typeof(CompiledBody<FastMessageWriter>));
    }

    private static void Int(ILGenerator il, int value) => il.Emit(OpCodes.Ldc_I4, value);

    private static void Bool(ILGenerator il, bool value) => il.Emit(value ? OpCodes.Ldc_I4_1 : OpCodes.Ldc_I4_0);
}
