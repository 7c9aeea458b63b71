using RapidFix.Fast.Messages;
using RapidFix.Fast.Templates;

namespace RapidFix.Fast.Codec;

/// <summary>
/// Encodes <see cref="FastMessage"/>s to FAST 1.1. Owns the dictionaries of one stream (one encoder per stream, one
/// thread). Writes minimal presence maps and the shortest integer and string forms, so that decoding a stream and
/// encoding it again reproduces it byte for byte when the original encoder made the same (optimal) choices.
/// Encoding allocates nothing; a destination that is too small is an error result.
/// </summary>
public sealed class FastEncoder
{
    internal readonly DictionaryState State;

    public FastEncoder(FastTemplateRegistry templates)
    {
        ArgumentNullException.ThrowIfNull(templates);
        Templates = templates;
        State = new DictionaryState(templates);
    }

    public FastTemplateRegistry Templates { get; }

    /// <summary>Resets every dictionary, as at the start of a stream.</summary>
    public void Reset() => State.Reset();

    /// <summary>Encodes <paramref name="message"/> at the start of <paramref name="destination"/>; the result's offset is the length written.</summary>
    public FastResult Encode(FastMessage message, Span<byte> destination)
    {
        ArgumentNullException.ThrowIfNull(message);
        var run = new EncodeRun(this, message, destination);
        return run.Message();
    }
}
