using System.Globalization;
using System.Security.Cryptography;
using System.Text;
using RapidFix.Matching.StaticData;

namespace RapidFix.TradeDriver;

/// <summary>
/// What a generated set trades and when: a universe of <see cref="SecurityCount"/> generated securities (valid ISINs
/// of Singapore, the United States and international bonds, in SGD, USD and EUR) over the demo participants, and trade
/// dates within a few business days of the business date. Trade <c>n</c>'s matching key (manager, broker, side, ISIN,
/// trade date) is unique among <see cref="UniqueTrades"/> consecutive trades whatever its date: the key parts other
/// than the date take every one of their <see cref="UniqueTrades"/> combinations once before any repeats, so trades
/// that never complete (the bad kinds) never meet later ones in a set of up to that many trades, while the trades of a
/// day carry the day's date, as in a real back office (a few late ones the 1-3 business days before). A longer
/// stream recycles keys: trade <c>n + UniqueTrades</c> takes trade <c>n</c>'s key, 147 s later at 100,000 messages/s
/// (more than the 120 s after which the measuring driver stops waiting for an answer), and the measuring driver
/// checks that trade <c>n</c> has cleared by then (<c>Measure.ClearedTrades</c>): a key never meets a trade of its own
/// still open without the run saying so, for a stream of any length (trade numbers are 64-bit). The static data
/// the service needs for these securities is the demo's plus the generated ones (<see cref="WriteStaticData"/>).
/// </summary>
internal static class TradeUniverse
{
    /// <summary>
    /// Generated securities (a power of two): 262,144, so that <see cref="UniqueTrades"/> covers the trades of more
    /// than 120 s at 100,000 messages/s (2,097,152 trades; it was 131,072 securities, 1,048,576 trades, 73 s).
    /// </summary>
    public const int SecurityCount = 1 << 18;

    /// <summary>Manager, broker and side combinations of the demo participants (2 x 2 x 2).</summary>
    public const int Combinations = 8;

    /// <summary>
    /// Consecutive trades whose matching keys are all different (2,097,152: 147 s of trades at 100,000 messages/s,
    /// 12.7 minutes at 19,200/s; above the seed's million).
    /// </summary>
    public const int UniqueTrades = SecurityCount * Combinations;

    /// <summary>Trades in 1,000 on the business date, then on each of the 1, 2 and 3 business days before it.</summary>
    public static ReadOnlySpan<int> DateShares => DateShareArray;

    // An array made once, not a span over the assembly's data: `[...]` as a ReadOnlySpan<int> is
    // RuntimeHelpers.CreateSpan over a field token, and unoptimized (tier-0) code on .NET 8 allocates for the token
    // at every call (64 bytes; DaysBack runs once a trade: 1,024 bytes every shuffle window of the streamed set in a
    // tiered process, docs/measurement.md). The driver runs with tiered compilation off; the tests' host does not.
    private static readonly int[] DateShareArray = [920, 50, 20, 10];

    /// <summary>Holidays of the calendars of the currencies the universe trades (SGD, USD, EUR in the demo static data).</summary>
    public static ReadOnlySpan<int> Holidays => [20261126, 20261225, 20270101];

    private const int IsinLength = 12;

    // Every security's ISIN (12 bytes each, flat: TradeStream formats from spans of it) and its currency.
    private static readonly byte[] IsinBytes = BuildIsins(out CurrencyIndexes);
    private static readonly byte[] CurrencyIndexes;
    private static readonly string[] CurrencyCodes = ["SGD", "USD", "EUR"];
    private static readonly byte[][] CurrencyBytes = ["SGD"u8.ToArray(), "USD"u8.ToArray(), "EUR"u8.ToArray()];
    private static readonly string[] IsinStrings = BuildStrings();
    private static readonly Lazy<string> DefaultDirectory = new(WriteSharedStaticData, LazyThreadSafetyMode.ExecutionAndPublication);

    /// <summary>Security <paramref name="security"/>'s ISIN.</summary>
    public static ReadOnlySpan<byte> Isin(int security) => IsinBytes.AsSpan(security * IsinLength, IsinLength);

