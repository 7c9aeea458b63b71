using RapidFix.Benchmarks.Diagnostics;
using RapidFix.Engine.Codec;
using RapidFix.Engine.Dictionary;
using RapidFix.Engine.Validation;
using RapidFix.Tests.Shared;

namespace RapidFix.Benchmarks.Fix;

/// <summary>
/// The work of <see cref="FixParseBenchmarks.ParseAndValidate"/> (frame, parse, validate against FIX 4.4) in a
/// plain loop, a given number of times after a warm-up, for counting instructions with <c>perf stat</c>
/// (benchmarks/count-instructions.sh). Not a BenchmarkDotNet run.
/// </summary>
internal static class FixParseLoop
{
    public const int MessagesPerPass = 100_000;

    public static int Run(int passes, string name, TextWriter output)
    {
        var dictionary = StandardDictionaries.Load("FIX44");
        var validator = new MessageValidator(dictionary);
        var framer = new FixFramer();
        var view = new FixMessage();
        string? sample = name switch
        {
            "NewOrderSingle" => FixSamples.NewOrderSingle,
            "ExecutionReport" => FixSamples.ExecutionReport,
            "MarketDataSnapshot10" => FixSamples.MarketDataSnapshot,
            _ => null,
        };
        if (sample is null)
        {
            Console.Error.WriteLine($"unknown message {name}: NewOrderSingle, ExecutionReport or MarketDataSnapshot10");
            return 2;
        }

        byte[] wire = FixSamples.Wire(sample);
        long invalid = CountingLoop.Run(passes, MessagesPerPass, () => Pass(framer, view, validator, dictionary, wire), out double perMessage);
        output.WriteLine($"{name}: {passes} passes, {perMessage:F1} ns/message, {invalid} invalid");
        return invalid == 0 ? 0 : 1;
    }

    private static int Pass(FixFramer framer, FixMessage view, MessageValidator validator, DataDictionary dictionary, byte[] wire)
    {
        int invalid = 0;
        for (int i = 0; i < MessagesPerPass; i++)
        {
            var frame = framer.Frame(wire);
            if (frame.Status != FrameStatus.Complete ||
                view.Parse(wire, frame.Start, frame.Length, dictionary) != FixParseError.None ||
                !validator.Validate(view).IsValid)
            {
                invalid++;
            }
        }

        return invalid;
    }
}
