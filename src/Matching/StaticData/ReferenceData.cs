using System.Globalization;
using System.Text;

namespace RapidFix.Matching.StaticData;

/// <summary>Asset class of a security: accrued interest (criterion 12) is compared for fixed income only.</summary>
public enum AssetClass : byte
{
    /// <summary>Shares and the like: no accrued interest.</summary>
    Equity = 0,
    /// <summary>Bonds and the like: accrued interest is compared.</summary>
    FixedIncome = 1,
}

/// <summary>Roles a participant may play.</summary>
[Flags]
public enum ParticipantRoles : byte
{
    /// <summary>No role.</summary>
    None = 0,
    /// <summary>Sends allocations and settlement instructions.</summary>
    InvestmentManager = 1,
    /// <summary>Sends notices of execution and net proceeds.</summary>
    ExecutingBroker = 2,
}

/// <summary>
/// The static data every message is validated against, loaded once at startup from CSV files (formats in
/// docs/matching.md): currencies, countries, securities, participants, accounts, places of settlement, settlement
/// calendars and tolerance profiles. Lookups in the continuous phase are allocation-free; values are referred to by
/// index (a participant, a security, a currency is an int in the matcher's tables).
/// </summary>
public sealed class ReferenceData
{
    /// <summary>First day the calendars cover.</summary>
    public const int CalendarFirstYear = 2000;

    /// <summary>Last day the calendars cover (inclusive).</summary>
    public const int CalendarLastYear = 2099;

    /// <summary>The profile every participant without one uses, and the fallback of every other profile.</summary>
    public const string DefaultProfile = "DEFAULT";

    private static readonly int CalendarBase = new DateOnly(CalendarFirstYear, 1, 1).DayNumber;
    private static readonly int CalendarDays = new DateOnly(CalendarLastYear, 12, 31).DayNumber - CalendarBase + 1;

    private readonly Dictionary<int, int> _currencies = [];
    private readonly List<int> _currencyCodes = [];
    private readonly List<int> _minorUnits = [];
    private readonly List<ulong[]> _holidays = [];
    private readonly HashSet<int> _countries = [];
    private readonly Dictionary<Key16, int> _securities = [];
    private readonly List<Security> _securityList = [];
    private readonly Dictionary<Key16, int> _participants = [];
    private readonly List<Participant> _participantList = [];
    private readonly Dictionary<Key16, int> _accounts = [];
    private readonly List<(byte[] Id, int Manager)> _accountList = [];
    private readonly Dictionary<Key16, int> _places = [];
    private readonly List<byte[]> _placeList = [];
    private readonly List<string> _profiles = [DefaultProfile];
    private Tolerance[] _tolerances = [];
    private KeyTable _securityTable = null!;
    private KeyTable _participantTable = null!;
    private KeyTable _accountTable = null!;
    private KeyTable _placeTable = null!;

    private ReferenceData()
    {
    }

    /// <summary>Number of currencies.</summary>
    public int CurrencyCount => _currencyCodes.Count;

    /// <summary>Number of securities.</summary>
    public int SecurityCount => _securityList.Count;

    /// <summary>Number of participants.</summary>
    public int ParticipantCount => _participantList.Count;

    /// <summary>Number of accounts.</summary>
    public int AccountCount => _accountList.Count;

    /// <summary>Number of places of settlement.</summary>
    public int PlaceCount => _placeList.Count;

    /// <summary>Tolerance profile names (index 0 is <see cref="DefaultProfile"/>).</summary>
    public IReadOnlyList<string> Profiles => _profiles;

