using System.Globalization;
using System.Text;
using RapidFix.MatchingService;

namespace RapidFix.TradeDriver;

/// <summary>The kinds of trade a set mixes, with what each should produce.</summary>
internal enum TradeKind : byte
{
    /// <summary>The standard seven: one CLS per account to both participants.</summary>
    Good,

    /// <summary>One message sent twice (same ID, same transaction type): a duplicate ack, then the CLS as usual.</summary>
    Duplicate,

    /// <summary>An allocation sent, then replaced (a new ID referring to it) before the rest: the CLS as usual.</summary>
    Amended,

    /// <summary>An allocation sent, cancelled, and sent again with a new ID: the CLS as usual.</summary>
    Cancelled,

    /// <summary>An ISIN with a valid check digit that static data does not list: NOE, ALCs and NPRs rejected.</summary>
    UnknownIsin,

    /// <summary>An ISIN whose check digit is wrong: NOE, ALCs and NPRs rejected.</summary>
    BadCheckDigit,

    /// <summary>A settlement date on a holiday of the currency: NOE, ALCs and NPRs rejected.</summary>
    HolidaySettlement,

    /// <summary>The first NPR's net amount far beyond tolerance: that NPR rejected, no CLS.</summary>
    NetBeyondTolerance,

    /// <summary>One NPR never sent: no CLS, no exception (the trade waits).</summary>
    MissingMessage,
}

/// <summary>What a trade of a set should produce.</summary>
/// <param name="Trade">The trade's number in the set (its key is T&lt;number&gt;).</param>
/// <param name="Kind">Its kind.</param>
/// <param name="Cls">CLS messages expected (one per account to each of the two participants; 0 when not cleared).</param>
/// <param name="Exceptions">Rejecting acks expected (one per refused message).</param>
/// <param name="Acks">Acks expected (every message but an accepted SET gets one).</param>
internal readonly record struct Expectation(int Trade, TradeKind Kind, int Cls, int Exceptions, int Acks);

/// <summary>How a set is mixed. Fractions are of trades; the bad kinds share <see cref="Bad"/> equally.</summary>
internal sealed record GeneratorOptions
{
    public int Trades { get; init; } = 1000;

    public int Seed { get; init; } = 1;

    /// <summary>Messages of this many consecutive trades are interleaved at random (1: trade by trade, in order).</summary>
    public int ShuffleWindow { get; init; } = 16;

    public double Duplicates { get; init; }

    public double Amendments { get; init; }

    public double Cancels { get; init; }

    public double Bad { get; init; }

    /// <summary>The business date (the latest trade date; settlement three weekdays later).</summary>
    public int BusinessDate { get; init; } = 20261123;

    /// <summary>The mix verify uses when it generates: a little of everything.</summary>
    public static GeneratorOptions DefaultMix(int trades, int seed) => new()
    {
        Trades = trades,
        Seed = seed,
        Duplicates = 0.02,
        Amendments = 0.02,
        Cancels = 0.01,
        Bad = 0.05,
    };
}

/// <summary>
/// Makes a set of trades over the demo participants (IM1, IM2, EB1, EB2), their accounts and places, and the
/// generated securities of <see cref="TradeUniverse"/> (static data: <see cref="TradeUniverse.WriteStaticData"/>): the
/// messages in send order and the expected outcome of each trade. Trade dates are the business date and, for a few
/// trades, the three business days before it. Deterministic for a seed. Allocates freely (a tool, not the measured engine) but is linear: a million trades in seconds.
/// </summary>
internal static class TradeGenerator
{
    // 2026-12-25 is a holiday of every currency the generated securities trade in (SGD, USD, EUR; a Friday).
    private const int Holiday = 20261225;

    private static readonly (string Manager, string[] Accounts)[] Managers = [("IM1", ["ACC-A", "ACC-B"]), ("IM2", ["ACC-C", "ACC-D"])];
    private static readonly string[] Brokers = ["EB1", "EB2"];
    // One place for every trade: a SET names no security, so SETs of one manager, broker, side and account are
    // interchangeable between trades only if their places agree.
    private const string Place = "CDP";

    /// <summary>A valid-check-digit ISIN absent from the demo static data.</summary>
    public const string UnknownIsin = "US5949181045";

    /// <summary>SG1T75931496 with its check digit changed.</summary>
    public const string BadCheckDigitIsin = "SG1T75931497";

