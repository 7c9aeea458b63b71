using System.Diagnostics;
using System.Globalization;
using System.Net.Sockets;
using System.Text;
using RapidFix.Engine.Codec;
using RapidFix.Engine.Configuration;
using RapidFix.Engine.Hosting;
using RapidFix.Engine.Sessions;
using RapidFix.Matching;
using RapidFix.Matching.StaticData;

namespace RapidFix.MatchingService;

/// <summary>
/// The warm-up over the service's real connection paths (startup): a scratch matching service (the same settings,
/// participants and partitions; its session stores and input journal in a scratch directory that is deleted
/// afterwards; a small input ring so that bursts are refused for back-pressure) and one in-process initiator per
/// participant over loopback. Each <see cref="Round"/> sends trades of every kind (good ones, duplicates, amendments,
/// cancels, unknown ISINs, bad check digits, holiday settlement, net amounts beyond tolerance, a missing message),
/// a burst of them again (duplicates and back-pressure refusals), an unsupported message type, and rolls the
/// scratch service's business date (expiry notices): the socket receive, the session, the connection thread's
/// read, the sequencer and the input journal, the ring, the matcher thread, the dispatcher, the session's send and
/// store append and the socket write all run, on threads of the scratch service, so that the JIT has compiled them
/// (tier 1) before the live service's continuous phase. The live service, its journal and its stores never see any
/// of it: nothing of the scratch service survives <see cref="Dispose"/>.
/// </summary>
internal sealed class SessionWarmUp : IDisposable
{
    /// <summary>The scratch service's engine name in the trace (the live one is "matching-service").</summary>
    public const string HostName = "matching-service-warm-up";

    /// <summary>Trades per round (every kind, in turn).</summary>
    public const int TradesPerRound = 32;

    private const int Chunk = 16;

    private static readonly TradeKind[] Kinds =
    [
        TradeKind.Good, TradeKind.Duplicate, TradeKind.Good, TradeKind.Amended, TradeKind.Good, TradeKind.Cancelled, TradeKind.Good,
        TradeKind.UnknownIsin, TradeKind.Good, TradeKind.BadCheckDigit, TradeKind.Good, TradeKind.HolidaySettlement, TradeKind.Good,
        TradeKind.NetBeyondTolerance, TradeKind.Good, TradeKind.MissingMessage,
    ];

    private readonly string _directory;
    private readonly MatchingServer _server;
    private readonly FixEngine _clients;
    private readonly Counter _answers;
    private readonly Dictionary<string, FixSession> _sessions = [];
    private readonly ReferenceData _reference;
    private readonly List<(string Manager, string[] Accounts)> _managers;
    private readonly List<string> _brokers;
    private readonly List<string> _isins;
    private readonly string _place;

    private SessionWarmUp(string directory, MatchingServer server, FixEngine clients, Counter answers, ReferenceData reference,
        List<(string, string[])> managers, List<string> brokers, List<string> isins, string place)
    {
        _directory = directory;
        _server = server;
        _clients = clients;
        _answers = answers;
        _reference = reference;
        _managers = managers;
        _brokers = brokers;
        _isins = isins;
        _place = place;
        foreach (var session in clients.Sessions)
        {
            _sessions[session.Id.SenderCompId] = session;
        }
    }

    /// <summary>Tests only: called with the scratch service's port once it is known (a test tries to take it: it must be in use).</summary>
    internal static Action<int>? ScratchPortChosen { get; set; }

    /// <summary>Inputs the scratch service matched (for the warm-up's report and the tests).</summary>
    public long Matched => _server.Counters.InputsMatched;

    /// <summary>Answers the participants received from the scratch service.</summary>
    public long Answers => _answers.Value;

    /// <summary>Back-pressure refusals the scratch service sent.</summary>
    public long Refused => _server.Counters.BusinessRejectsForBusy;

