using System.CommandLine;
using System.Diagnostics;
using System.Globalization;
using System.Runtime.CompilerServices;
using System.Runtime.InteropServices;
using RapidFix.CommandLine;
using RapidFix.Fast.Templates;

namespace RapidFix.Fuzzing;

/// <summary>
/// The fuzzing campaign's runner. <c>fix|fast [--cases N] [--seconds S] [--seed K] [--findings DIR] [--case-ms M]</c>
/// mutates the target's seed corpus in process (deterministic for a seed), runs every case with the target's
/// invariants, bounds each case in time (a watchdog ends the run on a case that does not finish), checks that the
/// steady state allocates nothing, and writes every finding to the findings folder. <c>--replay FILE...</c> runs
/// saved inputs. <c>afl fix|fast</c> is the entry point for AFL++ through SharpFuzz (tools/fuzz.sh --afl).
/// Exit code: 0 nothing found, 1 findings, 2 usage error, 3 a case over the time bound (hang).
/// </summary>
public static class Program
{
    private const int MaxFindings = 20;

    public static int Main(string[] args)
    {
        var target = new Argument<string>("target") { Description = "what to fuzz: fix (framer, parser, validator) or fast (the FAST decoder)" };
        target.AcceptOnlyFromAmong("fix", "fast");
        var cases = new Option<long>("--cases") { Description = "cases to run", DefaultValueFactory = _ => 1_000_000 };
        cases.Check(value => value >= 1, "--cases must be at least 1");
        var seconds = new Option<double>("--seconds") { Description = "stop after this many seconds (default: no limit)", DefaultValueFactory = _ => double.PositiveInfinity };
        seconds.Positive();
        var seed = new Option<int>("--seed") { Description = "random seed: the same seed gives the same cases", DefaultValueFactory = _ => 20261123 };
        var findings = new Option<string>("--findings") { Description = "folder for the findings", DefaultValueFactory = _ => "artifacts/fuzz-findings" };
        var caseMs = new Option<int>("--case-ms") { Description = "time bound of one case, in milliseconds (over it: a hang)", DefaultValueFactory = _ => 2_000 };
        caseMs.AtLeast(1);
        var shared = new Option<string?>("--shared") { Description = "the shared folder with fast/ (default: ../shared beside the repository)" };
        var replay = new Option<string[]>("--replay") { Description = "run these saved inputs instead of a campaign", AllowMultipleArgumentsPerToken = true };

        var aflTarget = new Argument<string>("target") { Description = "fix or fast" };
        aflTarget.AcceptOnlyFromAmong("fix", "fast");
        var afl = new Command("afl", "the entry point for AFL++ through SharpFuzz (tools/fuzz.sh --afl)") { aflTarget };
        afl.SetAction(parse => Guarded(() => Afl(parse.GetValue(aflTarget)!)));

        var seedsTarget = new Argument<string>("target") { Description = "fix or fast" };
        seedsTarget.AcceptOnlyFromAmong("fix", "fast");
        var seedsFolder = new Argument<string>("folder") { Description = "where to write the seed files" };
        var seeds = new Command("seeds", "write the seed corpus as files, for AFL's input folder") { seedsTarget, seedsFolder };
        seeds.SetAction(parse => Guarded(() => WriteSeeds(parse.GetValue(seedsTarget)!, parse.GetValue(seedsFolder)!)));

        var root = new RootCommand("RapidFix fuzzing campaign: mutates the target's seed corpus in process, checks its invariants and that the steady state allocates nothing. Exit code: 0 nothing found, 1 findings, 2 usage error, 3 a hang.")
        {
            target, cases, seconds, seed, findings, caseMs, shared, replay, afl, seeds,
        };
        root.SetAction(parse => Guarded(() =>
        {
            string name = parse.GetValue(target)!;
            var fuzzTarget = CreateTarget(name, SharedDirectory(parse.GetValue(shared)));
            string[] saved = parse.GetValue(replay) ?? [];
            return saved.Length > 0
                ? Replay(fuzzTarget, [.. saved])
                : Campaign(name, fuzzTarget, parse.GetValue(cases), parse.GetValue(seconds), parse.GetValue(seed), parse.GetValue(findings)!, parse.GetValue(caseMs));
        }));

        ParseResult result = root.Parse(args);
        if (result.Errors.Count > 0)
        {
            foreach (var error in result.Errors)
            {
                Console.Error.WriteLine($"fuzz: {error.Message}");
            }

            Console.Error.WriteLine("fuzz: --help lists the commands and options");
            return 2;
        }

        return result.Invoke();
    }