    /// <summary>The participants a set uses.</summary>
    public static IReadOnlyList<string> Participants => ["IM1", "IM2", "EB1", "EB2"];

    /// <summary>The whole set in memory (sets that fit: tests, verify, throughput).</summary>
    public static (List<TradeMessages.Message> Messages, List<Expectation> Expected) Generate(GeneratorOptions options)
    {
        var messages = new List<TradeMessages.Message>(options.Trades * 8);
        var expected = new List<Expectation>(options.Trades);
        foreach (var window in Windows(options))
        {
            messages.AddRange(window.Messages);
            expected.AddRange(window.Expected);
        }

        return (messages, expected);
    }

    /// <summary>
    /// The set one shuffle window at a time, in send order (the same set as <see cref="Generate"/> for the same
    /// options): memory is bounded by a window, whatever the set's size. The lists are reused between windows.
    /// </summary>
    public static IEnumerable<(List<TradeMessages.Message> Messages, List<Expectation> Expected)> Windows(GeneratorOptions options)
    {
        var random = new Random(options.Seed);
        var perTrade = new List<TradeMessages.Message>[Math.Max(1, options.ShuffleWindow)];
        var messages = new List<TradeMessages.Message>(perTrade.Length * 10);
        var expected = new List<Expectation>(perTrade.Length);
        int settle = NextWeekday(options.BusinessDate, 3);
        int[] tradeDates = TradeUniverse.TradeDates(options.BusinessDate);
        for (int start = 0; start < options.Trades; start += perTrade.Length)
        {
            messages.Clear();
            expected.Clear();
            int window = Math.Min(perTrade.Length, options.Trades - start);
            for (int w = 0; w < window; w++)
            {
                int number = start + w + 1;
                var kind = PickKind(random, options);
                // Every trade gets its own matching key (manager, broker, side, ISIN, trade date): trades that
                // never complete (the bad kinds) then never meet later ones. The key space is the universe's
                // securities, not the dates: most trades carry the business date, a few one of the three business
                // days before it (TradeUniverse).
                var (c, security) = TradeUniverse.KeyOf(number);
                string isin = TradeUniverse.IsinText(security);
                string currency = TradeUniverse.CurrencyText(security);
                int minor = TradeUniverse.MinorUnits;
                var (manager, accounts) = Managers[c % Managers.Length];
                c /= Managers.Length;
                string broker = Brokers[c % Brokers.Length];
                char side = c / Brokers.Length == 0 ? '1' : '2';
                int tradeDate = tradeDates[TradeUniverse.DaysBack(options.Seed, number)];

                var spec = new TradeSpec
                {
                    Key = "T" + number.ToString(CultureInfo.InvariantCulture),
                    InvestmentManager = manager,
                    ExecutingBroker = broker,
                    Isin = kind switch { TradeKind.UnknownIsin => UnknownIsin, TradeKind.BadCheckDigit => BadCheckDigitIsin, _ => isin },
                    Currency = currency,
                    MinorUnits = minor,
                    Side = side,
                    TradeDate = tradeDate,
                    SettlDate = kind == TradeKind.HolidaySettlement ? Holiday : settle,
                    Price = Math.Round(1m + (decimal)random.Next(1, 100_000) / 1000m, 3),
                    Accounts =
                    [
                        new AccountSpec(accounts[0], 100 * random.Next(1, 100), Place),
                        new AccountSpec(accounts[1], 100 * random.Next(1, 100), Place),
                    ],
                    NetError = kind == TradeKind.NetBeyondTolerance ? 1000m : 0m,
                };
                perTrade[w] = Build(spec, kind, random, out var expectation);
                expected.Add(expectation with { Trade = number });
            }

            Interleave(perTrade.AsSpan(0, window), random, messages);
            yield return (messages, expected);
        }
    }