    /// <summary>Loads every file from <paramref name="directory"/> (startup; throws with file and line on bad data).</summary>
    public static ReferenceData Load(string directory)
    {
        var data = new ReferenceData();
        foreach (var row in Rows(directory, "currencies.csv", 2))
        {
            int code = Codes.PackCurrency(Encoding.ASCII.GetBytes(row[0]));
            if (code == 0 || !int.TryParse(row[1], NumberStyles.None, CultureInfo.InvariantCulture, out int minor) || minor > 6)
            {
                throw row.Error("a currency is three upper-case letters and its minor units 0..6");
            }

            if (!data._currencies.TryAdd(code, data._currencyCodes.Count))
            {
                throw row.Error($"currency {row[0]} twice");
            }

            data._currencyCodes.Add(code);
            data._minorUnits.Add(minor);
            data._holidays.Add(new ulong[(CalendarDays + 63) / 64]);
        }

        foreach (var row in Rows(directory, "countries.csv", 1))
        {
            if (row[0].Length != 2 || !data._countries.Add(PackCountry(row[0])))
            {
                throw row.Error("a country is a two-letter code, once");
            }
        }

        foreach (var row in Rows(directory, "securities.csv", 4))
        {
            var isin = Encoding.ASCII.GetBytes(row[0]);
            if (!Isin.IsValid(isin))
            {
                throw row.Error($"{row[0]} is not a valid ISIN (form or check digit)");
            }

            if (!data._countries.Contains(PackCountry(row[0][..2])))
            {
                throw row.Error($"{row[0]}: country {row[0][..2]} is not in countries.csv");
            }

            var cls = row[2] switch
            {
                "EQ" => AssetClass.Equity,
                "FI" => AssetClass.FixedIncome,
                _ => throw row.Error("asset class is EQ or FI"),
            };
            if (!int.TryParse(row[3], NumberStyles.None, CultureInfo.InvariantCulture, out int decimals) || decimals > Scaled.Decimals)
            {
                throw row.Error("price decimals are 0..6");
            }

            Key16.TryCreate(isin, out var key);
            if (!data._securities.TryAdd(key, data._securityList.Count))
            {
                throw row.Error($"security {row[0]} twice");
            }

            data._securityList.Add(new Security(data.RequireCurrency(row, row[1]), cls, decimals));
        }

        var profileRows = new List<(string Profile, Row Row)>();
        foreach (var row in Rows(directory, "participants.csv", 3))
        {
            var roles = ParticipantRoles.None;
            foreach (var role in row[1].Split(';', StringSplitOptions.RemoveEmptyEntries | StringSplitOptions.TrimEntries))
            {
                roles |= role switch
                {
                    "IM" => ParticipantRoles.InvestmentManager,
                    "EB" => ParticipantRoles.ExecutingBroker,
                    _ => throw row.Error("roles are IM and/or EB, separated by ';'"),
                };
            }

            string profile = row[2].Length == 0 ? DefaultProfile : row[2];
            int p = data._profiles.IndexOf(profile);
            if (p < 0)
            {
                p = data._profiles.Count;
                data._profiles.Add(profile);
            }

            var id = data.AddKey(data._participants, row, row[0], data._participantList.Count);
            data._participantList.Add(new Participant(id, roles, p));
        }

        foreach (var row in Rows(directory, "accounts.csv", 2))
        {
            if (!Key16.TryCreate(Encoding.ASCII.GetBytes(row[1]), out var im) || !data._participants.TryGetValue(im, out int manager) ||
                (data._participantList[manager].Roles & ParticipantRoles.InvestmentManager) == 0)
            {
                throw row.Error($"{row[1]} is not an investment manager in participants.csv");
            }

            var id = data.AddKey(data._accounts, row, row[0], data._accountList.Count);
            data._accountList.Add((id, manager));
        }

        foreach (var row in Rows(directory, "places.csv", 2))
        {
            if (!data._countries.Contains(PackCountry(row[1])))
            {
                throw row.Error($"country {row[1]} is not in countries.csv");
            }

            data._placeList.Add(data.AddKey(data._places, row, row[0], data._placeList.Count));
        }

        foreach (var row in Rows(directory, "calendars.csv", 2))
        {
            int c = data.RequireCurrency(row, row[0]);
            if (!int.TryParse(row[1], NumberStyles.None, CultureInfo.InvariantCulture, out int date) || !Codes.TryDayNumber(date, out int day) ||
                day < CalendarBase || day >= CalendarBase + CalendarDays)
            {
                throw row.Error($"a holiday is a date yyyymmdd in {CalendarFirstYear}..{CalendarLastYear}");
            }

            int bit = day - CalendarBase;
            data._holidays[c][bit >> 6] |= 1UL << (bit & 63);
        }

        foreach (var row in Rows(directory, "tolerances.csv", 6, optional: true))
        {
            profileRows.Add((row[0], row));
        }

        data.BuildTolerances(profileRows);
        data._securityTable = new KeyTable(data._securities, s => data._securityList[s].PriceDecimals);
        data._participantTable = new KeyTable(data._participants, p => ParticipantFacts.Of(data._participantList[p]));
        data._accountTable = new KeyTable(data._accounts, a => data._accountList[a].Manager);
        data._placeTable = new KeyTable(data._places);
        return data;
    }

