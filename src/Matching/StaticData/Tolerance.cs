namespace RapidFix.Matching.StaticData;

/// <summary>A criterion's comparison: the rule, its value (an amount, or a percentage for PTOL/PTMX) and the cap.</summary>
/// <param name="Rule">How values compare.</param>
/// <param name="Value">MNMX: the absolute amount; PTOL, PTMX: the percentage (1.5 = 1.5 %). Scaled by 10^6.</param>
/// <param name="Cap">PTMX: the absolute cap. Scaled by 10^6.</param>
public readonly record struct Tolerance(ToleranceRule Rule, long Value, long Cap)
{
    /// <summary>Exact.</summary>
    public static Tolerance Exact => default;

    /// <summary>The largest difference allowed against <paramref name="expected"/>.</summary>
    public long AllowedDifference(long expected)
    {
        long magnitude = expected < 0 ? -expected : expected;
        switch (Rule)
        {
            case ToleranceRule.Mnmx:
                return Value;
            case ToleranceRule.Ptol:
                return Percent(magnitude, Value);
            case ToleranceRule.Ptmx:
                long p = Percent(magnitude, Value);
                return p < Cap ? p : Cap;
            default:
                return 0;
        }
    }

    /// <summary>True when <paramref name="actual"/> is within the tolerance of <paramref name="expected"/>.</summary>
    public bool Accepts(long actual, long expected)
    {
        long diff = actual - expected;
        if (diff < 0)
        {
            diff = -diff;
        }

        return Rule == ToleranceRule.Exct ? actual == expected : diff <= AllowedDifference(expected);
    }

    // magnitude × percent / 100, both scaled by 10^6.
    private static long Percent(long magnitude, long percent)
    {
        long high = Math.BigMul(magnitude, percent, out long low);
        if (high == 0 && low >= 0)
        {
            return low / (100 * Scaled.One); // the 64-bit path: Int128 division is slow
        }

        Int128 r = (Int128)magnitude * percent / (100 * Scaled.One);
        return r > long.MaxValue ? long.MaxValue : (long)r;
    }
}