    /// <summary>Security <paramref name="security"/>'s ISIN as text.</summary>
    public static string IsinText(int security) => IsinStrings[security];

    /// <summary>Its trading currency.</summary>
    public static ReadOnlySpan<byte> Currency(int security) => CurrencyBytes[CurrencyIndexes[security]];

    /// <summary>Its trading currency as text.</summary>
    public static string CurrencyText(int security) => CurrencyCodes[CurrencyIndexes[security]];

    /// <summary>Minor units of every currency the universe trades (SGD, USD, EUR).</summary>
    public const int MinorUnits = 2;

    /// <summary>
    /// Trade <paramref name="number"/>'s key parts: the manager, broker and side combination (manager fastest, then
    /// broker, then side: 0..7) and the security. Unique over <see cref="UniqueTrades"/> consecutive trades; trade
    /// <c>n + UniqueTrades</c> has trade <c>n</c>'s (a stream longer than that recycles keys).
    /// </summary>
    public static (int Combination, int Security) KeyOf(long number)
    {
        int k = (int)((ulong)(number - 1) % UniqueTrades);
        return (k % Combinations, k / Combinations);
    }

    /// <summary>
    /// How many business days before the business date trade <paramref name="number"/> of a set of seed
    /// <paramref name="seed"/> was done (0..3, by <see cref="DateShares"/>): a hash of the two, no random state.
    /// </summary>
    public static int DaysBack(int seed, long number)
    {
        // The seed in the high half, the number in the low (XOR: the same as the OR of int numbers, and still a
        // hash of both past 2^32).
        ulong z = ((ulong)(uint)seed << 32) ^ (ulong)number;
        z += 0x9E3779B97F4A7C15UL;
        z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9UL;
        z = (z ^ (z >> 27)) * 0x94D049BB133111EBUL;
        z ^= z >> 31;
        int draw = (int)(z % 1000);
        var shares = DateShares;
        for (int back = 0; back < shares.Length - 1; back++)
        {
            if ((draw -= shares[back]) < 0)
            {
                return back;
            }
        }

        return shares.Length - 1;
    }

    /// <summary>
    /// The trade dates of a business date: element d is the business day d business days before it (element 0 the
    /// business date itself), skipping weekends and <see cref="Holidays"/>.
    /// </summary>
    public static int[] TradeDates(int businessDate)
    {
        var dates = new int[DateShares.Length];
        var d = DateOnly.ParseExact(businessDate.ToString(CultureInfo.InvariantCulture), "yyyyMMdd", CultureInfo.InvariantCulture);
        dates[0] = businessDate;
        for (int i = 1; i < dates.Length; i++)
        {
            do
            {
                d = d.AddDays(-1);
            }
            while (!IsBusinessDay(d));

            dates[i] = (d.Year * 10000) + (d.Month * 100) + d.Day;
        }

        return dates;
    }

    /// <summary>Not a Saturday, a Sunday or one of <see cref="Holidays"/>.</summary>
    public static bool IsBusinessDay(DateOnly d) =>
        d.DayOfWeek is not DayOfWeek.Saturday and not DayOfWeek.Sunday && !Holidays.Contains((d.Year * 10000) + (d.Month * 100) + d.Day);

    /// <summary>The demo static data the tools are built with (src/Matching/StaticData/Demo).</summary>
    public static string DemoStaticData => Path.Combine(AppContext.BaseDirectory, "StaticData", "Demo");

    /// <summary>
    /// A directory with the generated sets' static data, written once per content into the temporary folder and
    /// shared (by name, the content's hash) by every process: what the tools load when no --static-data is given.
    /// </summary>
    public static string StaticDataDirectory => DefaultDirectory.Value;

    /// <summary>
    /// Writes the static data of the generated sets to <paramref name="directory"/>: the demo's files, with
    /// securities.csv the demo's securities followed by the <see cref="SecurityCount"/> generated ones.
    /// </summary>
    public static void WriteStaticData(string directory)
    {
        Directory.CreateDirectory(directory);
        foreach (var (name, text) in StaticDataFiles())
        {
            File.WriteAllText(Path.Combine(directory, name), text, new UTF8Encoding(false));
        }
    }