    // The trade's messages in its own order; amendments and cancels come first (before the trade can clear).
    private static List<TradeMessages.Message> Build(TradeSpec t, TradeKind kind, Random random, out Expectation expectation)
    {
        var standard = TradeMessages.Standard(t);
        // NOE, ALC1, NPR1, SET1, ALC2, NPR2, SET2: shuffle within the trade.
        Shuffle(standard, random);
        var list = new List<TradeMessages.Message>(10);
        int cls = 2 * t.Accounts.Count, exceptions = 0, acks = 1 + (2 * t.Accounts.Count);
        switch (kind)
        {
            case TradeKind.Duplicate:
            {
                int i = random.Next(standard.Count);
                standard.Insert(i + 1, standard[i]);
                acks += standard[i].MsgType == "T" ? 0 : 1;
                break;
            }

            case TradeKind.Amended:
            {
                // ALC1 as first sent, then its replacement (same content, new ID), then the rest.
                standard.RemoveAll(m => m.Id == t.Key + "-ALC1");
                list.Add(TradeMessages.Alc(t, 0));
                list.Add(TradeMessages.Alc(t, 0, trans: "1", id: t.Key + "-ALC1R", refId: t.Key + "-ALC1"));
                acks += 1;
                break;
            }

            case TradeKind.Cancelled:
            {
                standard.RemoveAll(m => m.Id == t.Key + "-ALC1");
                list.Add(TradeMessages.Alc(t, 0));
                list.Add(TradeMessages.Alc(t, 0, trans: "2", id: t.Key + "-ALC1C", refId: t.Key + "-ALC1"));
                list.Add(TradeMessages.Alc(t, 0, id: t.Key + "-ALC1N"));
                acks += 2;
                break;
            }

            case TradeKind.UnknownIsin:
            case TradeKind.BadCheckDigit:
            case TradeKind.HolidaySettlement:
                // Every message with the ISIN or the settlement date is refused; the SETs wait.
                cls = 0;
                exceptions = 1 + (2 * t.Accounts.Count);
                break;
            case TradeKind.NetBeyondTolerance:
                cls = 0;
                exceptions = 1;
                break;
            case TradeKind.MissingMessage:
                // An NPR, not a SET: SETs are keyed by manager, broker, side and account only, so a missing SET
                // would be made up by a spare one of another trade.
                standard.RemoveAll(m => m.Id == t.Key + "-NPR2");
                acks -= 1;
                cls = 0;
                break;
        }

        list.AddRange(standard);
        expectation = new Expectation(0, kind, cls, exceptions, acks);
        return list;
    }

    private static TradeKind PickKind(Random random, GeneratorOptions o)
    {
        double x = random.NextDouble();
        if ((x -= o.Duplicates) < 0)
        {
            return TradeKind.Duplicate;
        }

        if ((x -= o.Amendments) < 0)
        {
            return TradeKind.Amended;
        }

        if ((x -= o.Cancels) < 0)
        {
            return TradeKind.Cancelled;
        }

        if ((x -= o.Bad) < 0)
        {
            return (TradeKind)((int)TradeKind.UnknownIsin + random.Next(5));
        }

        return TradeKind.Good;
    }

    // A random interleaving of the trades' sequences: each trade keeps its own order.
    private static void Interleave(Span<List<TradeMessages.Message>> trades, Random random, List<TradeMessages.Message> output)
    {
        int remaining = 0;
        Span<int> next = stackalloc int[trades.Length];
        foreach (var t in trades)
        {
            remaining += t.Count;
        }

        while (remaining > 0)
        {
            int pick = random.Next(remaining);
            for (int i = 0; i < trades.Length; i++)
            {
                int left = trades[i].Count - next[i];
                if (pick < left)
                {
                    output.Add(trades[i][next[i]++]);
                    break;
                }

                pick -= left;
            }

            remaining--;
        }
    }

    private static void Shuffle<T>(List<T> list, Random random)
    {
        for (int i = list.Count - 1; i > 0; i--)
        {
            int j = random.Next(i + 1);
            (list[i], list[j]) = (list[j], list[i]);
        }
    }

    private static int NextWeekday(int date, int days)
    {
        var d = DateOnly.ParseExact(date.ToString(CultureInfo.InvariantCulture), "yyyyMMdd", CultureInfo.InvariantCulture);
        while (days > 0)
        {
            d = d.AddDays(1);
            int yyyymmdd = (d.Year * 10000) + (d.Month * 100) + d.Day;
            if (d.DayOfWeek is not DayOfWeek.Saturday and not DayOfWeek.Sunday && !TradeUniverse.Holidays.Contains(yyyymmdd))
            {
                days--;
            }
        }

        return int.Parse(d.ToString("yyyyMMdd", CultureInfo.InvariantCulture), CultureInfo.InvariantCulture);
    }

