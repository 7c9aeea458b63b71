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
/// Compiled decoding code of all the entries of a sequence: <paramref name="count"/> entries whose scopes start at
/// value index <paramref name="firstBase"/>, one after the other.
/// </summary>
internal delegate bool CompiledEntries<THandler>(ref DecodeRun<THandler> run, int firstBase, int count, int depth)
    where THandler : struct, IFastDecodeHandler;

/// <summary>
/// Compiles template bodies at startup into straight-line methods (one DynamicMethod per body) that decode into a
/// <see cref="FastMessage"/>: the read position, the presence map, the dictionary and the scope's first slot are
/// loaded into locals; integer, decimal and string fields are emitted as IL of their own (BodyCompiler.Integers.cs,
/// BodyCompiler.Strings.cs), the other instructions become calls to <see cref="CompiledOps"/> operations with their
/// properties as constants. No per-field dispatch remains. A sequence's body is also compiled into one method
/// decoding all its entries, which the parent body calls directly. Skipped where code cannot be generated (e.g.
/// NativeAOT): the interpreter then does the work.
/// </summary>
internal static partial class BodyCompiler
{
    private const BindingFlags Instance = BindingFlags.Instance | BindingFlags.NonPublic | BindingFlags.Public;
    private const BindingFlags Static = BindingFlags.Static | BindingFlags.NonPublic | BindingFlags.Public;

    private static readonly Type RunType = typeof(DecodeRun<FastMessageWriter>);
    private static readonly MethodInfo GetPosition = RunType.GetProperty(nameof(DecodeRun<FastMessageWriter>.Position), Instance)!.GetMethod!;
    private static readonly MethodInfo SetPosition = RunType.GetProperty(nameof(DecodeRun<FastMessageWriter>.Position), Instance)!.SetMethod!;
    private static readonly MethodInfo GetPmWindow = RunType.GetProperty(nameof(DecodeRun<FastMessageWriter>.PmWindow), Instance)!.GetMethod!;
    private static readonly MethodInfo SetPmWindow = RunType.GetProperty(nameof(DecodeRun<FastMessageWriter>.PmWindow), Instance)!.SetMethod!;
    private static readonly MethodInfo GetData = RunType.GetProperty(nameof(DecodeRun<FastMessageWriter>.Data), Instance)!.GetMethod!;
    private static readonly MethodInfo GetDictionary = RunType.GetProperty(nameof(DecodeRun<FastMessageWriter>.Dictionary), Instance)!.GetMethod!;
    private static readonly MethodInfo GetMessage = RunType.GetProperty(nameof(DecodeRun<FastMessageWriter>.TargetMessage), Instance)!.GetMethod!;
    private static readonly MethodInfo ScopeStart = RunType.GetMethod(nameof(DecodeRun<FastMessageWriter>.ScopeStart), Instance)!;
    private static readonly MethodInfo GetLoadedBits = typeof(PresenceMap).GetProperty(nameof(PresenceMap.LoadedBits))!.GetMethod!;
    private static readonly MethodInfo SetLoadedBits = typeof(PresenceMap).GetProperty(nameof(PresenceMap.LoadedBits))!.SetMethod!;
    private static readonly MethodInfo IntOp = typeof(CompiledOps).GetMethod(nameof(CompiledOps.Int), Static)!;
    private static readonly MethodInfo SplitDecimalOp = typeof(CompiledOps).GetMethod(nameof(CompiledOps.SplitDecimal), Static)!;
    private static readonly MethodInfo OtherOp = typeof(CompiledOps).GetMethod(nameof(CompiledOps.Other), Static)!;
    private static readonly MethodInfo SequenceStartOp = typeof(CompiledOps).GetMethod(nameof(CompiledOps.SequenceStart), Static)!;
    private static readonly MethodInfo FirstEntryBase = RunType.GetMethod(nameof(DecodeRun<FastMessageWriter>.FirstEntryBase), Instance)!;
    private static readonly MethodInfo EntryPmapOp = typeof(CompiledOps).GetMethod(nameof(CompiledOps.EntryPmap), Static)!;
    private static readonly MethodInfo EntryPmapDoneOp = typeof(CompiledOps).GetMethod(nameof(CompiledOps.EntryPmapDone), Static)!;
    private static readonly MethodInfo EnterEntries = RunType.GetMethod(nameof(DecodeRun<FastMessageWriter>.EnterEntries), Instance)!;
    private static readonly MethodInfo EnterEntry = RunType.GetMethod(nameof(DecodeRun<FastMessageWriter>.EnterEntry), Instance)!;
    private static readonly MethodInfo LeaveEntries = RunType.GetMethod(nameof(DecodeRun<FastMessageWriter>.LeaveEntries), Instance)!;