    /// <summary>A mistake of the user (a missing folder, a target without its data) is one line and exit code 2.</summary>
    private static int Guarded(Func<int> run)
    {
        try
        {
            return run();
        }
        catch (Exception e) when (e is ArgumentException or IOException or UnauthorizedAccessException or FastTemplateException)
        {
            Console.Error.WriteLine($"fuzz: {e.Message}");
            return 2;
        }
    }

    /// <summary>The seed corpus as files, for AFL's input folder.</summary>
    private static int WriteSeeds(string name, string folder)
    {
        var seedTarget = CreateTarget(name, SharedDirectory(null));
        Directory.CreateDirectory(folder);
        var seeds = seedTarget.Seeds;
        int count = Math.Min(seeds.Length, 64);
        for (int i = 0; i < count; i++)
        {
            File.WriteAllBytes(Path.Combine(folder, $"seed-{i:D3}.bin"), seeds[i * seeds.Length / count]);
        }

        Console.WriteLine($"{count} seeds written to {folder}");
        return 0;
    }

    private static int Afl(string aflName)
    {
        string? aflShared = SharedDirectory(null);
        IFuzzTarget? aflTarget = null;
        byte[] buffer = [];
        SharpFuzz.Fuzzer.OutOfProcess.Run(stream =>
        {
            // Created inside the run: instrumented code may only execute once SharpFuzz has set up AFL's map.
            if (aflTarget is null)
            {
                aflTarget = CreateTarget(aflName, aflShared);
                buffer = new byte[aflTarget.MaxInput];
            }

            int n = stream.ReadAtLeast(buffer, buffer.Length, throwOnEndOfStream: false);
            aflTarget.Run(buffer.AsSpan(0, n)); // an invariant broken throws: AFL records a crash
        });
        return 0;
    }

    private static IFuzzTarget CreateTarget(string name, string? shared) => name switch
    {
        "fix" => new FixFuzzTarget(dictionary: Fix44()),
        "fast" => CreateFastTarget(shared ?? throw new ArgumentException("the fast target needs ../shared/fast (give --shared DIR)")),
        _ => throw new ArgumentException($"unknown target '{name}' (fix or fast)"),
    };

    /// <summary>
    /// FIX 4.4 from the repository's file when it is there: assemblies rewritten by SharpFuzz for AFL lose the
    /// built-in dictionaries' resources.
    /// </summary>
    private static Engine.Dictionary.DataDictionary Fix44()
    {
        for (var dir = AppContext.BaseDirectory; !string.IsNullOrEmpty(dir); dir = Path.GetDirectoryName(dir))
        {
            string file = Path.Combine(dir, "src", "Engine", "Dictionary", "Standard", "FIX44.xml");
            if (File.Exists(file))
            {
                return Engine.Dictionary.DataDictionary.Load(file);
            }
        }

        return Engine.Dictionary.StandardDictionaries.Load("FIX44");
    }

    private static FastFuzzTarget CreateFastTarget(string shared)
    {
        var templates = FastTemplateLoader.LoadFile(Path.Combine(shared, "fast", "complex30000-templates.xml"));
        var packets = FastFuzzTarget.CorpusPackets(File.ReadAllBytes(Path.Combine(shared, "fast", "complex30000.dat")), 30_001);
        return new FastFuzzTarget(templates, packets);
    }

    /// <summary>../shared beside the repository (or the folder given).</summary>
    private static string? SharedDirectory(string? given)
    {
        if (given is not null)
        {
            return Directory.Exists(given) ? given : throw new ArgumentException($"--shared: {given} is not a folder");
        }

        if (Environment.GetEnvironmentVariable("RAPIDFIX_SHARED") is { Length: > 0 } env && Directory.Exists(env))
        {
            return env;
        }

        foreach (var start in new[] { Directory.GetCurrentDirectory(), AppContext.BaseDirectory })
        {
            for (var dir = start; !string.IsNullOrEmpty(dir); dir = Path.GetDirectoryName(dir))
            {
                if (File.Exists(Path.Combine(dir, "RapidFix.sln")))
                {
                    string candidate = Path.Combine(Path.GetDirectoryName(dir)!, "shared");
                    return Directory.Exists(candidate) ? candidate : null;
                }
            }
        }

        return null;
    }