    /// <summary>
    /// Generates a set straight to <paramref name="directory"/>, one window at a time (bounded memory): messages.fix
    /// (one message a line: sender, a tab, the FIX body from 35= on, SOH-separated), expected.csv, the static data
    /// the service needs for the set in static-data/ (<see cref="StaticDataOf"/>) and, with <paramref name="fast"/>,
    /// messages.fast and its templates.xml (<see cref="FastTradeFile"/>).
    /// </summary>
    public static (int Trades, long Messages) Write(string directory, GeneratorOptions options, bool fast = false)
    {
        Directory.CreateDirectory(directory);
        TradeUniverse.WriteStaticData(StaticDataOf(directory));
        using var file = new StreamWriter(Path.Combine(directory, "messages.fix"), false, new UTF8Encoding(false), 1 << 20);
        using var csv = new StreamWriter(Path.Combine(directory, "expected.csv"), false, new UTF8Encoding(false), 1 << 20);
        using var fastFile = fast ? FastTradeFile.Create(directory) : null;
        csv.WriteLine("trade,kind,cls,exceptions,acks");
        int trades = 0;
        long messages = 0;
        foreach (var (windowMessages, windowExpected) in Windows(options))
        {
            foreach (var m in windowMessages)
            {
                file.Write(m.Sender);
                file.Write('\t');
                file.Write("35=");
                file.Write(m.MsgType);
                file.Write('\u0001');
                file.Write(m.Body);
                file.Write('\n');
                fastFile?.Write(m);
            }

            foreach (var e in windowExpected)
            {
                csv.Write(e.Trade);
                csv.Write(',');
                csv.Write(KindNames[(int)e.Kind]);
                csv.Write(',');
                csv.Write(e.Cls);
                csv.Write(',');
                csv.Write(e.Exceptions);
                csv.Write(',');
                csv.Write(e.Acks);
                csv.Write('\n');
            }

            trades += windowExpected.Count;
            messages += windowMessages.Count;
        }

        return (trades, messages);
    }

    private static readonly string[] KindNames = Enum.GetNames<TradeKind>();

    /// <summary>Where <see cref="Write"/> puts the static data of the set in <paramref name="directory"/>.</summary>
    public static string StaticDataOf(string directory) => Path.Combine(directory, "static-data");

    /// <summary>Reads a set written by <see cref="Write"/>.</summary>
    public static (List<TradeMessages.Message> Messages, List<Expectation> Expected) Read(string directory)
    {
        var messages = new List<TradeMessages.Message>();
        foreach (var line in File.ReadLines(Path.Combine(directory, "messages.fix")))
        {
            int tab = line.IndexOf('\t', StringComparison.Ordinal);
            int soh = line.IndexOf('\u0001', StringComparison.Ordinal);
            if (tab < 0 || soh < 0 || !line.AsSpan(tab + 1).StartsWith("35="))
            {
                throw new InvalidDataException($"messages.fix: a line is not <sender><TAB>35=...: {line[..Math.Min(40, line.Length)]}");
            }

            string type = line[(tab + 4)..soh];
            string body = line[(soh + 1)..];
            messages.Add(new TradeMessages.Message(type, line[..tab], IdOf(type, body), body));
        }

        var expected = new List<Expectation>();
        foreach (var line in File.ReadLines(Path.Combine(directory, "expected.csv")).Skip(1))
        {
            var c = line.Split(',');
            expected.Add(new Expectation(int.Parse(c[0], CultureInfo.InvariantCulture), Enum.Parse<TradeKind>(c[1]), int.Parse(c[2], CultureInfo.InvariantCulture),
                int.Parse(c[3], CultureInfo.InvariantCulture), int.Parse(c[4], CultureInfo.InvariantCulture)));
        }

        return (messages, expected);
    }

    private static string IdOf(string type, string body)
    {
        string tag = type switch { "AE" => "571=", "J" => "70=", "AK" => "664=", _ => "162=" };
        int at = body.StartsWith(tag, StringComparison.Ordinal) ? 0 : body.IndexOf("\u0001" + tag, StringComparison.Ordinal) + 1;
        int end = body.IndexOf('\u0001', at);
        return at <= 0 && !body.StartsWith(tag, StringComparison.Ordinal) ? string.Empty : body[(at + tag.Length)..end];
    }
}