    public static bool IsSupported => RuntimeFeature.IsDynamicCodeSupported && RuntimeFeature.IsDynamicCodeCompiled;

    public static void Compile(IReadOnlyList<FastTemplate> templates)
    {
        var compiler = new Compilation();
        foreach (var t in templates)
        {
            compiler.Compile(t.Body);
        }
    }

    /// <summary>One registry's compilation: the bodies done, and the entry methods parent bodies call directly.</summary>
    private sealed class Compilation
    {
        private readonly HashSet<FastGroupBody> _done = [];
        private readonly Dictionary<FastGroupBody, DynamicMethod> _entries = [];

        public void Compile(FastGroupBody body)
        {
            if (!_done.Add(body))
            {
                return;
            }

            // Inner bodies first: a parent calls its sequences' entry methods.
            foreach (var f in body.Instructions)
            {
                if (f.Body is not null)
                {
                    Compile(f.Body);
                }

                if (f.Code == Opcode.Sequence && !_entries.ContainsKey(f.Body!) && FitsLoadedPmap(f.Body!))
                {
                    _entries[f.Body!] = CompileEntries(f.Body!, _entries);
                }
            }

            if (FitsLoadedPmap(body))
            {
                CompileBody(body, _entries);
            }
        }
    }

    /// <summary>
    /// Compiled code reads presence bits from the loaded window only (<see cref="PresenceMap.NextLoaded(ref ulong)"/>): the
    /// body's bits, plus a template's identifier bit, must fit. Larger bodies (none in practice) are interpreted.
    /// </summary>
    private static bool FitsLoadedPmap(FastGroupBody body) => body.PmapBits + 1 <= PresenceMap.MaxLoadedBits;

    /// <summary>The hot state a compiled method keeps in its locals.</summary>
    private sealed class State(ILGenerator il)
    {
        public readonly LocalBuilder Pm = il.DeclareLocal(typeof(ulong)); // the presence map's loaded window
        public readonly LocalBuilder OpPm = il.DeclareLocal(typeof(ulong)); // the window one operation reads (EmitRange)
        public readonly LocalBuilder Pos = il.DeclareLocal(typeof(int));
        public readonly LocalBuilder Data = il.DeclareLocal(typeof(ReadOnlySpan<byte>));
        public readonly LocalBuilder Dict = il.DeclareLocal(typeof(PreviousValue[]));
        public readonly LocalBuilder Scope = il.DeclareLocal(typeof(FastValue).MakeByRefType());
        public readonly LocalBuilder Message = il.DeclareLocal(typeof(FastMessage));
        public readonly LocalBuilder Depth = il.DeclareLocal(typeof(int));

        // For the fields emitted as IL (BodyCompiler.Integers.cs).
        public readonly LocalBuilder DataRef = il.DeclareLocal(typeof(byte).MakeByRefType()); // the input's first byte
        public readonly LocalBuilder Len = il.DeclareLocal(typeof(int)); // the input's length
        public readonly LocalBuilder DictRef = il.DeclareLocal(typeof(PreviousValue).MakeByRefType()); // the dictionary's first entry