    /// <summary>
    /// Starts the scratch service and logs its participants on; null (with the reason in <paramref name="why"/>) when
    /// static data has no manager with an account and no broker among the participants, or the scratch service could
    /// not start or log them on (the warm-up then covers the matcher only).
    /// </summary>
    public static SessionWarmUp? Start(ServiceOptions options, ReferenceData reference, byte[][] participants, string serviceCompId, string beginString,
        int businessDate, string dataDirectory, out string why)
    {
        var managers = new List<(string, string[])>();
        var brokers = new List<string>();
        foreach (var id in participants)
        {
            int p = reference.FindParticipant(id);
            if (p < 0)
            {
                continue;
            }

            var roles = reference.GetParticipant(p).Roles;
            if ((roles & ParticipantRoles.InvestmentManager) != 0)
            {
                var accounts = new List<string>();
                for (int a = 0; a < reference.AccountCount && accounts.Count < 2; a++)
                {
                    if (reference.AccountManager(a) == p)
                    {
                        accounts.Add(Encoding.ASCII.GetString(reference.AccountId(a)));
                    }
                }

                if (accounts.Count > 0)
                {
                    managers.Add((Encoding.ASCII.GetString(id), accounts.Count == 1 ? [accounts[0], accounts[0]] : [.. accounts]));
                }
            }

            if ((roles & ParticipantRoles.ExecutingBroker) != 0)
            {
                brokers.Add(Encoding.ASCII.GetString(id));
            }
        }

        var isins = MatchingCore.KnownIsins(reference, options.StaticDataPath, 8);
        if (managers.Count == 0 || brokers.Count == 0 || isins.Count == 0 || reference.PlaceCount == 0)
        {
            why = "static data has no manager with an account, broker, security or place among the participants";
            return null;
        }

        // Beside the live data (the same file system), never inside what a restart reads; a stale one is removed.
        string directory = Path.Combine(dataDirectory, "warm-up.scratch");
        DeleteDirectory(directory);
        Directory.CreateDirectory(directory);
        var scratchOptions = options with
        {
            HostName = HostName,
            Port = 0, // the file's, overridden below: port 0, bound by the scratch service's acceptor and read back
            DataDirectory = directory,
            LogPath = Path.Combine(directory, "engine.log"),
            WarmUp = false,
            WaitForLogons = TimeSpan.Zero,
            BusinessDate = businessDate,
            RollTime = null,
            ExpiryBusinessDays = 1,          // each round's roll expires what the round left open: expiry notices
            InputRingBytes = 64 << 10,       // a burst overflows it (a paced chunk does not): back-pressure refusals
            MaxInputs = 1_000_000,
            InputJournalBytes = 4 << 20,
            PendingBytesPerParticipant = 1 << 20,
            PendingMessagesPerParticipant = 10_000,
            SettingOverrides =
            [
                (SettingKeys.SocketAcceptPort, "0"),
                (SettingKeys.StoreMaxMessages, "200000"),
                (SettingKeys.StoreMaxBytes, (128 << 20).ToString(CultureInfo.InvariantCulture)),
                (SettingKeys.StoreCommitMemory, "N"),
                (SettingKeys.OutboundQueueDepth, "4096"),
            ],
        };
        MatchingServer? server = null;
        FixEngine? clients = null;
        try
        {
            server = MatchingServer.Start(scratchOptions);
            // Its own listening socket's port: choosing a free port first and binding it later let another listener
            // (a parallel test, another process) take it in between, and the session warm-up was lost.
            int port = server.Host.Engine.Acceptors[0].LocalEndPoint.Port;
            ScratchPortChosen?.Invoke(port);
            var answers = new Counter();
            clients = FixEngine.Create(ClientSettings(participants, serviceCompId, beginString, port), _ => answers);
            clients.Start();
            long deadline = Stopwatch.GetTimestamp() + (30 * Stopwatch.Frequency);
            while (!AllLoggedOn(clients) || !AllLoggedOn(server.Host.Engine))
            {
                if (Stopwatch.GetTimestamp() > deadline)
                {
                    throw new TimeoutException("the warm-up's participants did not log on to the scratch service within 30 s");
                }

                Thread.Sleep(5);
            }

            why = "";
            return new SessionWarmUp(directory, server, clients, answers, reference, managers, brokers, isins,
                Encoding.ASCII.GetString(reference.PlaceId(0)));
        }
        catch (Exception ex) when (ex is ConfigurationException or IOException or SocketException or TimeoutException or UnauthorizedAccessException
                                       or RapidFix.Engine.Store.StoreException)
        {
            clients?.Dispose();
            server?.Dispose();
            DeleteDirectory(directory);
            why = ex.Message;
            return null;
        }
    }

    /// <summary>
    /// One round: <see cref="TradesPerRound"/> trades of every kind in paced chunks (each chunk's first answer
    /// awaited), the round's first messages again in a burst of four (duplicates; refusals once the scratch ring is
    /// full), a message type the service does not handle, and a business-date roll.
    /// </summary>
    public void Round(int round)
    {
        var set = Messages(round, _server.BusinessDate);
        for (int start = 0; start < set.Count; start += Chunk)
        {
            long before = _answers.Value;
            Send(set, start, Math.Min(set.Count, start + Chunk));
            WaitForAnswers(before + 1);
        }

        long beforeBurst = _answers.Value;
        int burst = Math.Min(set.Count, 4 * Chunk);
        for (int i = 0; i < 4; i++)
        {
            Send(set, 0, burst);
        }

        WaitForAnswers(beforeBurst + (2L * burst));
        _sessions[_managers[0].Manager].Send("B"u8, "148=warm-up\u000133=1\u000158=warm-up\u0001"u8);
        _server.RollBusinessDate();
        WaitForAnswers(_answers.Value + 1);
    }