    private static List<(string Name, string Text)> StaticDataFiles()
    {
        var files = new List<(string, string)>();
        foreach (var path in Directory.GetFiles(DemoStaticData, "*.csv").Order(StringComparer.Ordinal))
        {
            string name = Path.GetFileName(path);
            string text = File.ReadAllText(path);
            if (name == "securities.csv")
            {
                var all = new StringBuilder(text, text.Length + (SecurityCount * 28));
                if (all.Length > 0 && all[^1] != '\n')
                {
                    all.Append('\n');
                }

                all.Append("# Generated by tools/TradeDriver (TradeUniverse): the securities of the generated trade sets\n");
                for (int s = 0; s < SecurityCount; s++)
                {
                    all.Append(IsinStrings[s]).Append(',').Append(CurrencyText(s)).Append(',');
                    all.Append(CurrencyIndexes[s] switch { 0 => "EQ,3", 1 => "EQ,4", _ => "FI,6" }).Append('\n');
                }

                text = all.ToString();
            }

            files.Add((name, text));
        }

        return files;
    }

    private static string WriteSharedStaticData()
    {
        var files = StaticDataFiles();
        var hash = new StringBuilder();
        using (var sha = IncrementalHash.CreateHash(HashAlgorithmName.SHA256))
        {
            foreach (var (name, text) in files)
            {
                sha.AppendData(Encoding.UTF8.GetBytes(name + "\n" + text + "\n"));
            }

            hash.Append(Convert.ToHexString(sha.GetHashAndReset()), 0, 16);
        }

        string directory = Path.Combine(Path.GetTempPath(), "rapidfix-trade-static-" + hash.ToString().ToLowerInvariant());
        if (File.Exists(Path.Combine(directory, "complete")))
        {
            return directory;
        }

        // Written beside it, then renamed: another process sees the whole directory or none.
        string staging = directory + "." + Environment.ProcessId.ToString(CultureInfo.InvariantCulture) + "." + Guid.NewGuid().ToString("N");
        Directory.CreateDirectory(staging);
        foreach (var (name, text) in files)
        {
            File.WriteAllText(Path.Combine(staging, name), text, new UTF8Encoding(false));
        }

        File.WriteAllText(Path.Combine(staging, "complete"), string.Empty);
        try
        {
            Directory.Move(staging, directory);
        }
        catch (IOException) when (File.Exists(Path.Combine(directory, "complete")))
        {
            Directory.Delete(staging, recursive: true); // another process was first
        }

        return directory;
    }

    // Security s: country and currency by s % 8 (SG/SGD four in eight, US/USD three, XS/EUR fixed income one), a
    // national number of a letter and eight digits (s), and the check digit that makes the ISIN valid.
    private static byte[] BuildIsins(out byte[] currencies)
    {
        var isins = new byte[SecurityCount * IsinLength];
        currencies = new byte[SecurityCount];
        for (int s = 0; s < SecurityCount; s++)
        {
            int kind = s % 8;
            byte currency = kind < 4 ? (byte)0 : kind < 7 ? (byte)1 : (byte)2;
            currencies[s] = currency;
            var isin = isins.AsSpan(s * IsinLength, IsinLength);
            var country = currency switch { 0 => "SG"u8, 1 => "US"u8, _ => "XS"u8 };
            country.CopyTo(isin);
            isin[2] = (byte)'G';
            int n = s;
            for (int i = 10; i >= 3; i--)
            {
                isin[i] = (byte)('0' + (n % 10));
                n /= 10;
            }

            isin[11] = RapidFix.Matching.StaticData.Isin.CheckDigit(isin[..11]);
            if (!RapidFix.Matching.StaticData.Isin.IsValid(isin))
            {
                throw new InvalidOperationException("a generated ISIN failed its check digit");
            }
        }

        return isins;
    }

    private static string[] BuildStrings()
    {
        var strings = new string[SecurityCount];
        for (int s = 0; s < SecurityCount; s++)
        {
            strings[s] = Encoding.ASCII.GetString(Isin(s));
        }

        return strings;
    }
}
