namespace RapidFix.Engine.Codec;

/// <summary>Sizes of the pre-allocated tables of a <see cref="FixMessage"/>. Exceeding one is a counted parse error, never growth.</summary>
public sealed record FixMessageOptions
{
    public static FixMessageOptions Default { get; } = new();

    /// <summary>Most fields in one message.</summary>
    public int MaxFields { get; init; } = 1024;

    /// <summary>Most repeating-group entries (all groups, all levels) in one message.</summary>
    public int MaxGroupEntries { get; init; } = 1024;

    /// <summary>Size of the view's own buffer, used when it copies a message (see <see cref="FixMessage.ParseCopy"/>).</summary>
    public int MaxMessageSize { get; init; } = 64 * 1024;

    /// <summary>
    /// Tags up to this number are found by direct index (one load); larger tags (user-defined ranges) by a scan of
    /// the message's top-level fields. 8 bytes per tag per view.
    /// </summary>
    public int MaxIndexedTag { get; init; } = 2048;
}