    public void Dispose()
    {
        _clients.Dispose();
        _server.Dispose();
        DeleteDirectory(_directory);
    }

    // The round's messages, in send order: each trade's own messages in order, trades one after the other. Every ID
    // carries the round, and every trade its own trade date (a matching key of its own).
    private List<(string Sender, byte[] MsgType, byte[] Body)> Messages(int round, int businessDate)
    {
        var list = new List<(string, byte[], byte[])>(TradesPerRound * 10);
        var day = DateOnly.ParseExact(businessDate.ToString(CultureInfo.InvariantCulture), "yyyyMMdd", CultureInfo.InvariantCulture);
        Span<byte> code = stackalloc byte[3];
        var random = new Random(round);
        var perTrade = new List<TradeMessages.Message>[TradesPerRound];
        for (int t = 0; t < TradesPerRound; t++)
        {
            var kind = Kinds[t % Kinds.Length];
            var (manager, accounts) = _managers[t % _managers.Count];
            string broker = _brokers[(t / _managers.Count) % _brokers.Count];
            string isin = _isins[t % _isins.Count];
            var security = _reference.GetSecurity(_reference.FindSecurity(Encoding.ASCII.GetBytes(isin)));
            Codes.WriteCurrency(_reference.CurrencyCode(security.Currency), code);
            int settle = Next(security.Currency, businessDate, business: true);
            var spec = new TradeSpec
            {
                Key = "WU" + round.ToString(CultureInfo.InvariantCulture) + "-" + t.ToString(CultureInfo.InvariantCulture),
                InvestmentManager = manager,
                ExecutingBroker = broker,
                Isin = kind switch { TradeKind.UnknownIsin => UnknownIsin(), TradeKind.BadCheckDigit => BadCheckDigit(isin), _ => isin },
                Currency = Encoding.ASCII.GetString(code),
                MinorUnits = _reference.MinorUnits(security.Currency),
                Side = t % 2 == 0 ? '1' : '2',
                TradeDate = Yyyymmdd(day.AddDays(-(1 + t))),
                SettlDate = kind == TradeKind.HolidaySettlement ? Next(security.Currency, businessDate, business: false) : settle,
                Price = 10m + t + (round % 7),
                Accounts = [new AccountSpec(accounts[0], 600, _place), new AccountSpec(accounts[1], 400, _place)],
                NetError = kind == TradeKind.NetBeyondTolerance ? 1000m : 0m,
            };
            perTrade[t] = Build(spec, kind, random);
        }

        // The trades' messages interleaved at random, each trade's in its own order (as the trade driver sends).
        var next = new int[TradesPerRound];
        int remaining = perTrade.Sum(m => m.Count);
        while (remaining > 0)
        {
            int pick = random.Next(remaining);
            for (int t = 0; t < TradesPerRound; t++)
            {
                int left = perTrade[t].Count - next[t];
                if (pick < left)
                {
                    var m = perTrade[t][next[t]++];
                    list.Add((m.Sender, Encoding.ASCII.GetBytes(m.MsgType), Encoding.ASCII.GetBytes(m.Body)));
                    break;
                }

                pick -= left;
            }

            remaining--;
        }

        return list;
    }

    // A trade's messages for its kind, as the trade driver's generator makes them: the standard ones shuffled, an
    // amendment's or a cancel's first.
    private static List<TradeMessages.Message> Build(TradeSpec t, TradeKind kind, Random random)
    {
        var standard = TradeMessages.Standard(t);
        for (int i = standard.Count - 1; i > 0; i--)
        {
            int j = random.Next(i + 1);
            (standard[i], standard[j]) = (standard[j], standard[i]);
        }

        var list = new List<TradeMessages.Message>(10);
        switch (kind)
        {
            case TradeKind.Duplicate:
            {
                int i = random.Next(standard.Count);
                standard.Insert(i + 1, standard[i]);
                break;
            }

            case TradeKind.Amended:
                standard.RemoveAll(m => m.Id == t.Key + "-ALC1");
                list.Add(TradeMessages.Alc(t, 0));
                list.Add(TradeMessages.Alc(t, 0, trans: "1", id: t.Key + "-ALC1R", refId: t.Key + "-ALC1"));
                break;
            case TradeKind.Cancelled:
                standard.RemoveAll(m => m.Id == t.Key + "-ALC1");
                list.Add(TradeMessages.Alc(t, 0));
                list.Add(TradeMessages.Alc(t, 0, trans: "2", id: t.Key + "-ALC1C", refId: t.Key + "-ALC1"));
                list.Add(TradeMessages.Alc(t, 0, id: t.Key + "-ALC1N"));
                break;
            case TradeKind.MissingMessage:
                standard.RemoveAll(m => m.Id == t.Key + "-NPR2");
                break;
        }

        list.AddRange(standard);
        return list;
    }