    private static int Replay(IFuzzTarget target, List<string> files)
    {
        int failed = 0;
        foreach (var file in files)
        {
            try
            {
                target.Run(File.ReadAllBytes(file));
                Console.WriteLine($"ok    {file}");
            }
            catch (Exception e)
            {
                failed++;
                Console.WriteLine($"FAIL  {file}: {e.GetType().Name}: {e.Message}");
            }
        }

        return failed == 0 ? 0 : 1;
    }

    private static int Campaign(string name, IFuzzTarget target, long cases, double seconds, int seed, string findingsDir, int caseMs)
    {
        var random = new Random(seed);
        var input = new byte[target.MaxInput];
        var guard = new GuardedInput(target.MaxInput);
        var watchdog = new Watchdog(TimeSpan.FromMilliseconds(caseMs), findingsDir, name);
        int findings = 0;
        long warmup = Math.Min(cases / 10, 50_000);
        long allocatedAtWarm = 0;
        int collectionsAtWarm = 0;
        long slowest = 0;
        long reporting = 0;
        var clock = Stopwatch.StartNew();
        long ran = 0;
        Console.WriteLine($"fuzz {name}: up to {cases:N0} cases{(double.IsPositiveInfinity(seconds) ? "" : $" or {seconds} s")}, seed {seed}, {target.Seeds.Length} seeds, case bound {caseMs} ms");
        for (long i = 0; i < cases && clock.Elapsed.TotalSeconds < seconds; i++)
        {
            if (i == warmup)
            {
                Thread.Sleep(200); // let tiered compilation settle before the steady state is measured
                reporting = 0;
                allocatedAtWarm = GC.GetAllocatedBytesForCurrentThread();
                collectionsAtWarm = GC.CollectionCount(0);
            }

            int length = target.Mutate(random, input);
            var span = guard.Place(input.AsSpan(0, length));
            watchdog.Enter(input, length, i);
            long start = Stopwatch.GetTimestamp();
            try
            {
                RunOne(target, span);
            }
            catch (Exception e) when (e is not OutOfMemoryException)
            {
                long before = GC.GetAllocatedBytesForCurrentThread();
                string file = Save(findingsDir, $"{name}-crash-{i}.bin", input.AsSpan(0, length));
                Console.WriteLine($"FINDING case {i}: {e.GetType().Name}: {e.Message} -> {file}");
                reporting += GC.GetAllocatedBytesForCurrentThread() - before; // the exception itself still counts
                if (++findings >= MaxFindings)
                {
                    break;
                }
            }

            long elapsed = Stopwatch.GetTimestamp() - start;
            watchdog.Leave();
            slowest = Math.Max(slowest, elapsed);
            ran++;
            if ((i & 0x3FFFF) == 0 && i > 0)
            {
                long before = GC.GetAllocatedBytesForCurrentThread();
                Console.WriteLine($"  {i:N0} cases, {i / clock.Elapsed.TotalSeconds:N0}/s");
                reporting += GC.GetAllocatedBytesForCurrentThread() - before;
            }
        }

        // What the cases allocated: the thread's total since warm-up less what the progress lines took.
        long allocated = ran > warmup ? GC.GetAllocatedBytesForCurrentThread() - allocatedAtWarm - reporting : 0;
        int collections = ran > warmup ? GC.CollectionCount(0) - collectionsAtWarm : 0;
        double slowestMs = slowest * 1000.0 / Stopwatch.Frequency;
        Console.WriteLine($"fuzz {name}: {ran:N0} cases in {clock.Elapsed.TotalSeconds:F1} s ({ran / clock.Elapsed.TotalSeconds:N0}/s), " +
                          $"{findings} findings, 0 hangs (slowest case {slowestMs:F2} ms, bound {caseMs} ms)");
        Console.WriteLine($"  steady state after {warmup:N0} warm-up cases: {allocated:N0} bytes allocated, {collections} gen0 collections; " +
                          $"peak working set {Process.GetCurrentProcess().PeakWorkingSet64 / (1024 * 1024)} MB");
        Console.WriteLine($"  {Counters(target)}");
        if (allocated > 0)
        {
            Console.WriteLine("FINDING the steady state allocated");
            findings++;
        }

        return findings == 0 ? 0 : 1;
    }

