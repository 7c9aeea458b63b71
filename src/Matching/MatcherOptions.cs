namespace RapidFix.Matching;

/// <summary>Sizes and rules of a <see cref="Matcher"/>, fixed at startup.</summary>
public sealed record MatcherOptions
{
    /// <summary>Open trades the tables hold (the expected open-trade count; a full table is an exception, never growth).</summary>
    public int OpenTrades { get; init; } = 65_536;

    /// <summary>
    /// Cleared trades kept so that a late message or a resend is recognised: their messages' IDs, kinds, senders and
    /// transaction types and the trade's number, in a ring of 8 IDs per kept trade and 64 more (the trade's records
    /// are freed as it clears). The oldest is dropped when more clear or the ring has no room for a trade's IDs, and
    /// every cleared trade is dropped after <see cref="ExpiryBusinessDays"/>. Default: a quarter of <see cref="OpenTrades"/>.
    /// </summary>
    public int ClearedTrades { get; init; } = -1;

    /// <summary>
    /// Message records (live, pending SETs, replaced and cancelled ones of open trades, withdrawn IDs kept on their
    /// own; a cleared trade holds none). Default: 8 per trade of both tables (as when cleared trades held theirs).
    /// </summary>
    public int Messages { get; init; } = -1;

    /// <summary>Exception records the queue holds.</summary>
    public int Exceptions { get; init; } = 65_536;

    /// <summary>Business days a trade (or a waiting SET) may stay open before it expires into the exception queue (the seed: 3).</summary>
    public int ExpiryBusinessDays { get; init; } = 3;

    /// <summary>The business date (yyyymmdd) the matcher starts in; <see cref="Matcher.AdvanceBusinessDate{TSink}"/> moves it.</summary>
    public int BusinessDate { get; init; }

    internal int ResolvedClearedTrades => ClearedTrades >= 0 ? ClearedTrades : Math.Max(1, OpenTrades / 4);

    internal int ResolvedMessages => Messages > 0 ? Messages : (OpenTrades + ResolvedClearedTrades) * 8;
}

/// <summary>What a matcher has done, readable at any time without allocation.</summary>
public struct MatcherCounters
{
    /// <summary>Messages given to the matcher.</summary>
    public long Messages;
    /// <summary>Messages accepted.</summary>
    public long Accepted;
    /// <summary>Messages recognised as duplicates and ignored.</summary>
    public long Duplicates;
    /// <summary>Messages rejected to the exception queue.</summary>
    public long Rejected;
    /// <summary>Trades matched and confirmed (CLS).</summary>
    public long Cleared;
    /// <summary>Open trades expired unmatched.</summary>
    public long Expired;

    /// <summary>Messages refused because a table was full (trades, messages): the back-pressure signal.</summary>
    public long TableFull;

    /// <summary>
    /// Cleared trades dropped from retention because more cleared than <see cref="MatcherOptions.ClearedTrades"/> or
    /// their IDs did not fit the ring of kept IDs (before <see cref="MatcherOptions.ExpiryBusinessDays"/>).
    /// </summary>
    public long ClearedEvicted;
}