        public readonly LocalBuilder At = il.DeclareLocal(typeof(int)); // the field's first byte
        public readonly LocalBuilder B = il.DeclareLocal(typeof(int)); // the integer's first byte
        public readonly LocalBuilder V = il.DeclareLocal(typeof(long)); // the value
        public readonly LocalBuilder W = il.DeclareLocal(typeof(long)); // a delta's base
        public readonly LocalBuilder X = il.DeclareLocal(typeof(long)); // a delta's sum; a packed word read
        public readonly LocalBuilder ArenaRef = il.DeclareLocal(typeof(byte).MakeByRefType()); // the message arena's first byte (BodyCompiler.Strings.cs)
        public readonly LocalBuilder ArenaSize = il.DeclareLocal(typeof(int));
        public readonly LocalBuilder DictBytesRef = il.DeclareLocal(typeof(byte[]).MakeByRefType()); // the dictionary's string buffers
        public readonly LocalBuilder Off = il.DeclareLocal(typeof(int)); // a string's arena offset
        public readonly LocalBuilder Len1 = il.DeclareLocal(typeof(int)); // a string's length

        /// <summary>Rare paths, emitted after the method's last return so the hot code runs straight through.</summary>
        public readonly List<Action> Cold = [];
    }

    /// <summary>One body, decoded with the presence map its caller read: <see cref="CompiledBody{THandler}"/>.</summary>
    private static void CompileBody(FastGroupBody body, Dictionary<FastGroupBody, DynamicMethod> entries)
    {
        var method = new DynamicMethod(
            "fast_decode_" + body.Name,
            typeof(bool),
            [typeof(object), RunType.MakeByRefType(), typeof(PresenceMap).MakeByRefType(), typeof(int)],
            typeof(BodyCompiler).Module,
            skipVisibility: true);
        var il = method.GetILGenerator();
        var state = new State(il);
        var fail = il.DefineLabel();

        // Prologue: the hot state into locals.
        il.Emit(OpCodes.Ldarg_2);
        il.Emit(OpCodes.Call, GetLoadedBits);
        il.Emit(OpCodes.Stloc, state.Pm);
        il.Emit(OpCodes.Ldarg_3);
        il.Emit(OpCodes.Stloc, state.Depth);
        LoadRunState(il, state, body.Instructions.AsSpan(0, Math.Min(body.Instructions.Length, PartLength)));
        if (body.Instructions.Length > 0)
        {
            il.Emit(OpCodes.Ldarg_1);
            il.Emit(OpCodes.Call, ScopeStart);
            il.Emit(OpCodes.Stloc, state.Scope);
        }

        EmitInstructions(il, body, state, fail, entries);

        // Epilogue: hand the state back.
        il.Emit(OpCodes.Ldarg_2);
        il.Emit(OpCodes.Ldloc, state.Pm);
        il.Emit(OpCodes.Call, SetLoadedBits);
        il.Emit(OpCodes.Ldarg_1);
        il.Emit(OpCodes.Ldloc, state.Pos);
        il.Emit(OpCodes.Call, SetPosition);
        il.Emit(OpCodes.Ldc_I4_1);
        il.Emit(OpCodes.Ret);
        EmitCold(state);
        il.MarkLabel(fail);
        il.Emit(OpCodes.Ldc_I4_0);
        il.Emit(OpCodes.Ret);
        // Bound to a (unused) target: a closed delegate is invoked without the argument-shuffling thunk of an open static one.
        body.Compiled = method.CreateDelegate(typeof(CompiledBody<FastMessageWriter>), body);
    }

