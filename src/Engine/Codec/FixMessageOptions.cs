namespace RapidFix.Engine.Codec;

/// <summary>
/// Sizes of the pre-allocated tables of a <see cref="FixMessage"/>, fixed at startup. Exceeding one is a parse error
/// that leaves the header readable (<see cref="FixMessage.IsPartial"/>), so a session rejects the message; never growth.
/// </summary>
public sealed record FixMessageOptions
{
    /// <summary>The sizes the engine uses when a session's settings say nothing.</summary>
    public static FixMessageOptions Default { get; } = new();

    /// <summary>Most fields in one message, all levels (setting MaxFieldsPerMessage).</summary>
    public int MaxFields { get; init; } = 1024;

    /// <summary>Most repeating-group entries (all groups, all levels) in one message (setting MaxGroupEntries).</summary>
    public int MaxGroupEntries { get; init; } = 1024;

    /// <summary>Size of the view's own buffer, used when it copies a message (see <see cref="FixMessage.ParseCopy"/>).</summary>
    public int MaxMessageSize { get; init; } = 64 * 1024;

    /// <summary>
    /// Tags up to this number are found by direct index (one load); larger tags (user-defined ranges) by a scan of
    /// the message's top-level fields. 8 bytes per tag per view.
    /// </summary>
    public int MaxIndexedTag { get; init; } = 2048;

    /// <summary>
    /// Whether a dictionary parse runs the value screen (every field defined, well formed, an allowed value) that lets
    /// the session's validator skip its own field checks for a clean message (<c>FixMessage.IsClean</c>). True by
    /// default. A view that only reads messages the session has already validated (the matching service's matcher
    /// parses again what its connection thread validated) sets it false: the groups and the index are built the
    /// same, the screen's per-field work is skipped, and no message counts as clean.
    /// </summary>
    public bool ScreenValues { get; init; } = true;

    /// <summary>Throws when a size cannot make a working view (called by the <see cref="FixMessage"/> constructor, at startup).</summary>
    public void Validate()
    {
        if (MaxFields < 4)
        {
            throw new ArgumentOutOfRangeException(nameof(MaxFields), MaxFields, "A message has at least 4 fields (8, 9, 35, 10).");
        }

        if (MaxGroupEntries < 1)
        {
            throw new ArgumentOutOfRangeException(nameof(MaxGroupEntries), MaxGroupEntries, "At least one group entry.");
        }

        if (MaxMessageSize < 16)
        {
            throw new ArgumentOutOfRangeException(nameof(MaxMessageSize), MaxMessageSize, "Too small for any message.");
        }

        if (MaxIndexedTag < 0)
        {
            throw new ArgumentOutOfRangeException(nameof(MaxIndexedTag), MaxIndexedTag, "Must not be negative.");
        }
    }
}