    // ---- lookups (continuous phase: allocation-free) ----------------------------------------------------------

    /// <summary>Index of a currency (packed with <see cref="Codes.PackCurrency"/>), or -1.</summary>
    public int FindCurrency(int packed) => packed != 0 && _currencies.TryGetValue(packed, out int i) ? i : -1;

    /// <summary>The packed code of currency <paramref name="index"/>.</summary>
    public int CurrencyCode(int index) => _currencyCodes[index];

    /// <summary>ISO 4217 minor units of currency <paramref name="index"/>.</summary>
    public int MinorUnits(int index) => _minorUnits[index];

    /// <summary>Index of a security by ISIN, or -1.</summary>
    public int FindSecurity(ReadOnlySpan<byte> isin) => _securityTable.Find(isin);

    /// <summary>Index of a security by ISIN and its price decimals (from the lookup's own entry), or -1.</summary>
    internal int FindSecurity(ReadOnlySpan<byte> isin, out int priceDecimals) => _securityTable.Find(isin, out priceDecimals);

    /// <summary>The security's trading currency, asset class and price decimals.</summary>
    public Security GetSecurity(int index) => _securityList[index];

    /// <summary>Index of a participant by ID, or -1.</summary>
    public int FindParticipant(ReadOnlySpan<byte> id) => _participantTable.Find(id);

    /// <summary>Index of a participant by ID and its <see cref="ParticipantFacts"/> (from the lookup's own entry), or -1.</summary>
    internal int FindParticipant(ReadOnlySpan<byte> id, out int facts) => _participantTable.Find(id, out facts);

    /// <summary>Participant <paramref name="index"/>.</summary>
    public Participant GetParticipant(int index) => _participantList[index];

    /// <summary>Index of an account, or -1.</summary>
    public int FindAccount(ReadOnlySpan<byte> id) => _accountTable.Find(id);

    /// <summary>Index of an account and its manager (participant index, from the lookup's own entry), or -1.</summary>
    internal int FindAccount(ReadOnlySpan<byte> id, out int manager) => _accountTable.Find(id, out manager);

    /// <summary>The investment manager (participant index) an account belongs to.</summary>
    public int AccountManager(int index) => _accountList[index].Manager;

    /// <summary>Account <paramref name="index"/>'s ID.</summary>
    public ReadOnlySpan<byte> AccountId(int index) => _accountList[index].Id;

    /// <summary>Index of a place of settlement, or -1.</summary>
    public int FindPlace(ReadOnlySpan<byte> id) => _placeTable.Find(id);

    /// <summary>Place <paramref name="index"/>'s code.</summary>
    public ReadOnlySpan<byte> PlaceId(int index) => _placeList[index];

    /// <summary>True when <paramref name="yyyymmdd"/> is a business day of currency <paramref name="currency"/>'s calendar (Saturday, Sunday and its holidays are not).</summary>
    public bool IsBusinessDay(int currency, int yyyymmdd)
    {
        if (!Codes.TryDayNumber(yyyymmdd, out int day) || day < CalendarBase || day >= CalendarBase + CalendarDays)
        {
            return false;
        }

        // DayNumber 0 (0001-01-01) was a Monday.
        int weekday = day % 7;
        if (weekday >= 5)
        {
            return false;
        }

        int bit = day - CalendarBase;
        return (_holidays[currency][bit >> 6] & (1UL << (bit & 63))) == 0;
    }

    /// <summary>
    /// The first business day of currency <paramref name="currency"/>'s calendar after <paramref name="yyyymmdd"/>
    /// (what a service passes to <see cref="Matcher.AdvanceBusinessDate{TSink}"/>); -1 past the calendar's end.
    /// </summary>
    public int NextBusinessDay(int currency, int yyyymmdd)
    {
        if (!Codes.TryDayNumber(yyyymmdd, out int day))
        {
            return -1;
        }

        for (day++; day < CalendarBase + CalendarDays; day++)
        {
            var date = DateOnly.FromDayNumber(day);
            int candidate = date.Year * 10000 + date.Month * 100 + date.Day;
            if (IsBusinessDay(currency, candidate))
            {
                return candidate;
            }
        }

        return -1;
    }

