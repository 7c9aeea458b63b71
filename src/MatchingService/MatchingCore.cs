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

    /// <summary>
    /// The view the matcher parses its inputs in (matcher thread, replay, warm-up): the connection thread's session
    /// has validated every input already (the journal holds only those), so the parse builds the groups and the
    /// index without the session's value screen (FixMessageOptions.ScreenValues), which was a third of the matcher
    /// thread's parse.
    /// </summary>
    public static FixMessageOptions InputView { get; } = new() { ScreenValues = false };

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
        _writer = new AnswerWriter(participants, _matcher, RapidFix.Engine.Time.EngineClock.Shared);
    }

    public Matcher Matcher => _matcher;

    /// <summary>Answers that had no participant to go to or did not fit (counted, not sent).</summary>
    public long Unroutable => _writer.Unroutable;

    /// <summary>Loads the static data directory (startup).</summary>
    public static ReferenceData LoadStaticData(string directory) => ReferenceData.Load(directory);

    /// <summary>Whether a stored outbound message with this MsgType is one of the matcher's answers.</summary>
    public static bool IsAnswer(ReadOnlySpan<byte> msgType) => AnswerWriter.IsAnswerType(msgType);

    /// <summary>Matches one message of <paramref name="participant"/>; its answers are appended to <paramref name="answers"/>.</summary>
    public void Process(int participant, FixMessage message, OutputQueue answers)
    {
        _writer.Queue = answers;
        _writer.SetInput(message.Buffer, message.Offset, EchoFields.Of(message));
        _matcher.Process(message, _participants[participant], ref _writer);
        _writer.Queue = null;
        _writer.ClearInput();
    }

    /// <summary>
    /// Matches one input the connection thread already read (<see cref="ReadInput"/>): the same answers as
    /// <see cref="Process(int, FixMessage, OutputQueue)"/> on that message, without parsing or reading it again. Its
    /// bytes start at <paramref name="offset"/> in <paramref name="buffer"/> (the fields the answers echo are there).
    /// </summary>
    public void Process(in ReadInput read, byte[] buffer, int offset, OutputQueue answers)
    {
        _writer.Queue = answers;
        _writer.SetInput(buffer, offset, in read.Echo);
        _matcher.Process(in read.Input, ref _writer);
        _writer.Queue = null;
        _writer.ClearInput();
    }

    /// <summary>The answers produced until <see cref="EndBatch"/> carry <paramref name="nowNanos"/> as their time (one clock read a batch).</summary>
    public void BeginBatch(long nowNanos) => _writer.BatchNanos = nowNanos;

    /// <summary>Answers read the clock again (see <see cref="BeginBatch"/>).</summary>
    public void EndBatch() => _writer.BatchNanos = 0;

    /// <summary>
    /// Moves the matcher to business date <paramref name="yyyymmdd"/> (the next business day): what stayed open too
    /// long expires, and each expired message's sender is told, through <paramref name="dispatcher"/> directly.
    /// </summary>
    public void AdvanceBusinessDate(int yyyymmdd, OutputDispatcher dispatcher)
    {
        _writer.Dispatcher = dispatcher;
        _matcher.AdvanceBusinessDate(yyyymmdd, ref _writer);
        _writer.Dispatcher = null;
    }

    /// <summary>
    /// Warm-up trades (startup): standard trades between the first investment manager and the first executing
    /// broker among <paramref name="participants"/> that static data knows, in the first security whose currency has
    /// a business day after <paramref name="businessDate"/>, as complete FIX messages with the sender's index.
    /// Empty when static data has no such pair (the warm-up then only parses).
    /// </summary>
    public static List<(int Participant, byte[] Message)> WarmUpMessages(ReferenceData reference, string staticDataPath, byte[][] participants, int businessDate,
        int trades)
    {
        var list = new List<(int, byte[])>();
        int im = -1, eb = -1;
        for (int i = 0; i < participants.Length; i++)
        {
            int p = reference.FindParticipant(participants[i]);
            if (p < 0)
            {
                continue;
            }

            var roles = reference.GetParticipant(p).Roles;
            if (im < 0 && (roles & ParticipantRoles.InvestmentManager) != 0)
            {
                im = i;
            }
            else if (eb < 0 && (roles & ParticipantRoles.ExecutingBroker) != 0)
            {
                eb = i;
            }
        }

        int account = -1;
        for (int a = 0; im >= 0 && a < reference.AccountCount && account < 0; a++)
        {
            if (reference.AccountManager(a) == reference.FindParticipant(participants[im]))
            {
                account = a;
            }
        }

        string? isin = KnownIsins(reference, staticDataPath, 1) is [var first] ? first : null;
        if (eb < 0 || account < 0 || isin is null || reference.PlaceCount == 0)
        {
            return list;
        }

        var security = reference.GetSecurity(reference.FindSecurity(System.Text.Encoding.ASCII.GetBytes(isin)));
        Span<byte> code = stackalloc byte[3];
        Codes.WriteCurrency(reference.CurrencyCode(security.Currency), code);
        int settle = NextBusinessDay(reference, security.Currency, businessDate);
        for (int t = 0; t < trades; t++)
        {
            var spec = new TradeSpec
            {
                Key = "WARMUP" + t.ToString(System.Globalization.CultureInfo.InvariantCulture),
                InvestmentManager = System.Text.Encoding.ASCII.GetString(participants[im]),
                ExecutingBroker = System.Text.Encoding.ASCII.GetString(participants[eb]),
                Isin = isin,
                Currency = System.Text.Encoding.ASCII.GetString(code),
                MinorUnits = reference.MinorUnits(security.Currency),
                TradeDate = businessDate,
                SettlDate = settle,
                Price = 10m + t,
                Accounts =
                [
                    new AccountSpec(System.Text.Encoding.ASCII.GetString(reference.AccountId(account)), 600, System.Text.Encoding.ASCII.GetString(reference.PlaceId(0))),
                    new AccountSpec(System.Text.Encoding.ASCII.GetString(reference.AccountId(account)), 400, System.Text.Encoding.ASCII.GetString(reference.PlaceId(0))),
                ],
            };
            foreach (var m in TradeMessages.Standard(spec))
            {
                int sender = m.Sender == spec.InvestmentManager ? im : eb;
                list.Add((sender, TradeMessages.Complete(m, "MATCH", list.Count + 2)));
            }
        }

        return list;
    }

    /// <summary>
    /// One warm-up round: a fresh scratch matcher (small tables) takes the warm-up trades; their answers are written
    /// and dropped. The live matcher never sees them.
    /// </summary>
    public static void WarmUpRound(ReferenceData reference, byte[][] participants, int businessDate, List<(int Participant, byte[] Message)> messages,
        RapidFix.Engine.Dictionary.DataDictionary[] dictionaries, OutputQueue queue, FixMessage view)
    {
        var scratch = new MatchingCore(reference, participants, businessDate, new MatcherOptions { OpenTrades = 1024, Exceptions = 1024 });
        var read = default(ReadInput);
        bool alternate = false;
        foreach (var (participant, message) in messages)
        {
            if (view.Parse(message, 0, message.Length, dictionaries[participant]) == FixParseError.None)
            {
                // Both ways an input is matched: read on the connection thread (the live path), or parsed here.
                alternate = !alternate;
                if (alternate && ReadInput.TryRead(view, participants[participant], ref read))
                {
                    scratch.Process(in read, view.Buffer, view.Offset, queue);
                }
                else
                {
                    scratch.Process(participant, view, queue);
                }
            }

            queue.Clear();
        }
    }

    private static int NextBusinessDay(ReferenceData reference, int currency, int date)
    {
        var day = DateOnly.ParseExact(date.ToString(System.Globalization.CultureInfo.InvariantCulture), "yyyyMMdd", System.Globalization.CultureInfo.InvariantCulture);
        for (int i = 1; i < 30; i++)
        {
            int candidate = int.Parse(day.AddDays(i).ToString("yyyyMMdd", System.Globalization.CultureInfo.InvariantCulture), System.Globalization.CultureInfo.InvariantCulture);
            if (reference.IsBusinessDay(currency, candidate))
            {
                return candidate;
            }
        }

        return date;
    }

    // Static data gives securities by index, not their ISINs: the first ISINs of securities.csv that it knows, at
    // most max (startup only: the warm-ups' trades).
    internal static List<string> KnownIsins(ReferenceData reference, string staticDataPath, int max)
    {
        var list = new List<string>();
        bool header = true;
        foreach (var line in File.ReadLines(Path.Combine(staticDataPath, "securities.csv")))
        {
            var text = line.Trim();
            if (text.Length == 0 || text[0] == '#')
            {
                continue;
            }

            if (header)
            {
                header = false;
                continue;
            }

            string isin = text.Split(',')[0].Trim();
            if (reference.FindSecurity(System.Text.Encoding.ASCII.GetBytes(isin)) >= 0)
            {
                list.Add(isin);
                if (list.Count == max)
                {
                    break;
                }
            }
        }

        return list;
    }
}
