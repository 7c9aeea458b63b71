using RapidFix.Fuzzing;
using RapidFix.Tests.Shared;

namespace RapidFix.Engine.Tests.Codec;

/// <summary>
/// The CI slice of the fuzzing campaign (<c>tools/fuzz.sh fix</c> runs the same target for millions of cases): a
/// fixed, deterministic set of mutated streams (bit flips, truncation, inserted SOH, deleted bytes, huge BodyLength,
/// garbage, repeated runs and fields, out-of-range tags, edge numbers) through framer, parser and validator, with
/// every invariant of <see cref="FixFuzzTarget"/> checked (a specific status for every frame, progress, no exception,
/// no read beyond the input, fast path = full walk), a time bound per case and no allocation at all once warm.
/// </summary>
public sealed class FuzzCampaignTests
{
    private const int Cases = 30_000;

    [Fact]
    public void A_deterministic_slice_of_the_campaign_finds_nothing_and_allocates_nothing()
    {
        var target = new FixFuzzTarget();
        var inputs = FuzzSlice.Inputs(target, new Random(20261123), Cases);
        var (window, slowest) = FuzzWindow.Measure(target, FuzzSlice.Inputs(target, new Random(7), Cases / 4), inputs, t => t.Counters = default);

        Assert.True(window.Bytes == 0, window.ToString());
        var c = target.Counters;
        Assert.True(c.Cases >= Cases, c.ToString());
        Assert.True(c.Valid > 0 && c.Rejects > 0 && c.ParseErrors > 0 && c.Partial > 0 && c.Garbled > 0 && c.BadChecksum > 0, c.ToString());

        // Generous for a loaded build machine: a case is microseconds; a hang would be seconds.
        Assert.True(slowest < TimeSpan.FromSeconds(2), $"slowest case {slowest}");
    }

    [Fact]
    public void The_seed_corpus_covers_a_valid_message_a_reject_and_a_limit()
    {
        var target = new FixFuzzTarget();
        foreach (var seed in target.Seeds)
        {
            target.Run(seed);
        }

        var c = target.Counters;
        Assert.True(c.Valid > 0 && c.Rejects > 0 && c.Partial > 0, c.ToString());
    }
}