    [MethodImpl(MethodImplOptions.AggressiveOptimization)]
    private static void RunOne(IFuzzTarget target, ReadOnlySpan<byte> input) => target.Run(input);

    private static string Counters(IFuzzTarget target) => target switch
    {
        FixFuzzTarget fix => fix.Counters.ToString(),
        FastFuzzTarget fast => fast.Counters + $", distinct error codes {fast.DistinctErrors}",
        _ => "",
    };

    private static string Save(string folder, string file, ReadOnlySpan<byte> bytes)
    {
        Directory.CreateDirectory(folder);
        string path = Path.Combine(folder, file);
        File.WriteAllBytes(path, bytes.ToArray());
        return path;
    }

    /// <summary>
    /// Ends the run when one case takes longer than the bound: the input is saved as a hang and the process exits
    /// with 3 (a case cannot be interrupted in process).
    /// </summary>
    private sealed class Watchdog
    {
        private readonly byte[] _current;
        private long _enteredAt;
        private int _length;
        private long _case;

        public Watchdog(TimeSpan bound, string folder, string name)
        {
            _current = new byte[1 << 20];
            var thread = new Thread(() =>
            {
                long limit = (long)(bound.TotalSeconds * Stopwatch.Frequency);
                while (true)
                {
                    Thread.Sleep(Math.Max(10, (int)bound.TotalMilliseconds / 4));
                    long entered = Volatile.Read(ref _enteredAt);
                    if (entered != 0 && Stopwatch.GetTimestamp() - entered > limit)
                    {
                        string file = Save(folder, $"{name}-hang-{Volatile.Read(ref _case)}.bin", _current.AsSpan(0, _length));
                        Console.WriteLine($"HANG case {_case}: over {bound.TotalMilliseconds} ms -> {file}");
                        Environment.Exit(3);
                    }
                }
            }) { IsBackground = true, Name = "fuzz-watchdog" };
            thread.Start();
        }

        public void Enter(byte[] input, int length, long index)
        {
            input.AsSpan(0, length).CopyTo(_current);
            _length = length;
            _case = index;
            Volatile.Write(ref _enteredAt, Stopwatch.GetTimestamp());
        }

        public void Leave() => Volatile.Write(ref _enteredAt, 0);
    }

    /// <summary>
    /// Native memory whose last byte of input is followed by a page that cannot be read (Linux, macOS): a decoder
    /// or framer that reads one byte past its input faults at once instead of reading a neighbour's bytes.
    /// </summary>
    private sealed unsafe class GuardedInput
    {
        private const int ProtNone = 0;
        private readonly byte* _end;
        private readonly bool _guarded;
        private readonly byte[]? _fallback;

        public GuardedInput(int maxInput)
        {
            int page = Environment.SystemPageSize;
            int dataPages = (maxInput + page - 1) / page;
            if (OperatingSystem.IsLinux() || OperatingSystem.IsMacOS())
            {
                byte* region = (byte*)NativeMemory.AlignedAlloc((nuint)((dataPages + 1) * page), (nuint)page);
                _end = region + (dataPages * page);
                _guarded = mprotect(_end, (nuint)page, ProtNone) == 0;
            }

            if (!_guarded)
            {
                _fallback = new byte[maxInput];
            }
        }

        public ReadOnlySpan<byte> Place(ReadOnlySpan<byte> input)
        {
            if (!_guarded)
            {
                input.CopyTo(_fallback);
                return _fallback.AsSpan(0, input.Length);
            }

            var at = new Span<byte>(_end - input.Length, input.Length);
            input.CopyTo(at);
            return at;
        }

        [DllImport("libc", SetLastError = true)]
        private static extern int mprotect(void* address, nuint length, int protection);
    }
}
