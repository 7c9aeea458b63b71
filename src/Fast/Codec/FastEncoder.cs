using RapidFix.Fast.Messages;
using RapidFix.Fast.Templates;
using RapidFix.Pools.Phases;

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

    /// <param name="templates">The compiled templates.</param>
    /// <param name="phases">If given, creation is refused outside startup.</param>
    public FastEncoder(FastTemplateRegistry templates, PhaseController? phases = null)
    {
        ArgumentNullException.ThrowIfNull(templates);
        phases?.EnsureStartup("create a FAST encoder");
        Templates = templates;
        State = new DictionaryState(templates);
    }

    /// <summary>The compiled templates the encoder writes messages with.</summary>
    public FastTemplateRegistry Templates { get; }

    /// <summary>Messages that failed to encode since creation.</summary>
    public long Errors { get; private set; }

    /// <summary>Resets every dictionary, as at the start of a stream.</summary>
    public void Reset() => State.Reset();

    /// <summary>Encodes <paramref name="message"/> at the start of <paramref name="destination"/>; the result's offset is the length written.</summary>
    /// <remarks>
    /// The rest of <paramref name="destination"/> is scratch: the encoder may write past the message's end (the
    /// room reserved for a presence map before it is shortened, whole words for integers).
    /// </remarks>
    public FastResult Encode(FastMessage message, Span<byte> destination)
    {
        ArgumentNullException.ThrowIfNull(message);
        var run = new EncodeRun(this, message, destination);
        var result = run.Message();
        if (!result.Ok)
        {
            Errors++;
        }

        return result;
    }
}
