namespace RapidFix.Fast;

/// <summary>
/// Bounds that keep decoding of hostile input bounded in work and memory, and size the pre-allocated codec state.
/// Fixed when templates are compiled; nothing grows past them at run time (exceeding one is an error result).
/// </summary>
public sealed record FastCodecLimits
{
    /// <summary>The limits the codec uses when none are given.</summary>
    public static FastCodecLimits Default { get; } = new();

    /// <summary>Largest string or byte vector a dictionary keeps as a previous value (bytes; at least 1).</summary>
    public int MaxStringBytes
    {
        get => _maxStringBytes;
        init => _maxStringBytes = value >= 1 ? value : throw new ArgumentOutOfRangeException(nameof(MaxStringBytes), value, "must be at least 1");
    }

    private readonly int _maxStringBytes = 1024;

    /// <summary>Largest sequence length accepted from the wire (LimitExceeded beyond).</summary>
    public int MaxSequenceLength { get; init; } = 4096;

    /// <summary>Deepest nesting of segments (groups with presence maps, sequence entries, dynamic template references).</summary>
    public int MaxNestingDepth { get; init; } = 32;

    /// <summary>
    /// Treat the specification's reportable errors (R6 overlong integer, R7/R8 presence map, R9 overlong string) as
    /// failures. On by default: an encoder that produces them is broken or hostile, and re-encoding would not
    /// reproduce the bytes.
    /// </summary>
    public bool RejectReportableErrors { get; init; } = true;

    /// <summary>
    /// Compile each template body into straight-line code at startup for decoding into <see cref="Messages.FastMessage"/>
    /// (where the runtime can generate code). Off: the interpreter decodes everything.
    /// </summary>
    public bool CompileTemplates { get; init; } = true;
}