    /// <summary>
    /// All the entries of a sequence in one method (<see cref="CompiledEntries{THandler}"/>): the loop, each
    /// entry's presence map and scope are compiled around the body's code, so the state is loaded once per
    /// sequence instead of once per entry.
    /// </summary>
    private static DynamicMethod CompileEntries(FastGroupBody body, Dictionary<FastGroupBody, DynamicMethod> entries)
    {
        var method = new DynamicMethod(
            "fast_decode_entries_" + body.Name,
            typeof(bool),
            [typeof(object), RunType.MakeByRefType(), typeof(int), typeof(int), typeof(int)],
            typeof(BodyCompiler).Module,
            skipVisibility: true);
        var il = method.GetILGenerator();
        var state = new State(il);
        var entryBase = il.DeclareLocal(typeof(int));
        var remaining = il.DeclareLocal(typeof(int));
        var pmStart = il.DeclareLocal(typeof(int));
        var fail = il.DefineLabel();
        var loop = il.DefineLabel();
        var check = il.DefineLabel();

        il.Emit(OpCodes.Ldarg_S, (byte)4);
        il.Emit(OpCodes.Stloc, state.Depth);
        LoadRunState(il, state, body.Instructions.AsSpan(0, Math.Min(body.Instructions.Length, PartLength)));
        il.Emit(OpCodes.Ldarg_2);
        il.Emit(OpCodes.Stloc, entryBase);
        il.Emit(OpCodes.Ldarg_3);
        il.Emit(OpCodes.Stloc, remaining);
        il.Emit(OpCodes.Ldarg_1);
        il.Emit(OpCodes.Call, EnterEntries);
        il.Emit(OpCodes.Br, check);

        il.MarkLabel(loop);
        il.Emit(OpCodes.Ldarg_1);
        il.Emit(OpCodes.Ldloc, entryBase);
        il.Emit(OpCodes.Call, EnterEntry);
        il.Emit(OpCodes.Stloc, state.Scope);
        if (body.HasPmap)
        {
            il.Emit(OpCodes.Ldloc, state.Pos);
            il.Emit(OpCodes.Stloc, pmStart);
            il.Emit(OpCodes.Ldarg_1);
            il.Emit(OpCodes.Ldloc, state.Data);
            il.Emit(OpCodes.Ldloca, state.Pos);
            il.Emit(OpCodes.Ldloca, state.Pm);
            Int(il, (body.PmapBits + 6) / 7);
            il.Emit(OpCodes.Call, EntryPmapOp);
            il.Emit(OpCodes.Brfalse, fail);
        }
        else
        {
            il.Emit(OpCodes.Ldc_I8, 0L);
            il.Emit(OpCodes.Stloc, state.Pm);
        }

        EmitInstructions(il, body, state, fail, entries);

        if (body.HasPmap)
        {
            il.Emit(OpCodes.Ldarg_1);
            il.Emit(OpCodes.Ldloc, state.Pm);
            il.Emit(OpCodes.Ldloc, pmStart);
            il.Emit(OpCodes.Call, EntryPmapDoneOp);
            il.Emit(OpCodes.Brfalse, fail);
        }

        il.Emit(OpCodes.Ldloc, entryBase);
        Int(il, body.SlotCount);
        il.Emit(OpCodes.Add);
        il.Emit(OpCodes.Stloc, entryBase);
        il.Emit(OpCodes.Ldloc, remaining);
        il.Emit(OpCodes.Ldc_I4_1);
        il.Emit(OpCodes.Sub);
        il.Emit(OpCodes.Stloc, remaining);
        il.MarkLabel(check);
        il.Emit(OpCodes.Ldloc, remaining);
        il.Emit(OpCodes.Ldc_I4_0);
        il.Emit(OpCodes.Bgt, loop);

        il.Emit(OpCodes.Ldarg_1);
        il.Emit(OpCodes.Call, LeaveEntries);
        il.Emit(OpCodes.Ldarg_1);
        il.Emit(OpCodes.Ldloc, state.Pos);
        il.Emit(OpCodes.Call, SetPosition);
        il.Emit(OpCodes.Ldc_I4_1);
        il.Emit(OpCodes.Ret);
        EmitCold(state);
        il.MarkLabel(fail);
        il.Emit(OpCodes.Ldc_I4_0);
        il.Emit(OpCodes.Ret);
        body.CompiledEntries = method.CreateDelegate(typeof(CompiledEntries<FastMessageWriter>), body);
        return method;
    }

    /// <summary>Read position, input, dictionary and message from the run (argument 1) into locals.</summary>
    private static void LoadRunState(ILGenerator il, State state, ReadOnlySpan<FastField> fields)
    {
        il.Emit(OpCodes.Ldarg_1);
        il.Emit(OpCodes.Call, GetPosition);
        il.Emit(OpCodes.Stloc, state.Pos);
        il.Emit(OpCodes.Ldarg_1);
        il.Emit(OpCodes.Call, GetData);
        il.Emit(OpCodes.Stloc, state.Data);
        il.Emit(OpCodes.Ldarg_1);
        il.Emit(OpCodes.Call, GetDictionary);
        il.Emit(OpCodes.Stloc, state.Dict);
        il.Emit(OpCodes.Ldarg_1);
        il.Emit(OpCodes.Call, GetMessage);
        il.Emit(OpCodes.Stloc, state.Message);
        LoadRawState(il, state, fields);
    }