    /// <summary>The tolerance of <paramref name="criterion"/> for a profile and a currency (resolved at load).</summary>
    public Tolerance GetTolerance(int profile, int currency, Criterion criterion) =>
        _tolerances[((profile * CurrencyCount) + currency) * ToleranceSlots + (int)criterion];

    /// <summary>Where the tolerances of a profile and a currency start (for <see cref="ToleranceAt"/>): found once per message.</summary>
    internal int ToleranceRow(int profile, int currency) => ((profile * CurrencyCount) + currency) * ToleranceSlots;

    /// <summary>The tolerance of <paramref name="criterion"/> in row <paramref name="row"/> (<see cref="ToleranceRow"/>).</summary>
    internal Tolerance ToleranceAt(int row, Criterion criterion) => _tolerances[row + (int)criterion];

    // ---- loading -----------------------------------------------------------------------------------------------

    private const int ToleranceSlots = 20;

    private static ReadOnlySpan<Criterion> Configurable =>
    [
        Criterion.Price, Criterion.GrossAmount, Criterion.Commission, Criterion.Fees, Criterion.Tax,
        Criterion.AccruedInterest, Criterion.NetAmount, Criterion.SettlementAmount,
    ];

    private static int PackCountry(string code) => code.Length == 2 ? (code[0] << 8) | code[1] : 0;

    private byte[] AddKey(Dictionary<Key16, int> map, Row row, string value, int index)
    {
        var bytes = Encoding.ASCII.GetBytes(value);
        if (!Key16.TryCreate(bytes, out var key) || !map.TryAdd(key, index))
        {
            throw row.Error($"'{value}' is empty, longer than 16 bytes or listed twice");
        }

        return bytes;
    }

    private int RequireCurrency(Row row, string code)
    {
        int c = FindCurrency(Codes.PackCurrency(Encoding.ASCII.GetBytes(code)));
        return c >= 0 ? c : throw row.Error($"currency {code} is not in currencies.csv");
    }

    /// <summary>The built-in default of a criterion for a currency (docs/matching.md, "Tolerance profiles").</summary>
    private Tolerance BuiltIn(Criterion criterion, int currency)
    {
        long minorUnit = Scaled.Powers[Scaled.Decimals - _minorUnits[currency]];
        return criterion switch
        {
            Criterion.Price => new Tolerance(ToleranceRule.Mnmx, 0, 0),
            Criterion.GrossAmount or Criterion.Commission or Criterion.Fees or Criterion.Tax => new Tolerance(ToleranceRule.Mnmx, minorUnit, 0),
            Criterion.AccruedInterest => new Tolerance(ToleranceRule.Ptol, Scaled.One / 100, 0),
            Criterion.NetAmount or Criterion.SettlementAmount => new Tolerance(ToleranceRule.Ptmx, Scaled.One / 100, 5 * Scaled.One),
            _ => Tolerance.Exact,
        };
    }