    private void Send(List<(string Sender, byte[] MsgType, byte[] Body)> set, int start, int end)
    {
        for (int i = start; i < end; i++)
        {
            var (sender, type, body) = set[i];
            if (_sessions.TryGetValue(sender, out var session))
            {
                session.SendDeferred(type, body);
            }
        }

        foreach (var session in _sessions.Values)
        {
            session.StartFlushDeferred();
        }

        foreach (var session in _sessions.Values)
        {
            session.FlushDeferred();
        }
    }

    // Until the participants received this many answers, at most two seconds (a round never waits longer: what did
    // not come back is answered during the next one).
    private void WaitForAnswers(long count)
    {
        long deadline = Stopwatch.GetTimestamp() + (2 * Stopwatch.Frequency);
        while (_answers.Value < count && Stopwatch.GetTimestamp() < deadline)
        {
            Thread.Sleep(1);
        }
    }

    private string UnknownIsin()
    {
        foreach (var isin in (ReadOnlySpan<string>)["US5949181045", "US0231351067", "DE0007164600"])
        {
            if (_reference.FindSecurity(Encoding.ASCII.GetBytes(isin)) < 0)
            {
                return isin;
            }
        }

        return "XS0000000009";
    }

    private static string BadCheckDigit(string isin) =>
        string.Concat(isin.AsSpan(0, isin.Length - 1), ((char)('0' + ((isin[^1] - '0' + 1) % 10))).ToString());

    // The first day after yyyymmdd that is (or, business: false, is not) a business day of the currency.
    private int Next(int currency, int yyyymmdd, bool business)
    {
        var day = DateOnly.ParseExact(yyyymmdd.ToString(CultureInfo.InvariantCulture), "yyyyMMdd", CultureInfo.InvariantCulture);
        for (int i = 1; i < 30; i++)
        {
            int candidate = Yyyymmdd(day.AddDays(i));
            if (_reference.IsBusinessDay(currency, candidate) == business)
            {
                return candidate;
            }
        }

        return Yyyymmdd(day.AddDays(1));
    }

    private static int Yyyymmdd(DateOnly d) => (d.Year * 10000) + (d.Month * 100) + d.Day;

    private static bool AllLoggedOn(FixEngine engine)
    {
        foreach (var session in engine.Sessions)
        {
            if (!session.IsLoggedOn)
            {
                return false;
            }
        }

        return true;
    }

    private static SettingsFile ClientSettings(byte[][] participants, string serviceCompId, string beginString, int port)
    {
        var text = new StringBuilder();
        text.AppendLine("[DEFAULT]");
        text.AppendLine("ConnectionType=initiator");
        text.AppendLine("SocketConnectHost=127.0.0.1");
        text.AppendLine("SocketConnectPort=" + port.ToString(CultureInfo.InvariantCulture));
        text.AppendLine("ReconnectInterval=1");
        text.AppendLine("HeartBtInt=30");
        text.AppendLine("StartTime=00:00:00");
        text.AppendLine("EndTime=00:00:00");
        text.AppendLine("OutboundQueueDepth=4096");
        text.AppendLine("StoreType=express");
        text.AppendLine("StoreMaxMessages=200000");
        text.AppendLine("StoreMaxBytes=" + (128 << 20).ToString(CultureInfo.InvariantCulture));
        foreach (var id in participants)
        {
            text.AppendLine("[SESSION]");
            text.AppendLine("BeginString=" + beginString);
            text.AppendLine("SenderCompID=" + Encoding.ASCII.GetString(id));
            text.AppendLine("TargetCompID=" + serviceCompId);
        }

        return SettingsFile.Parse(text.ToString(), "matching service warm-up initiators");
    }

    private static void DeleteDirectory(string directory)
    {
        if (Directory.Exists(directory))
        {
            Directory.Delete(directory, recursive: true);
        }
    }

    private enum TradeKind
    {
        Good,
        Duplicate,
        Amended,
        Cancelled,
        UnknownIsin,
        BadCheckDigit,
        HolidaySettlement,
        NetBeyondTolerance,
        MissingMessage,
    }

    // Counts the application messages the participants receive (startup only: allocation does not matter here).
    private sealed class Counter : FixApplicationBase
    {
        private long _value;

        public long Value => Interlocked.Read(ref _value);

        public override MessageDisposition FromApp(FixSession session, FixMessage message)
        {
            Interlocked.Increment(ref _value);
            return MessageDisposition.Accept;
        }
    }
}