    /// <summary>
    /// Instructions per compiled method: a longer body continues in methods of its own, called in turn, so that no
    /// method grows past the JIT's limits for full optimization (it falls back to unoptimized code past about
    /// 2,000 basic blocks, and an emitted field has about ten). Real bodies are shorter: the complex30000
    /// market-data entry has 19 fields. With fields emitted as IL, splitting costs a call and the state handed
    /// over (instructions per message, .NET 8 / .NET 10: parts of 8: 3,170 / 3,053; of 12: 3,096 / 2,951;
    /// unsplit: 2,937 / 2,929). Before, parts of 8 cured the .NET 8 JIT's inlining budget cliff, which emitted
    /// fields no longer meet.
    /// </summary>
    private const int PartLength = 64;

    /// <summary>The body's instructions: the first <see cref="PartLength"/> here, each further part as a call of a method of its own.</summary>
    private static void EmitInstructions(ILGenerator il, FastGroupBody body, State state, Label fail, Dictionary<FastGroupBody, DynamicMethod> entries)
    {
        int n = body.Instructions.Length;
        EmitRange(il, body, 0, Math.Min(n, PartLength), state, fail, entries);
        for (int from = PartLength; from < n; from += PartLength)
        {
            var part = CompilePart(body, from, Math.Min(n, from + PartLength), entries);

            // The read position and the presence map window go through the run, so they stay plain locals here.
            il.Emit(OpCodes.Ldarg_1);
            il.Emit(OpCodes.Ldloc, state.Pos);
            il.Emit(OpCodes.Call, SetPosition);
            il.Emit(OpCodes.Ldarg_1);
            il.Emit(OpCodes.Ldloc, state.Pm);
            il.Emit(OpCodes.Call, SetPmWindow);
            il.Emit(OpCodes.Ldnull); // the part method's unused delegate target
            il.Emit(OpCodes.Ldarg_1);
            il.Emit(OpCodes.Ldloc, state.Scope);
            il.Emit(OpCodes.Ldloc, state.Depth);
            il.Emit(OpCodes.Call, part);
            il.Emit(OpCodes.Brfalse, fail);
            il.Emit(OpCodes.Ldarg_1);
            il.Emit(OpCodes.Call, GetPosition);
            il.Emit(OpCodes.Stloc, state.Pos);
            il.Emit(OpCodes.Ldarg_1);
            il.Emit(OpCodes.Call, GetPmWindow);
            il.Emit(OpCodes.Stloc, state.Pm);
        }
    }

    /// <summary>Instructions <paramref name="from"/> to <paramref name="to"/> of a body as a method of their own (see <see cref="PartLength"/>).</summary>
    private static DynamicMethod CompilePart(FastGroupBody body, int from, int to, Dictionary<FastGroupBody, DynamicMethod> entries)
    {
        var method = new DynamicMethod(
            "fast_decode_" + body.Name + "_" + from,
            typeof(bool),
            [typeof(object), RunType.MakeByRefType(), typeof(FastValue).MakeByRefType(), typeof(int)],
            typeof(BodyCompiler).Module,
            skipVisibility: true);
        var il = method.GetILGenerator();
        var state = new State(il);
        var fail = il.DefineLabel();
        il.Emit(OpCodes.Ldarg_3);
        il.Emit(OpCodes.Stloc, state.Depth);
        LoadRunState(il, state, body.Instructions.AsSpan(from, to - from));
        il.Emit(OpCodes.Ldarg_1);
        il.Emit(OpCodes.Call, GetPmWindow);
        il.Emit(OpCodes.Stloc, state.Pm);
        il.Emit(OpCodes.Ldarg_2);
        il.Emit(OpCodes.Stloc, state.Scope);

        EmitRange(il, body, from, to, state, fail, entries);

        il.Emit(OpCodes.Ldarg_1);
        il.Emit(OpCodes.Ldloc, state.Pm);
        il.Emit(OpCodes.Call, SetPmWindow);
        il.Emit(OpCodes.Ldarg_1);
        il.Emit(OpCodes.Ldloc, state.Pos);
        il.Emit(OpCodes.Call, SetPosition);
        il.Emit(OpCodes.Ldc_I4_1);
        il.Emit(OpCodes.Ret);
        EmitCold(state);
        il.MarkLabel(fail);
        il.Emit(OpCodes.Ldc_I4_0);
        il.Emit(OpCodes.Ret);
        return method;
    }

