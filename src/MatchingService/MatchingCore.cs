using RapidFix.Engine.Codec;
using RapidFix.Engine.Fields;
using RapidFix.Engine.Sessions;
using RapidFix.Matching;
using RapidFix.Matching.StaticData;

namespace RapidFix.MatchingService;

/// <summary>
/// The service's side of the matcher: one <see cref="Matcher"/> and the writer that turns its answers into FIX
/// message bodies for the participants' sessions (<see cref="AnswerWriter"/>), collected in an
/// <see cref="OutputQueue"/>. Used by the matcher thread, by the replay at startup and, on a scratch instance, by the
/// warm-up. Allocation-free per message.
/// </summary>
internal sealed class MatchingCore
{
    /// <summary>The largest answer body the writer produces (MaxMessageSize must leave room for it and the header).</summary>
    public const int MaxAnswerBody = 1024;

    /// <summary>Answers one input may produce at most: its ack, a CLS per account to both participants, exceptions.</summary>
    public const int MaxAnswersPerInput = 2 + (2 * Matcher.MaxAccounts) + 6;

    /// <summary>Bytes of answers one input may produce at most.</summary>
    public const int MaxAnswerBytesPerInput = MaxAnswersPerInput * (MaxAnswerBody + 2);

    private readonly Matcher _matcher;
    private readonly byte[][] _participants;
    private AnswerWriter _writer;

    /// <param name="reference">The static data.</param>
    /// <param name="participants">The participants' CompIDs, by index.</param>
    /// <param name="businessDate">The business date (yyyymmdd) the matcher runs in.</param>
    /// <param name="options">Table sizes; null for the defaults.</param>
    public MatchingCore(ReferenceData reference, byte[][] participants, int businessDate, MatcherOptions? options = null)
    {
        _matcher = new Matcher(reference, (options ?? new MatcherOptions()) with { BusinessDate = businessDate });
        _participants = participants;
        _writer = new AnswerWriter(participants, _matcher.BusinessDate);
    }

    public Matcher Matcher => _matcher;

    /// <summary>Loads the static data directory (startup).</summary>
    public static ReferenceData LoadStaticData(string directory) => ReferenceData.Load(directory);

    /// <summary>Whether a stored outbound message with this MsgType is one of the matcher's answers.</summary>
    public static bool IsAnswer(ReadOnlySpan<byte> msgType) => AnswerWriter.IsAnswerType(msgType);

    /// <summary>Matches one message of <paramref name="participant"/>; its answers are appended to <paramref name="answers"/>.</summary>
    public void Process(int participant, FixMessage message, OutputQueue answers)
    {
        _writer.Queue = answers;
        _matcher.Process(message, _participants[participant], ref _writer);
        _writer.Queue = null;
    }

    /// <summary>One warm-up round (see <see cref="WarmUp"/>).</summary>
    public static void WarmUpRound(MatchingCore scratch, OutputQueue queue, OutputDispatcher dispatcher, RapidFix.Engine.Dictionary.DataDictionary dictionary, int round)
    {
        _ = scratch; _ = queue; _ = dispatcher; _ = dictionary; _ = round;
    }
}
