namespace RapidFix.Fuzzing;

/// <summary>Counts of what the cases produced (a struct, so counting allocates nothing).</summary>
public struct FuzzCounters
{
    public long Cases;
    public long Frames;
    public long Garbled;
    public long BadChecksum;
    public long ParseErrors;
    public long Partial;
    public long Rejects;
    public long Valid;
    public long Ok;
    public long Errors;

    public override readonly string ToString() =>
        $"cases {Cases}, frames {Frames}, garbled {Garbled}, bad checksum {BadChecksum}, parse errors {ParseErrors} (limits {Partial}), " +
        $"rejects {Rejects}, valid {Valid}, decoded {Ok}, decode errors {Errors}";
}

/// <summary>An invariant of a fuzz target broke: the input that did it is a finding.</summary>
public sealed class FuzzInvariantException(string message) : Exception(message);

/// <summary>A fuzz target: mutates its seeds into inputs and runs one input, checking its invariants.</summary>
public interface IFuzzTarget
{
    /// <summary>Longest input a case takes.</summary>
    int MaxInput { get; }

    /// <summary>The seed corpus.</summary>
    byte[][] Seeds { get; }

    /// <summary>Writes a mutated seed into <paramref name="output"/> (at least <see cref="MaxInput"/> long); returns its length.</summary>
    int Mutate(Random random, byte[] output);

    /// <summary>Runs one case; throws <see cref="FuzzInvariantException"/> when an invariant breaks.</summary>
    void Run(ReadOnlySpan<byte> input);
}

/// <summary>Helpers of the CI slices: a fixed set of inputs, run with a per-case time measurement.</summary>
public static class FuzzSlice
{
    /// <summary><paramref name="count"/> mutated inputs, the same for the same seed of <paramref name="random"/>.</summary>
    public static byte[][] Inputs(IFuzzTarget target, Random random, int count)
    {
        var buffer = new byte[target.MaxInput];
        var inputs = new byte[count][];
        for (int i = 0; i < count; i++)
        {
            inputs[i] = buffer.AsSpan(0, target.Mutate(random, buffer)).ToArray();
        }

        return inputs;
    }

    /// <summary>Runs every input; returns the slowest case in <see cref="TimeSpan"/> ticks.</summary>
    [System.Runtime.CompilerServices.MethodImpl(System.Runtime.CompilerServices.MethodImplOptions.AggressiveOptimization)]
    public static long RunAll<T>(T target, byte[][] inputs)
        where T : IFuzzTarget
    {
        long slowest = 0;
        foreach (var input in inputs)
        {
            long start = System.Diagnostics.Stopwatch.GetTimestamp();
            target.Run(input);
            slowest = Math.Max(slowest, System.Diagnostics.Stopwatch.GetTimestamp() - start);
        }

        return slowest * TimeSpan.TicksPerSecond / System.Diagnostics.Stopwatch.Frequency;
    }
}