    /// <summary>Instructions <paramref name="from"/> to <paramref name="to"/>, each as a call to its <see cref="CompiledOps"/> operation, to <paramref name="fail"/> when it returns false.</summary>
    private static void EmitRange(ILGenerator il, FastGroupBody body, int from, int to, State state, Label fail, Dictionary<FastGroupBody, DynamicMethod> entries)
    {
        var pm = state.Pm;
        var pos = state.Pos;
        var data = state.Data;
        var dict = state.Dict;
        var scope = state.Scope;

        // Which bit each operation reads is known here, not only at run time: the window stays as loaded and each
        // operation gets its own copy shifted by the bits taken before it (a constant), so per presence bit the
        // code tests a shifted copy instead of shifting the window and storing it back (it lives in a stack slot).
        int shift = 0;
        foreach (var f in body.Instructions.AsSpan(from, to - from))
        {
            if (IsEmittedInteger(f))
            {
                EmitIntegerField(il, state, f, shift, fail);
                shift = AfterOp(il, state, shift, BitsTaken(f));
                continue;
            }

            if (IsEmittedString(f))
            {
                EmitStringField(il, state, f, shift, fail);
                shift = AfterOp(il, state, shift, BitsTaken(f));
                continue;
            }

            EmitOpWindow(il, state, shift);
            if (f.Code == Opcode.Sequence && entries.TryGetValue(f.Body!, out var entriesMethod))
            {
                EmitSequence(il, f, state, fail, entriesMethod);
                shift = AfterOp(il, state, shift, f.Length!.UsesPmapBit ? 1 : 0);
                continue;
            }

            // Every operation takes (run, data, ref pos, ref pm, ref scope, dict, constants...).
            il.Emit(OpCodes.Ldarg_1);
            il.Emit(OpCodes.Ldloc, data);
            il.Emit(OpCodes.Ldloca, pos);
            il.Emit(OpCodes.Ldloca, state.OpPm);
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

                default:
                    Int(il, f.Index);
                    Bool(il, f.Code == Opcode.Sequence ? f.Length!.UsesPmapBit : f.UsesPmapBit);
                    il.Emit(OpCodes.Ldloc, state.Depth);
                    il.Emit(OpCodes.Call, OtherOp);
                    break;
            }

            il.Emit(OpCodes.Brfalse, fail);
            shift = AfterOp(il, state, shift, BitsTaken(f));
        }

