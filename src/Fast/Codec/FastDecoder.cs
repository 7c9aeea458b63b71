using RapidFix.Fast.Messages;
using RapidFix.Fast.Templates;
using RapidFix.Pools.Phases;

namespace RapidFix.Fast.Codec;

/// <summary>
/// Decodes FAST 1.1 messages. Owns the dictionaries (previous values) of one stream: use one decoder per stream,
/// on one thread. Decoding allocates nothing; every malformed input ends in a <see cref="FastResult"/> error with
/// its offset, after work bounded by the input length and <see cref="FastCodecLimits"/>.
/// </summary>
public sealed class FastDecoder
{
    internal readonly DictionaryState State;
    internal readonly byte[] Scratch;
    internal readonly int MaxSequenceLength;
    internal readonly int MaxDepth;
    internal readonly int MaxPmapScan;
    internal readonly bool Strict;

    private readonly long[] _errorCounts = new long[64];

    /// <param name="templates">The compiled templates.</param>
    /// <param name="phases">If given, creation is refused outside startup (the decoder's state is allocated here).</param>
    public FastDecoder(FastTemplateRegistry templates, PhaseController? phases = null)
    {
        ArgumentNullException.ThrowIfNull(templates);
        phases?.EnsureStartup("create a FAST decoder");
        Templates = templates;
        State = new DictionaryState(templates);
        var limits = templates.Limits;
        Scratch = new byte[limits.MaxStringBytes];
        MaxSequenceLength = limits.MaxSequenceLength;
        MaxDepth = Math.Min(limits.MaxNestingDepth, 60);
        Strict = limits.RejectReportableErrors;
        MaxPmapScan = templates.MaxPmapBytes + (Strict ? 0 : 8);
    }

    /// <summary>The compiled templates the decoder reads messages with.</summary>
    public FastTemplateRegistry Templates { get; }

    /// <summary>Messages decoded successfully since creation.</summary>
    public long MessagesDecoded { get; private set; }

    /// <summary>Messages that failed since creation.</summary>
    public long Errors { get; private set; }

    /// <summary>How many messages failed with <paramref name="code"/> since creation (exhausted storage included).</summary>
    public long ErrorCount(FastErrorCode code) => _errorCounts[(int)code & 63];

    /// <summary>Resets every dictionary (all previous values become undefined), as at the start of a stream.</summary>
    public void Reset() => State.Reset();

    /// <summary>Decodes one message at the start of <paramref name="data"/> into <paramref name="message"/>.</summary>
    public FastResult Decode(ReadOnlySpan<byte> data, FastMessage message)
    {
        var writer = new FastMessageWriter(message);
        return Decode(data, ref writer);
    }

    /// <summary>Decodes one message at the start of <paramref name="data"/>, calling <paramref name="handler"/> for each field.</summary>
    public FastResult Decode<THandler>(ReadOnlySpan<byte> data, ref THandler handler)
        where THandler : struct, IFastDecodeHandler
    {
        var run = new DecodeRun<THandler>(this, data, ref handler);
        var result = run.Message();
        if (result.Ok)
        {
            MessagesDecoded++;
        }
        else
        {
            Errors++;
            _errorCounts[(int)result.Error & 63]++;
        }

        return result;
    }
}
