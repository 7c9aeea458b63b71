using RapidFix.TradeDriver;

namespace RapidFix.MatchingService.Tests;

/// <summary>tools/TradeDriver verify on a small set of every kind, through the real service: no mismatch.</summary>
[Collection(nameof(ServiceProcesses))]
public sealed class VerifyTests
{
    [Fact]
    public void Verify_2000_trades_of_the_default_mix_has_no_mismatch()
    {
        var output = new StringWriter();
        int exit = Verifier.Run(new VerifyOptions { Trades = 2000, Seed = 11, StaticData = DocumentedExamplesTests.GeneratedStaticData }, output);
        string[] lines = output.ToString().TrimEnd().Split('\n');
        string last = lines[^1].Trim();
        Assert.True(exit == 0, output.ToString());
        Assert.Matches("^trades 2000, CLS \\d+, exceptions \\d+, expected CLS \\d+, expected exceptions \\d+, mismatches 0$", last);
        // The mix has bad trades: some trades must not clear and some messages must be refused.
        var numbers = System.Text.RegularExpressions.Regex.Matches(last, "\\d+").Select(m => long.Parse(m.Value, System.Globalization.CultureInfo.InvariantCulture)).ToArray();
        Assert.Equal(numbers[1], numbers[3]);
        Assert.Equal(numbers[2], numbers[4]);
        Assert.InRange(numbers[1], 1, 1999);
        Assert.True(numbers[2] > 0);
    }

    [Fact]
    public void Generate_is_deterministic_for_a_seed_and_differs_between_seeds()
    {
        var options = GeneratorOptions.DefaultMix(500, 3);
        var (a, ea) = TradeGenerator.Generate(options);
        var (b, eb) = TradeGenerator.Generate(options);
        var (c, _) = TradeGenerator.Generate(options with { Seed = 4 });
        Assert.Equal(a, b);
        Assert.Equal(ea, eb);
        Assert.NotEqual(a, c);
        Assert.Contains(ea, e => e.Kind == TradeKind.NetBeyondTolerance);
    }

    [Fact]
    public void A_written_set_reads_back_the_same()
    {
        string dir = Path.Combine(Path.GetTempPath(), "rapidfix-set-" + Guid.NewGuid().ToString("N"));
        try
        {
            // Written window by window (streaming), read back whole: the same set Generate builds in memory.
            var (messages, expected) = TradeGenerator.Generate(GeneratorOptions.DefaultMix(200, 5));
            Assert.Equal((200, (long)messages.Count), TradeGenerator.Write(dir, GeneratorOptions.DefaultMix(200, 5)));
            var (read, readExpected) = TradeGenerator.Read(dir);
            Assert.Equal(messages, read);
            Assert.Equal(expected, readExpected);
        }
        finally
        {
            Directory.Delete(dir, recursive: true);
        }
    }
}