    private void BuildTolerances(List<(string Profile, Row Row)> rows)
    {
        // Named profile + currency, named profile + '*', DEFAULT + currency, DEFAULT + '*', built-in.
        var explicitRules = new Dictionary<(int Profile, int Currency, Criterion Criterion), Tolerance>();
        foreach (var (profileName, row) in rows)
        {
            int profile = _profiles.IndexOf(profileName);
            if (profile < 0)
            {
                throw row.Error($"profile {profileName} is used by no participant (and is not {DefaultProfile})");
            }

            int currency = row[1] == "*" ? -1 : RequireCurrency(row, row[1]);
            var criterion = row[2] switch
            {
                "PRICE" => Criterion.Price,
                "GROSS" => Criterion.GrossAmount,
                "COMMISSION" => Criterion.Commission,
                "FEES" => Criterion.Fees,
                "TAX" => Criterion.Tax,
                "ACCRUED" => Criterion.AccruedInterest,
                "NET" => Criterion.NetAmount,
                "SETTLAMOUNT" => Criterion.SettlementAmount,
                _ => throw row.Error("criterion is PRICE, GROSS, COMMISSION, FEES, TAX, ACCRUED, NET or SETTLAMOUNT (the others are exact)"),
            };
            var rule = row[3] switch
            {
                "EXCT" => ToleranceRule.Exct,
                "MNMX" => ToleranceRule.Mnmx,
                "PTOL" => ToleranceRule.Ptol,
                "PTMX" => ToleranceRule.Ptmx,
                _ => throw row.Error("rule is EXCT, MNMX, PTOL or PTMX"),
            };
            long value = rule == ToleranceRule.Exct ? 0 : ParseAmount(row, row[4]);
            long cap = rule == ToleranceRule.Ptmx ? ParseAmount(row, row[5]) : 0;
            if (!explicitRules.TryAdd((profile, currency, criterion), new Tolerance(rule, value, cap)))
            {
                throw row.Error("the same profile, currency and criterion twice");
            }
        }

        _tolerances = new Tolerance[_profiles.Count * CurrencyCount * ToleranceSlots];
        for (int p = 0; p < _profiles.Count; p++)
        {
            for (int c = 0; c < CurrencyCount; c++)
            {
                foreach (var criterion in Configurable)
                {
                    Tolerance t = explicitRules.TryGetValue((p, c, criterion), out var a) ? a
                        : explicitRules.TryGetValue((p, -1, criterion), out var b) ? b
                        : explicitRules.TryGetValue((0, c, criterion), out var d) ? d
                        : explicitRules.TryGetValue((0, -1, criterion), out var e) ? e
                        : BuiltIn(criterion, c);
                    _tolerances[((p * CurrencyCount) + c) * ToleranceSlots + (int)criterion] = t;
                }
            }
        }
    }

    private static long ParseAmount(Row row, string text)
    {
        if (!decimal.TryParse(text, NumberStyles.AllowDecimalPoint, CultureInfo.InvariantCulture, out var d) ||
            !Scaled.TryFrom(RapidFix.Engine.Fields.FixDecimal.FromDecimal(d), out long v))
        {
            throw row.Error($"'{text}' is not a non-negative amount with at most {Scaled.Decimals} decimals");
        }

        return v;
    }

    private static IEnumerable<Row> Rows(string directory, string file, int columns, bool optional = false)
    {
        string path = Path.Combine(directory, file);
        if (!File.Exists(path))
        {
            if (optional)
            {
                yield break;
            }

            throw new FileNotFoundException($"Static data file {file} is missing in {directory}.", path);
        }

        int lineNumber = 0;
        bool header = true;
        foreach (var line in File.ReadLines(path))
        {
            lineNumber++;
            string trimmed = line.Trim();
            if (trimmed.Length == 0 || trimmed[0] == '#')
            {
                continue;
            }

            if (header)
            {
                header = false; // the first non-comment line names the columns
                continue;
            }

            var cells = trimmed.Split(',');
            if (cells.Length < columns)
            {
                throw new InvalidDataException($"{path}:{lineNumber}: {columns} columns expected, {cells.Length} found.");
            }

            for (int i = 0; i < cells.Length; i++)
            {
                cells[i] = cells[i].Trim();
            }

            yield return new Row(path, lineNumber, cells);
        }
    }

    private readonly record struct Row(string Path, int Line, string[] Cells)
    {
        public string this[int i] => i < Cells.Length ? Cells[i] : string.Empty;

        public InvalidDataException Error(string message) => new($"{Path}:{Line}: {message}.");
    }
}

/// <summary>A security of static data.</summary>
public readonly record struct Security(int Currency, AssetClass AssetClass, int PriceDecimals);

/// <summary>A participant's roles and tolerance profile packed in one integer: what validation reads of it, carried in its lookup entry.</summary>
internal static class ParticipantFacts
{
    public static int Of(Participant p) => (byte)p.Roles | (p.Profile << 8);

    public static ParticipantRoles Roles(int facts) => (ParticipantRoles)(byte)facts;

    public static int Profile(int facts) => facts >> 8;
}

/// <summary>A participant of static data: its ID (its CompID on the FIX sessions), roles and tolerance profile.</summary>
public readonly record struct Participant(byte[] Id, ParticipantRoles Roles, int Profile);
