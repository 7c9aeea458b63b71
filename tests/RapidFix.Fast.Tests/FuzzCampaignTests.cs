using RapidFix.Fast.Tests.Support;
using RapidFix.Fuzzing;
using RapidFix.Tests.Shared;

namespace RapidFix.Fast.Tests;

/// <summary>
/// The CI slice of the FAST fuzzing campaign (<c>tools/fuzz.sh fast</c> runs the same target for millions of cases):
/// a fixed set of mutated corpus packets through the decoder with every invariant of <see cref="FastFuzzTarget"/>
/// checked, a time bound per case, and no allocation once warm.
/// </summary>
public sealed class FuzzCampaignTests
{
    private const int Cases = 60_000;

    [SharedDataFact]
    public void A_deterministic_slice_of_the_campaign_finds_nothing_and_allocates_nothing()
    {
        var packets = FastFuzzTarget.CorpusPackets(Corpus.Bytes, 2_000);
        var target = new FastFuzzTarget(Corpus.Templates, packets);
        var inputs = FuzzSlice.Inputs(target, new Random(20261123), Cases);
        var (window, slowest) = FuzzWindow.Measure(target, FuzzSlice.Inputs(target, new Random(7), Cases / 4), inputs, t => t.Counters = default);

        Assert.True(window.Bytes == 0, window.ToString());
        var c = target.Counters;
        Assert.True(c.Cases >= Cases && c.Ok > 0 && c.Errors > Cases / 10, c.ToString());
        Assert.True(target.DistinctErrors >= 5, $"only {target.DistinctErrors} distinct error codes");
        Assert.True(slowest < TimeSpan.FromSeconds(2), $"slowest case {slowest}");
    }
}