        // Whatever follows (the next part, the end-of-map check) reads the window with the bits taken removed.
        if (shift > 0)
        {
            il.Emit(OpCodes.Ldloc, pm);
            Int(il, shift);
            il.Emit(OpCodes.Shl);
            il.Emit(OpCodes.Stloc, pm);
        }
    }

    /// <summary>The window for the next operation: the loaded window shifted past the <paramref name="shift"/> bits taken before it.</summary>
    private static void EmitOpWindow(ILGenerator il, State state, int shift)
    {
        il.Emit(OpCodes.Ldloc, state.Pm);
        if (shift > 0)
        {
            Int(il, shift);
            il.Emit(OpCodes.Shl);
        }

        il.Emit(OpCodes.Stloc, state.OpPm);
    }

    /// <summary>
    /// The bits taken so far after an operation that took <paramref name="taken"/> (-1: known only at run time; the
    /// operation's own window, shifted past what it read, then becomes the loaded window).
    /// </summary>
    private static int AfterOp(ILGenerator il, State state, int shift, int taken)
    {
        if (taken >= 0)
        {
            return shift + taken;
        }

        il.Emit(OpCodes.Ldloc, state.OpPm);
        il.Emit(OpCodes.Stloc, state.Pm);
        return 0;
    }

    /// <summary>Presence bits the operation for <paramref name="f"/> reads, as in <see cref="EmitRange"/>'s switch; -1 when that depends on the data.</summary>
    private static int BitsTaken(FastField f) => f.Code switch
    {
        // The mantissa's bit is only there when the exponent is present.
        Opcode.SplitDecimal => f.Mantissa!.UsesPmapBit ? -1 : f.Exponent!.UsesPmapBit ? 1 : 0,
        Opcode.Ascii or Opcode.Bytes when f.Operator is FastOperator.Constant or FastOperator.Default => f.UsesPmapBit ? 1 : 0,
        Opcode.Ascii or Opcode.Bytes when f.Operator == FastOperator.None => 0,
        Opcode.Ascii or Opcode.Bytes when f.Operator == FastOperator.Copy => 1, // BytesCopy always reads its bit
        Opcode.Sequence => f.Length!.UsesPmapBit ? 1 : 0,
        _ => f.UsesPmapBit ? 1 : 0,
    };

    /// <summary>
    /// A sequence whose entries are compiled: its length and start inline (<see cref="CompiledOps.SequenceStart"/>),
    /// then a direct call of the entries method, with the read position handed over and taken back.
    /// </summary>
    private static void EmitSequence(ILGenerator il, FastField f, State state, Label fail, DynamicMethod entriesMethod)
    {
        var length = f.Length!;
        var count = il.DeclareLocal(typeof(int));
        var done = il.DefineLabel();
        il.Emit(OpCodes.Ldarg_1);
        il.Emit(OpCodes.Ldloc, state.Data);
        il.Emit(OpCodes.Ldloca, state.Pos);
        il.Emit(OpCodes.Ldloca, state.OpPm);
        il.Emit(OpCodes.Ldloc, state.Scope);
        il.Emit(OpCodes.Ldloc, state.Dict);
        Int(il, f.Slot);
        Int(il, f.Index);
        Int(il, (int)length.Operator);
        Int(il, (int)length.Type);
        Bool(il, length.IsOptional);
        Bool(il, length.Nullable);
        Bool(il, length.UsesPmapBit);
        Int(il, length.DictSlot);
        Bool(il, length.HasInitial);
        il.Emit(OpCodes.Ldc_I8, length.InitialInt);
        il.Emit(OpCodes.Ldloc, state.Depth);
        il.Emit(OpCodes.Call, SequenceStartOp);
        il.Emit(OpCodes.Stloc, count);
        il.Emit(OpCodes.Ldloc, count);
        il.Emit(OpCodes.Ldc_I4_0);
        il.Emit(OpCodes.Blt, fail);
        il.Emit(OpCodes.Ldloc, count);
        il.Emit(OpCodes.Ldc_I4_0);
        il.Emit(OpCodes.Ble, done);

        il.Emit(OpCodes.Ldarg_1);
        il.Emit(OpCodes.Ldloc, state.Pos);
        il.Emit(OpCodes.Call, SetPosition);
        il.Emit(OpCodes.Ldnull); // the entries method's unused delegate target
        il.Emit(OpCodes.Ldarg_1);
        il.Emit(OpCodes.Ldarg_1);
        Int(il, f.Slot);
        il.Emit(OpCodes.Call, FirstEntryBase);
        il.Emit(OpCodes.Ldloc, count);
        il.Emit(OpCodes.Ldloc, state.Depth);
        il.Emit(OpCodes.Ldc_I4_1);
        il.Emit(OpCodes.Add);
        il.Emit(OpCodes.Call, entriesMethod);
        il.Emit(OpCodes.Brfalse, fail);
        il.Emit(OpCodes.Ldarg_1);
        il.Emit(OpCodes.Call, GetPosition);
        il.Emit(OpCodes.Stloc, state.Pos);
        il.MarkLabel(done);
    }

    private static void Int(ILGenerator il, int value) => il.Emit(OpCodes.Ldc_I4, value);

    private static void Bool(ILGenerator il, bool value) => il.Emit(value ? OpCodes.Ldc_I4_1 : OpCodes.Ldc_I4_0);
}
