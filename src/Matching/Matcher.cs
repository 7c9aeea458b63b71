using System.Numerics;
using System.Runtime.CompilerServices;
using RapidFix.Engine.Fields;
using RapidFix.Matching.StaticData;

namespace RapidFix.Matching;

/// <summary>
/// The post-trade matching utility of one partition: takes NOE, ALC, NPR and SET messages in any order, validates
/// each against static data, groups them into trades by content and, when a trade's seven (or more generally
/// 1 + 3 per account) messages are present and agree, reports it cleared (the CLS). Everything it holds lives in
/// tables sized at construction; the continuous phase allocates nothing. Deterministic: the same inputs (messages
/// and <see cref="AdvanceBusinessDate{TSink}"/> calls) in the same order give the same outputs, so a service rebuilds
/// its state by replaying its journal into a fresh matcher. Not thread-safe: one matcher per partition and thread.
/// </summary>
public sealed class Matcher
{
    /// <summary>Accounts one trade may be allocated to.</summary>
    public const int MaxAccounts = 4;

    private readonly ReferenceData _ref;
    private readonly MatcherOptions _options;
    private readonly TradeRecord[] _trades;
    private readonly MessageRecord[] _msgs;
    private readonly HashIndex _tradeIndex;
    private readonly HashIndex _idIndex;
    private readonly int[] _accountBuckets; // per bucket: [2b] waiting SETs, [2b + 1] slots awaiting a SET (one cache line)
    private readonly uint _accountMask;
    private readonly ClearedSpan[] _clearedRing;   // retained cleared trades, oldest at _clearedHead
    private readonly ClearedId[] _clearedIds;       // their IDs, in order of clearing (a ring; in _idIndex as row _msgs.Length + number)
    private readonly int _clearedIdNumbers;         // IDs entering the ring are numbered modulo this (ClearedIdNumbers)
    private readonly int _sweepPerClearedId;        // ID index entries swept for each ID dropped from the ring (ClearedIdNumbers)
    private int _clearedIdHead;
    private int _clearedIdHeadNumber;               // the number of the ID at _clearedIdHead
    private int _clearedIdCount;
    private int _idSweep;                           // where the next sweep of the ID index starts (DropOldestCleared)
    private int _sweepOwed;                         // entries the drops since the last sweep owe it (SweepBatch)
    private readonly ExceptionQueue _exceptions;
    private int _freeTrade;
    private int _freeMsg;
    private int _openTrades;
    private int _clearedHead;
    private int _clearedCount;
    private int _oldestOpen = -1;
    private int _newestOpen = -1;
    private int _oldestPending = -1;
    private int _newestPending = -1;
    private int _oldestWithdrawn = -1;
    private int _newestWithdrawn = -1;
    private int _day;
    private int _businessDate;
    private long _nextTradeNumber;
    private long _awaitingVisits; // slots awaiting a SET that SETs looked at (tests: a SET's walk stays short)
    private MatchInput _input;
    private readonly int _scratchRow; // the extra last row: where a message is resolved when no row is free
    private int _current;             // the row the message being processed is resolved into
    private int _claimed = -1;        // that row when it was taken off the free list and is not stored yet, else -1
    private int _currencyCode;        // the last trade currency looked up and its index (a stream uses a few)
    private int _currencyIndex = -1;
    private MatcherCounters _counters;
    private int _calendarCurrency = -1;
    private int _calendarDate;
    private bool _calendarIsBusinessDay;
    private readonly Lookahead[] _ahead = new Lookahead[AheadMask + 1];

    /// <summary>Creates the tables (startup: this allocates them all).</summary>
    public Matcher(ReferenceData reference, MatcherOptions options)
    {
        ArgumentNullException.ThrowIfNull(reference);
        ArgumentNullException.ThrowIfNull(options);
        ArgumentOutOfRangeException.ThrowIfLessThan(options.OpenTrades, 1);
        ArgumentOutOfRangeException.ThrowIfLessThan(options.ExpiryBusinessDays, 1);
        if (!Codes.IsDate(options.BusinessDate))
        {
            throw new ArgumentException("MatcherOptions.BusinessDate must be a date yyyymmdd.", nameof(options));
        }

        _ref = reference;
        _options = options;
        _businessDate = options.BusinessDate;
        // Only open trades hold a trade record: a cleared one is freed as it clears (what is retained of it is in
        // the cleared-ID ring).
        int trades = options.OpenTrades;
        _trades = LargeTables.Allocate<TradeRecord>(trades);
        for (int i = 0; i < trades; i++)
        {
            _trades[i].NextFree = i + 1 < trades ? i + 1 : -1;
        }

        // One row more than the options ask for: the scratch row, never on the free list.
        int messages = options.ResolvedMessages;
        _msgs = LargeTables.Allocate<MessageRecord>(messages + 1);
        for (int i = 0; i < messages; i++)
        {
            _msgs[i].NextChain = i + 1 < messages ? i + 1 : -1;
        }

        _scratchRow = messages;
        // The trade-key index has one row a trade (the ID index about twelve): twice as sparse as the default costs 16
        // bytes a trade and takes a few ns off the six messages of seven that look a trade up (docs/matching.md,
        // tenth round).
        _tradeIndex = new HashIndex(trades, trades, t => _trades[t].KeyHash, TradeIndexEntriesPerTrade);
        int clearedIds = ClearedIdCapacity(options.ResolvedClearedTrades);

        // One ID index for stored messages and the IDs of retained cleared trades (row _msgs.Length + the ID's number
        // in the ring, ClearedIdNumbers); a dropped trade's entries stay until a sweep removes them (IsStaleRow).
        int idRows = messages + clearedIds;
        (_clearedIdNumbers, _sweepPerClearedId) = ClearedIdNumbers(clearedIds, HashIndex.SizeFor(idRows, IdIndexEntriesPerRow), messages + 1);
        _idIndex = new HashIndex(idRows, messages + 1 + _clearedIdNumbers, IdHashOfRow, IdIndexEntriesPerRow, IsStaleRow);
        _accountBuckets = Buckets(2 * (int)BitOperations.RoundUpToPowerOf2((uint)Math.Max(trades, 16)));
        _accountMask = (uint)(_accountBuckets.Length / 2 - 1);
        _clearedRing = new ClearedSpan[options.ResolvedClearedTrades];
        _clearedIds = LargeTables.Allocate<ClearedId>(clearedIds);
        _exceptions = new ExceptionQueue(options.Exceptions);
    }

    /// <summary>Trade-key index entries a trade (<see cref="HashIndex"/>).</summary>
    internal const int TradeIndexEntriesPerTrade = 8;

    /// <summary>
    /// How IDs entering the cleared-ID ring are numbered, and how many ID index entries a sweep passes for each ID
    /// dropped (<see cref="DropOldestCleared"/>): numbers modulo a multiple of the ring's length large enough that
    /// the sweep passes every entry of the index (<paramref name="indexEntries"/>) before the number of a dropped ID
    /// comes round into the ring's live window again, so that a dropped ID's entry is stale by its number alone,
    /// without reading the ring (the sweep may lag by <see cref="SweepBatch"/> entries: counted in). At least twice
    /// the ring; four entries an ID unless the numbers would then not fit the index's entries with a bit of tag to
    /// spare (<paramref name="messageRows"/> rows come first).
    /// </summary>
    internal static (int Numbers, int SweepPerId) ClearedIdNumbers(int ringLength, int indexEntries, int messageRows)
    {
        if (ringLength == 0)
        {
            return (0, 0);
        }

        for (int sweep = 4; ; sweep *= 2)
        {
            long laps = Math.Max(2, ((long)(indexEntries + SweepBatch + 64) / sweep + 2L * ringLength - 1) / ringLength);
            long numbers = laps * ringLength;
            if (messageRows + numbers < 1L << 27 || sweep >= 1 << 12)
            {
                return numbers + messageRows > 1L << 28
                    ? throw new ArgumentOutOfRangeException(nameof(ringLength), ringLength, "too many cleared IDs for the ID index")
                    : ((int)numbers, sweep);
            }
        }
    }

    /// <summary>
    /// ID index entries a row of the message table and the cleared-ID ring (<see cref="HashIndex"/>). Settable for
    /// measurements (<c>--match-loop ... index=N</c>); read when a matcher is created.
    /// </summary>
    internal static int IdIndexEntriesPerRow { get; set; } = HashIndex.DefaultEntriesPerRow;

    /// <summary>The static data messages are validated against.</summary>
    public ReferenceData Reference => _ref;

    /// <summary>The exception queue (list, inspect; <see cref="Resubmit{TSink}"/> to process a record again).</summary>
    public ExceptionQueue Exceptions => _exceptions;

    /// <summary>Counters so far.</summary>
    public MatcherCounters Counters => _counters;

    /// <summary>Slots awaiting a SET that arriving SETs looked at, since startup (tests: the walk ends at the oldest that fits).</summary>
    internal long AwaitingVisits => _awaitingVisits;

    /// <summary>Open trades now.</summary>
    public int OpenTrades => _openTrades;

    /// <summary>The current business date (yyyymmdd).</summary>
    public int BusinessDate => _businessDate;

    internal ref TradeRecord TradeAt(int trade) => ref _trades[trade];

    internal ref MessageRecord MessageAt(int message) => ref _msgs[message];

    /// <summary>How many numbers the cleared-ID ring's IDs take in the ID index (tests: <see cref="ClearedIdNumbers"/>).</summary>
    internal int ClearedIdNumberCount => _clearedIdNumbers;

    /// <summary>ID index entries swept for each ID dropped from the cleared-ID ring (tests).</summary>
    internal int SweepPerClearedId => _sweepPerClearedId;

    /// <summary>The ID index (tests: its entries' consistency and size).</summary>
    internal HashIndex IdIndex => _idIndex;

    /// <summary>The trade-key index (tests: its size).</summary>
    internal HashIndex TradeIndex => _tradeIndex;

    // ---- entry points -------------------------------------------------------------------------------------------

    /// <summary>
    /// Processes one received message read through <see cref="IFieldAccessor"/> (a parsed FIX message or a decoded
    /// FAST one); <paramref name="sender"/> is the participant it came from (its session's SenderCompID). Answers go
    /// to <paramref name="sink"/>: always exactly one ack, then possibly a CLS and exception records.
    /// </summary>
    public void Process<TMessage, TSink>(TMessage message, ReadOnlySpan<byte> sender, ref TSink sink)
        where TMessage : IFieldAccessor
        where TSink : IMatchSink
    {
        if (!MessageReader.TryRead(message, sender, out _input, out var problem))
        {
            _counters.Messages++;
            var f = Failure.Of(problem.Reason, CriterionOfTag(problem.Tag), problem.Tag, FailureValue.None);
            Reject(in _input, ref f, ref sink);
            return;
        }

        Process(in _input, ref sink);
    }

    /// <summary>Processes one message already read into a <see cref="MatchInput"/>.</summary>
    public void Process<TSink>(in MatchInput input, ref TSink sink)
        where TSink : IMatchSink
    {
        // Prepared here as the batch path prepares it ahead: its index entries and bucket start loading before it is
        // validated, not after (a message alone has nothing else to overlap them with).
        var ahead = default(Lookahead);
        Prepare(in input, ref ahead, idFirst: true);
        Process(in input, ref ahead, ref sink);
    }

    /// <summary>One message; <paramref name="ahead"/> holds what <see cref="Prepare"/> worked out for it.</summary>
    private void Process<TSink>(in MatchInput input, ref Lookahead ahead, ref TSink sink)
        where TSink : IMatchSink
    {
        // The message is resolved straight into the row that will store it (taken off the free list now, given
        // back below when the message is not stored): no copy of the record, and its cache line is fetched early.
        if (_freeMsg >= 0)
        {
            _claimed = _current = _freeMsg;
            _freeMsg = _msgs[_freeMsg].NextChain;
        }
        else
        {
            _current = _scratchRow; // AllocMessage then reports the table full
        }

        try
        {
            ProcessResolved(in input, ref ahead, ref sink);
        }
        finally
        {
            // Also when a sink throws: the row is never lost.
            if (_claimed >= 0)
            {
                ref var row = ref _msgs[_claimed];
                row.State = RecordState.Free;
                row.Trade = -1;
                row.NextChain = _freeMsg;
                _freeMsg = _claimed;
                _claimed = -1;
            }
        }
    }

    /// <summary>
    /// Processes <paramref name="batch"/> in order, exactly as one <see cref="Process{TSink}(in MatchInput, ref TSink)"/>
    /// call per input would: the same answers in the same order and the same state after, also when inputs of one
    /// batch touch the same trade. What differs is when the work that needs no table state is done: an input's ID
    /// hash, its static-data indices (participants, account, security) and its trade and account keys are computed
    /// <see cref="FarAhead"/> inputs ahead, and the index entries and bucket they lead to are prefetched then, so
    /// that their cache misses overlap the matching of the inputs before it; the input's own lines are prefetched
    /// <see cref="InputsAhead"/> inputs ahead, and the row the next input is resolved into one input ahead. The
    /// look-ahead reads only immutable static data and issues prefetches (a
    /// hint that changes nothing); the lookups it makes are the ones validation would make, so the input is then
    /// validated with them instead of making them again. A sink that throws stops the batch at that input, as a loop
    /// would.
    /// </summary>
    public void Process<TSink>(ReadOnlySpan<MatchInput> batch, ref TSink sink)
        where TSink : IMatchSink
    {
        int n = batch.Length;
        for (int j = 0; j < n && j < FarAhead; j++)
        {
            Prepare(in batch[j], ref _ahead[j & AheadMask], idFirst: false);
        }

        for (int j = FarAhead; j < n && j < InputsAhead; j++)
        {
            TouchLines(ref Unsafe.AsRef(in batch[j]));
        }

        for (int i = 0; i < n; i++)
        {
            // The input Prepare will read FarAhead inputs from now: the caller's inputs need not be cached.
            if (i + InputsAhead < n)
            {
                TouchLines(ref Unsafe.AsRef(in batch[i + InputsAhead]));
            }

            if (i + FarAhead < n)
            {
                Prepare(in batch[i + FarAhead], ref _ahead[(i + FarAhead) & AheadMask], idFirst: false);
            }

            // The row after the free-list head: the next input is resolved into it when this one is stored.
            if (_freeMsg >= 0)
            {
                int next = _msgs[_freeMsg].NextChain;
                if (next >= 0)
                {
                    TouchLines(ref _msgs[next]);
                }
            }

            Process(in batch[i], ref _ahead[i & AheadMask], ref sink);
        }
    }

    /// <summary>How many inputs ahead the batch path prepares an input (hashes, static-data indices, index prefetches).</summary>
    internal const int FarAhead = 4;

    private const int AheadMask = 7; // _ahead has 8 entries, more than FarAhead + 1

    /// <summary>How many inputs ahead the batch path prefetches an input's own lines (so that Prepare finds them cached).</summary>
    internal const int InputsAhead = 2 * FarAhead;

    /// <summary>
    /// The look-ahead for one input (nothing in the tables changes), made <see cref="FarAhead"/> inputs ahead on the
    /// batch path and just before the input one by one: its ID hash (and its reference's), the static-data indices
    /// validation will look up, its trade and account keys, and a prefetch of the ID and trade-key index entries and
    /// the account bucket they lead to. <paramref name="idFirst"/> (one by one, where the ID lookup comes soon) issues
    /// the ID entry's prefetch as soon as its hash is known; otherwise (the batch path, inputs ahead) the three
    /// prefetches go out together after the lookups and keys: measured 11 ns a message faster batched at a million
    /// resident, and 25 ns slower one by one (docs/matching.md, twelfth round).
    /// </summary>
    private void Prepare(in MatchInput input, ref Lookahead a, bool idFirst)
    {
        a = default;
        a.IdHash = IdHash(input.Kind, input.Sender.Span, input.Id.Span);
        if (idFirst)
        {
            _idIndex.Prefetch(a.IdHash);
        }

        if (input.Trans != TransType.New)
        {
            _idIndex.Prefetch(IdHash(input.Kind, input.Sender.Span, input.RefId.Span));
        }

        // Exactly the lookups Resolve makes (it takes these instead of making them again).
        a.Im = _ref.FindParticipant(input.InvestmentManager.Span, out a.ImFacts);
        a.Eb = _ref.FindParticipant(input.ExecutingBroker.Span, out a.EbFacts);
        a.Account = input.Kind != MessageKind.Noe ? _ref.FindAccount(input.Account.Span, out a.AccountManager) : -1;
        a.Security = input.Kind != MessageKind.Set && input.Trans != TransType.Cancel ? _ref.FindSecurity(input.Isin.Span, out a.PriceDecimals) : -1;
        if (input.Trans != TransType.New || a.Im < 0 || a.Eb < 0)
        {
            if (!idFirst)
            {
                _idIndex.Prefetch(a.IdHash);
            }

            return;
        }

        // The keys the record will have if the input is valid (SetKeys takes them instead of computing them
        // again): a NOE has no account, a SET no security or trade date.
        bool set = input.Kind == MessageKind.Set;
        a.KeyHash = TradeKey(a.Im, a.Eb, input.Side, set ? -1 : a.Security, set ? 0 : input.TradeDate);
        a.AccountHash = AccountKey(a.Im, a.Eb, input.Side, input.Kind == MessageKind.Noe ? -1 : a.Account);
        a.KeysReady = true;
        if (!idFirst)
        {
            _idIndex.Prefetch(a.IdHash);
        }

        if (input.Kind != MessageKind.Noe && a.Account >= 0)
        {
            Prefetcher.Touch(ref _accountBuckets[PendingHead(a.AccountHash)]);
        }

        if (!set && a.Security >= 0)
        {
            _tradeIndex.Prefetch(a.KeyHash);
        }
    }

    /// <summary>Prefetches every cache line <paramref name="value"/> spans.</summary>
    private static void TouchLines<T>(ref T value)
    {
        int size = Unsafe.SizeOf<T>();
        ref byte start = ref Unsafe.As<T, byte>(ref value);
        for (int offset = 0; offset < size; offset += 64)
        {
            Prefetcher.Touch(ref Unsafe.Add(ref start, offset));
        }

        Prefetcher.Touch(ref Unsafe.Add(ref start, size - 1));
    }

    /// <summary>What <see cref="Prepare"/> worked out about one input before it is processed (the batch path: a few inputs ahead).</summary>
    private struct Lookahead
    {
        public uint IdHash;
        public int Im;
        public int Eb;
        public int Account;
        public int Security;

        // What validation reads of them, from the lookups' own entries (no chain of loads into static data's lists).
        public int ImFacts;
        public int EbFacts;
        public int AccountManager;
        public int PriceDecimals;

        /// <summary>KeyHash and AccountHash are set (a new message): the keys its record gets when it is valid.</summary>
        public bool KeysReady;
        public uint KeyHash;
        public uint AccountHash;
    }

    private void ProcessResolved<TSink>(in MatchInput input, ref Lookahead ahead, ref TSink sink)
        where TSink : IMatchSink
    {
        _counters.Messages++;

        // With a million open trades every table lookup is a cache miss: Prepare started fetching the ID index entry
        // (and a new message's trade-key entry and account bucket) before this, a few inputs ago on the batch path.
        uint idHash = ahead.IdHash;

        ref var m = ref _msgs[_current];
        if (!Resolve(in input, ref m, ref ahead, out var failure))
        {
            Reject(in input, ref failure, ref sink);
            return;
        }

        m.IdHash = idHash;
        SetKeys(ref m, ref ahead);
        int existing = FindId(m.Kind, m.Sender, input.Id.Span, idHash);
        if (existing >= 0)
        {
            if (TransOf(existing) == input.Trans || input.PossDup)
            {
                _counters.Duplicates++;
                Ack(in input, AckStatus.Duplicate, ref sink);
            }
            else
            {
                var f = Failure.Of(ExceptionReason.IdReused, Criterion.None, IdTag(input.Kind), FailureValue.None);
                Reject(in input, ref f, ref sink);
            }

            return;
        }

        switch (input.Trans)
        {
            case TransType.Cancel:
                Cancel(in input, ref sink);
                break;
            case TransType.Replace:
                Replace(in input, ref sink);
                break;
            default:
                New(in input, ref sink);
                break;
        }
    }

    /// <summary>
    /// Starts business date <paramref name="yyyymmdd"/> (later than the current one): every call is one business
    /// day. Trades and waiting SETs opened <see cref="MatcherOptions.ExpiryBusinessDays"/> business days ago or more
    /// expire into the exception queue; cleared trades that old leave retention. The clock of expiry is this call,
    /// never the wall clock, so a replay expires the same trades at the same point.
    /// </summary>
    public void AdvanceBusinessDate<TSink>(int yyyymmdd, ref TSink sink)
        where TSink : IMatchSink
    {
        if (!Codes.IsDate(yyyymmdd) || yyyymmdd <= _businessDate)
        {
            throw new ArgumentOutOfRangeException(nameof(yyyymmdd), yyyymmdd, "A business date is a date yyyymmdd after the current one.");
        }

        _businessDate = yyyymmdd;
        _day++;
        int limit = _day - _options.ExpiryBusinessDays;
        while (_oldestOpen >= 0 && _trades[_oldestOpen].OpenedDay <= limit)
        {
            ExpireTrade(_oldestOpen, ref sink);
        }

        while (_oldestPending >= 0 && _msgs[_oldestPending].OpenedDay <= limit)
        {
            int p = _oldestPending;
            RemovePending(p);
            var f = Failure.Of(ExceptionReason.Expired, Criterion.Account, 448, FailureValue.Text);
            RecordException(p, ref f, ref sink);
            FreeMessage(p);
        }

        // Withdrawn IDs whose trade has gone are remembered as long as an open trade would be.
        while (_oldestWithdrawn >= 0 && _msgs[_oldestWithdrawn].OpenedDay <= limit)
        {
            int w = _oldestWithdrawn;
            _oldestWithdrawn = _msgs[w].NextChain;
            if (_oldestWithdrawn < 0)
            {
                _newestWithdrawn = -1;
            }

            FreeMessage(w);
        }

        while (_clearedCount > 0 && _clearedRing[_clearedHead].ClearedDay <= limit)
        {
            DropOldestCleared();
        }
    }

    /// <summary>
    /// Processes exception <paramref name="exceptionId"/>'s message again as it was read (after the static data or
    /// the other messages were corrected). False when the ring no longer holds the record or it was re-submitted.
    /// </summary>
    public bool Resubmit<TSink>(long exceptionId, ref TSink sink)
        where TSink : IMatchSink
    {
        if (!_exceptions.TryGet(exceptionId, out var record) || record.Resubmitted)
        {
            return false;
        }

        return ResubmitCorrected(exceptionId, in _exceptions.At(exceptionId).Input, ref sink);
    }

    /// <summary>Processes <paramref name="corrected"/> in place of exception <paramref name="exceptionId"/>'s message.</summary>
    public bool ResubmitCorrected<TSink>(long exceptionId, in MatchInput corrected, ref TSink sink)
        where TSink : IMatchSink
    {
        if (!_exceptions.TryGet(exceptionId, out var record) || record.Resubmitted)
        {
            return false;
        }

        _exceptions.At(exceptionId).Resubmitted = true;
        _input = corrected;
        Process(in _input, ref sink);
        return true;
    }

    // ---- validation against static data ------------------------------------------------------------------------

    private bool Resolve(in MatchInput input, ref MessageRecord r, ref Lookahead ahead, out Failure f)
    {
        r = default;
        r.Kind = input.Kind;
        r.Trans = input.Trans;
        r.Id = input.Id;
        r.Isin = input.Isin;
        r.Side = input.Side;
        r.Present = input.Present;
        r.Security = r.Currency = r.SettlCurrency = r.Account = r.Place = -1;
        // The static-data indices Prepare looked up (static data never changes, so ahead of time is the same).
        r.Im = ahead.Im;
        r.Eb = ahead.Eb;

        // The sender is one of the two parties on every valid message: compare bytes before looking it up.
        r.Sender = input.Sender.SameBytes(in input.ExecutingBroker) ? r.Eb
            : input.Sender.SameBytes(in input.InvestmentManager) ? r.Im
            : _ref.FindParticipant(input.Sender.Span);
        f = default;
        if (r.Sender < 0)
        {
            return Fail(out f, ExceptionReason.NotAuthorized, Criterion.None, 49, FailureValue.Text);
        }

        if (r.Im < 0 || (ParticipantFacts.Roles(ahead.ImFacts) & ParticipantRoles.InvestmentManager) == 0)
        {
            return Fail(out f, ExceptionReason.StaticData, Criterion.InvestmentManager, 448, FailureValue.Text);
        }

        if (r.Eb < 0 || (ParticipantFacts.Roles(ahead.EbFacts) & ParticipantRoles.ExecutingBroker) == 0)
        {
            return Fail(out f, ExceptionReason.StaticData, Criterion.ExecutingBroker, 448, FailureValue.Text);
        }

        // NOE and NPR come from the executing broker, ALC and SET from the investment manager.
        int expected = input.Kind is MessageKind.Noe or MessageKind.Npr ? r.Eb : r.Im;
        if (r.Sender != expected)
        {
            return Fail(out f, ExceptionReason.NotAuthorized, Criterion.None, 49, FailureValue.Text);
        }

        if (input.Kind != MessageKind.Noe)
        {
            r.Account = ahead.Account;
            if (r.Account < 0 || ahead.AccountManager != r.Im)
            {
                return Fail(out f, ExceptionReason.StaticData, Criterion.Account, input.Kind == MessageKind.Set ? 448 : 79, FailureValue.Text);
            }
        }

        if (input.Trans == TransType.Cancel)
        {
            return true; // a cancel is identified by its reference; its content is not matched
        }

        if (input.Has(InputFields.Place) && (r.Place = _ref.FindPlace(input.Place.Span)) < 0)
        {
            return Fail(out f, ExceptionReason.StaticData, Criterion.PlaceOfSettlement, 448, FailureValue.Text);
        }

        if (input.Has(InputFields.SettlCurrency) && (r.SettlCurrency = _ref.FindCurrency(input.SettlCurrency)) < 0)
        {
            return Fail(out f, ExceptionReason.StaticData, Criterion.SettlementCurrency, 120, FailureValue.Currency, input.SettlCurrency);
        }

        if (input.Kind == MessageKind.Set)
        {
            return true;
        }

        // Static data holds only ISINs whose check digit is valid (checked at load), so a known ISIN is a valid one.
        if ((r.Security = ahead.Security) < 0)
        {
            return Fail(out f, ExceptionReason.StaticData, Criterion.Security, 48, FailureValue.Text);
        }

        if ((r.Currency = TradeCurrency(input.Currency)) < 0)
        {
            return Fail(out f, ExceptionReason.StaticData, Criterion.TradeCurrency, 15, FailureValue.Currency, input.Currency);
        }

        r.TradeDate = input.TradeDate;
        r.SettlDate = input.SettlDate;
        if (input.Has(InputFields.SettlDate))
        {
            if (input.SettlDate < input.TradeDate)
            {
                return Fail(out f, ExceptionReason.InvalidField, Criterion.SettlementDate, 64, FailureValue.Integer, input.SettlDate, input.TradeDate);
            }

            if (!IsBusinessDay(r.SettlCurrency >= 0 ? r.SettlCurrency : r.Currency, input.SettlDate))
            {
                return Fail(out f, ExceptionReason.StaticData, Criterion.SettlementDate, 64, FailureValue.Integer, input.SettlDate);
            }
        }

        r.Quantity = input.Quantity;
        r.Price = input.Price;
        if (input.Quantity <= 0)
        {
            return Fail(out f, ExceptionReason.InvalidField, Criterion.Quantity, input.Kind == MessageKind.Noe ? 32 : 80, FailureValue.Number, input.Quantity);
        }

        if (input.Price <= 0)
        {
            return Fail(out f, ExceptionReason.InvalidField, Criterion.Price, PriceTag(input.Kind), FailureValue.Number, input.Price);
        }

        // Prices compare at the security's price precision: rounded once here, not at every comparison.
        r.RoundedPrice = Scaled.Round(input.Price, ahead.PriceDecimals);

        r.Gross = input.Gross;
        r.Fees = input.Fees;
        r.Tax = input.Tax;
        r.Accrued = input.Accrued;
        r.Net = input.Net;
        r.SettlAmount = input.SettlAmount;
        r.FxRate = input.FxRate;
        if (!Scaled.TryMultiply(input.Quantity, input.Price, out long computedGross))
        {
            return Fail(out f, ExceptionReason.InvalidField, Criterion.GrossAmount, 381, FailureValue.Number, input.Quantity);
        }

        r.Commission = input.Commission;
        if (input.Has(InputFields.Commission) && input.CommType == '2')
        {
            // A percentage of the gross amount, compared as the amount it comes to.
            Scaled.TryMultiply(input.Has(InputFields.Gross) ? input.Gross : computedGross, input.Commission / 100, out r.Commission);
        }

        // The tolerances of the manager's profile in the trade currency, found once for every comparison.
        r.ToleranceRow = _ref.ToleranceRow(ParticipantFacts.Profile(ahead.ImFacts), r.Currency);
        if (input.Has(InputFields.Gross))
        {
            var t = _ref.ToleranceAt(r.ToleranceRow, Criterion.GrossAmount);
            if (!Agrees(in t, input.Gross, computedGross))
            {
                return Fail(out f, ExceptionReason.Mismatch, Criterion.GrossAmount, 381, FailureValue.Number, input.Gross, computedGross, t);
            }
        }

        if (input.Kind == MessageKind.Npr)
        {
            // Net = gross + commission + fees + tax for a buy, minus them for a sell; accrued interest added either way.
            long costs = r.Commission + r.Fees + r.Tax;
            long net = (input.Side == '1' ? input.Gross + costs : input.Gross - costs) + input.Accrued;
            var t = _ref.ToleranceAt(r.ToleranceRow, Criterion.NetAmount);
            if (!Agrees(in t, input.Net, net))
            {
                return Fail(out f, ExceptionReason.Mismatch, Criterion.NetAmount, 118, FailureValue.Number, input.Net, net, t);
            }
        }

        if (input.Has(InputFields.SettlAmount) && input.Has(InputFields.Net))
        {
            bool sameCurrency = r.SettlCurrency < 0 || r.SettlCurrency == r.Currency;
            if (!sameCurrency && !input.Has(InputFields.FxRate))
            {
                return Fail(out f, ExceptionReason.MissingField, Criterion.SettlementAmount, 155, FailureValue.None);
            }

            long expectedSettl = input.Net;
            if (!sameCurrency && !Scaled.TryMultiply(input.Net, input.FxRate, out expectedSettl))
            {
                return Fail(out f, ExceptionReason.InvalidField, Criterion.SettlementAmount, 155, FailureValue.Number, input.FxRate);
            }

            var t = _ref.ToleranceAt(r.ToleranceRow, Criterion.SettlementAmount);
            if (!Agrees(in t, input.SettlAmount, expectedSettl))
            {
                return Fail(out f, ExceptionReason.Mismatch, Criterion.SettlementAmount, 119, FailureValue.Number, input.SettlAmount, expectedSettl, t);
            }
        }

        return true;
    }

    /// <summary>The trade currency's index, remembering the last answer: a stream's messages share a few currencies.</summary>
    private int TradeCurrency(int packed)
    {
        if (packed != _currencyCode || _currencyIndex < 0)
        {
            _currencyIndex = _ref.FindCurrency(packed);
            _currencyCode = packed;
        }

        return _currencyIndex;
    }

    /// <summary>The calendar check, remembering the last answer: a stream's messages share a few settlement dates.</summary>
    private bool IsBusinessDay(int currency, int yyyymmdd)
    {
        if (currency != _calendarCurrency || yyyymmdd != _calendarDate)
        {
            _calendarIsBusinessDay = _ref.IsBusinessDay(currency, yyyymmdd);
            _calendarCurrency = currency;
            _calendarDate = yyyymmdd;
        }

        return _calendarIsBusinessDay;
    }

    // ---- lifecycle ------------------------------------------------------------------------------------------------

    private void New<TSink>(in MatchInput input, ref TSink sink)
        where TSink : IMatchSink
    {
        ref var m = ref _msgs[_current];
        if (m.Kind == MessageKind.Set)
        {
            NewSet(in input, ref sink);
            return;
        }

        uint key = m.KeyHash;
        int fit = -1, fitSlot = -1;
        var first = default(Failure);
        int position = _tradeIndex.Start(key);
        for (int t = _tradeIndex.Next(key, ref position); t >= 0; t = _tradeIndex.Next(key, ref position))
        {
            ref var trade = ref _trades[t];
            if (trade.Im != m.Im || trade.Eb != m.Eb || trade.Side != m.Side ||
                trade.Security != m.Security || trade.TradeDate != m.TradeDate)
            {
                continue;
            }

            if (trade.State == TradeState.Cleared)
            {
                // A new message is never "late" by content alone: a trade of the same key may repeat the cleared
                // one's quantities. Late is a cancel or replace of a cleared message (FindTarget); a new message
                // that would only complete a cleared trade opens a trade of its own and expires unless matched.
                continue;
            }

            var result = Fit(t, ref m, -1, out int slot, out var failure);
            if (result == FitResult.Fits)
            {
                // The index gives the trades of a key oldest first: the first fit is the oldest.
                fit = t;
                fitSlot = slot;
                break;
            }

            if (result == FitResult.Mismatch && first.Reason == ExceptionReason.None)
            {
                first = failure; // the oldest trade that has a place for it but disagrees
            }
        }

        if (fit >= 0)
        {
            if (Join(fit, fitSlot, in input, ref sink))
            {
                Accepted(in input, ref sink);
                CheckComplete(fit, ref sink);
            }

            return;
        }

        if (first.Reason != ExceptionReason.None)
        {
            Reject(in input, ref first, ref sink);
            return;
        }

        int created = NewTrade(key, ref m);
        if (created < 0)
        {
            TableFull(in input, ref sink);
            return;
        }

        if (Join(created, -1, in input, ref sink))
        {
            Accepted(in input, ref sink);
            CheckComplete(created, ref sink);
        }
        else
        {
            FreeTrade(created);
        }
    }

    private void NewSet<TSink>(in MatchInput input, ref TSink sink)
        where TSink : IMatchSink
    {
        ref var m = ref _msgs[_current];
        uint key = m.AccountHash;
        int head = AwaitingHead(key);
        int newest = _accountBuckets[head];
        int found = -1;
        int foundBefore = -1;
        var first = default(Failure); // none fits: the newest slot's mismatch is the one reported
        long visits = 0;

        // The oldest slot that fits takes the SET: walked from the oldest (the chain is a circle, see AddAwaiting), so
        // the walk usually ends at its first step however many slots of the account wait.
        for (int before = newest, e = newest < 0 ? -1 : SlotRef(newest).NextAwaiting; e >= 0; before = e, e = SlotRef(e).NextAwaiting)
        {
            visits++;
            int t = e / MaxAccounts;
            ref var trade = ref _trades[t];
            ref var slot = ref SlotRef(e);
            if (trade.Im == m.Im && trade.Eb == m.Eb && trade.Side == m.Side && slot.Account == m.Account && slot.Set < 0)
            {
                if (SetFits(ref slot, ref m, out var failure))
                {
                    found = e;
                    foundBefore = before;
                    break;
                }

                first = failure; // the walk goes oldest to newest: the last one kept is the newest
            }

            if (e == newest)
            {
                break;
            }
        }

        _awaitingVisits += visits;

        int mi = AllocMessage();
        if (mi < 0)
        {
            TableFull(in input, ref sink);
            return;
        }

        if (found >= 0)
        {
            UnlinkAwaiting(head, foundBefore, found);
            AttachSet(found / MaxAccounts, found % MaxAccounts, mi);
            Accepted(in input, ref sink);
            CheckComplete(found / MaxAccounts, ref sink);
            return;
        }

        if (first.Reason != ExceptionReason.None)
        {
            FreeMessage(mi);
            Reject(in input, ref first, ref sink);
            return;
        }

        AddPending(mi, key);
        Accepted(in input, ref sink);
    }

    private void Cancel<TSink>(in MatchInput input, ref TSink sink)
        where TSink : IMatchSink
    {
        ref var m = ref _msgs[_current];
        int target = FindTarget(in input, ref sink);
        if (target < 0)
        {
            return;
        }

        // The cancel itself is kept (as history) so that its resend is recognised as a duplicate.
        int cancelRecord = AllocMessage();
        if (cancelRecord < 0)
        {
            TableFull(in input, ref sink);
            return;
        }

        int trade = _msgs[target].State == RecordState.Pending ? -1 : _msgs[target].Trade;
        Detach(target);
        _msgs[cancelRecord].State = RecordState.History;
        ToHistory(target, trade);
        ToHistory(cancelRecord, trade);
        Accepted(in input, ref sink);
        if (trade >= 0)
        {
            if (IsEmpty(trade))
            {
                // The trade goes, its withdrawn IDs stay taken: a resend of the cancelled message is a duplicate.
                KeepWithdrawn(trade);
                FreeTrade(trade);
            }
            else
            {
                CheckComplete(trade, ref sink);
            }
        }
    }

    private void Replace<TSink>(in MatchInput input, ref TSink sink)
        where TSink : IMatchSink
    {
        ref var m = ref _msgs[_current];
        int target = FindTarget(in input, ref sink);
        if (target < 0)
        {
            return;
        }

        ref var old = ref _msgs[target];
        if (old.Im != m.Im || old.Eb != m.Eb || old.Side != m.Side || old.Account != m.Account ||
            (m.Kind != MessageKind.Set && (old.Security != m.Security || old.TradeDate != m.TradeDate)))
        {
            var f = Failure.Of(ExceptionReason.KeyFieldAmended, Criterion.None, RefTag(m.Kind), FailureValue.None);
            Reject(in input, ref f, ref sink);
            return;
        }

        if (old.State == RecordState.Pending)
        {
            // A waiting SET: withdraw it and take the replacement as a new SET; put it back if that fails.
            uint key = AccountKey(old.Im, old.Eb, old.Side, old.Account);
            RemovePending(target);
            long before = _counters.Rejected;
            NewSet(in input, ref sink);
            if (_counters.Rejected != before)
            {
                AddPending(target, key);
            }
            else
            {
                ToHistory(target, -1);
            }

            return;
        }

        int trade = old.Trade;
        Failure failure;
        int slot;
        if (m.Kind == MessageKind.Set)
        {
            slot = SlotOf(trade, old.Account);
            var probe = _trades[trade].Slots[slot];
            probe.Set = -1;
            if (!SetFits(ref probe, ref m, out failure))
            {
                Reject(in input, ref failure, ref sink);
                return;
            }
        }
        else if (Fit(trade, ref m, target, out slot, out failure) != FitResult.Fits)
        {
            if (failure.Reason == ExceptionReason.None)
            {
                // Quantity or account no longer fits the trade: still a mismatch of this trade, not another one.
                failure = Failure.Of(ExceptionReason.Mismatch, Criterion.Quantity, m.Kind == MessageKind.Noe ? 32 : 80, FailureValue.Number, m.Quantity, old.Quantity);
            }

            Reject(in input, ref failure, ref sink);
            return;
        }

        int mi = AllocMessage();
        if (mi < 0)
        {
            TableFull(in input, ref sink);
            return;
        }

        Substitute(trade, target, mi);
        ToHistory(target, trade);
        Accepted(in input, ref sink);
        CheckComplete(trade, ref sink);
    }

    /// <summary>The live message a cancel or replace refers to; answers the sender itself when there is none.</summary>
    private int FindTarget<TSink>(in MatchInput input, ref TSink sink)
        where TSink : IMatchSink
    {
        ref var m = ref _msgs[_current];
        int target = FindId(m.Kind, m.Sender, input.RefId.Span, IdHash(m.Kind, input.Sender.Span, input.RefId.Span));
        bool cleared = target >= _msgs.Length;
        if (target < 0 || (cleared ? _clearedIds[target - _msgs.Length].Withdrawn : _msgs[target].State == RecordState.History))
        {
            var f = Failure.Of(ExceptionReason.UnknownReference, Criterion.None, RefTag(m.Kind), FailureValue.None);
            Reject(in input, ref f, ref sink);
            return -1;
        }

        if (cleared)
        {
            // A live message of a retained cleared trade (only its IDs are kept).
            var f = Failure.Of(ExceptionReason.LateForClearedTrade, Criterion.None, RefTag(m.Kind), FailureValue.None);
            f.TradeNumber = _clearedIds[target - _msgs.Length].TradeNumber;
            Reject(in input, ref f, ref sink);
            return -1;
        }

        return target;
    }

    // ---- matching -------------------------------------------------------------------------------------------------

    private enum FitResult
    {
        /// <summary>The message belongs to the trade.</summary>
        Fits,

        /// <summary>The trade has no place for it (slot taken, quantity or account of another trade): look elsewhere.</summary>
        NoSlot,

        /// <summary>It has a place in the trade but a criterion fails.</summary>
        Mismatch,
    }

    /// <summary>
    /// Whether message <paramref name="m"/> belongs to open trade <paramref name="t"/>, ignoring message
    /// <paramref name="ignore"/> (the one a replace replaces). Quantities, accounts and taken slots tell trades of
    /// one key apart (<see cref="FitResult.NoSlot"/>); dates, currency, price, amounts and place must then agree.
    /// </summary>
    private FitResult Fit(int t, ref MessageRecord m, int ignore, out int slot, out Failure f)
    {
        ref var trade = ref _trades[t];
        f = default;
        slot = -1;
        int noe = trade.Noe == ignore ? -1 : trade.Noe;
        long allocated = trade.Allocated;
        if (ignore >= 0 && _msgs[ignore].Kind == MessageKind.Alc)
        {
            allocated -= _msgs[ignore].Quantity;
        }

        int other = -1; // the same account's ALC or NPR, compared on amounts
        int set = -1;
        switch (m.Kind)
        {
            case MessageKind.Noe:
                if (noe >= 0 || allocated > m.Quantity)
                {
                    return FitResult.NoSlot;
                }

                break;
            case MessageKind.Alc:
            case MessageKind.Npr:
                slot = SlotOf(t, m.Account);
                if (slot >= 0)
                {
                    ref var s = ref trade.Slots[slot];
                    int mine = m.Kind == MessageKind.Alc ? s.Alc : s.Npr;
                    other = m.Kind == MessageKind.Alc ? s.Npr : s.Alc;
                    set = s.Set;
                    if (other == ignore)
                    {
                        other = -1;
                    }

                    if ((mine >= 0 && mine != ignore) || (other >= 0 && _msgs[other].Quantity != m.Quantity))
                    {
                        return FitResult.NoSlot;
                    }
                }
                else if (!HasFreeSlot(t) || (m.Kind == MessageKind.Npr && noe >= 0 && AllocationsComplete(t, allocated)))
                {
                    return FitResult.NoSlot;
                }

                if (m.Kind == MessageKind.Alc && noe >= 0 && allocated + m.Quantity > trade.NoeQuantity)
                {
                    return FitResult.NoSlot;
                }

                break;
        }

        // The NOE is the reference when there is one (its values are in the trade record), else the first
        // allocation or net proceeds.
        if (noe >= 0)
        {
            if (!TradeLevelAgrees(ref m, trade.NoeHasSettlDate, trade.NoeSettlDate, trade.NoeCurrency, trade.NoeRoundedPrice, noe, out f))
            {
                return FitResult.Mismatch;
            }
        }
        else
        {
            int reference = FirstAllocationOrProceeds(t, ignore);
            if (reference >= 0)
            {
                ref var r = ref _msgs[reference];
                if (!TradeLevelAgrees(ref m, r.Has(InputFields.SettlDate), r.SettlDate, r.Currency, r.RoundedPrice, reference, out f))
                {
                    return FitResult.Mismatch;
                }
            }
        }

        if (other >= 0 && !AccountLevelAgrees(ref m, ref _msgs[other], out f))
        {
            return FitResult.Mismatch;
        }

        if (set >= 0 && m.Kind == MessageKind.Npr && !SettlementAgrees(ref _msgs[set], ref m, out f))
        {
            return FitResult.Mismatch;
        }

        return FitResult.Fits;
    }

    /// <summary>
    /// Message <paramref name="m"/> against the trade-level values of the trade's reference message
    /// <paramref name="other"/> (passed as values: the NOE's come from the trade record, so its record is read only
    /// to report a mismatch).
    /// </summary>
    private bool TradeLevelAgrees(ref MessageRecord m, bool otherHasSettlDate, int otherSettlDate, int otherCurrency, long otherRoundedPrice, int other, out Failure f)
    {
        f = default;
        if (m.Has(InputFields.SettlDate) && otherHasSettlDate && m.SettlDate != otherSettlDate)
        {
            return Mismatch(out f, Criterion.SettlementDate, 64, FailureValue.Integer, m.SettlDate, otherSettlDate, default, ref _msgs[other]);
        }

        if (m.Currency != otherCurrency)
        {
            return Mismatch(out f, Criterion.TradeCurrency, 15, FailureValue.Currency, _ref.CurrencyCode(m.Currency), _ref.CurrencyCode(otherCurrency), default, ref _msgs[other]);
        }

        // Prices agree within the tolerance once both are rounded to the security's price precision.
        // (Both are of one security: rounded once each, when resolved.)
        var t = Tolerance(ref m, Criterion.Price);
        if (!Agrees(in t, m.RoundedPrice, otherRoundedPrice))
        {
            return Mismatch(out f, Criterion.Price, PriceTag(m.Kind), FailureValue.Number, m.Price, _msgs[other].Price, t, ref _msgs[other]);
        }

        return true;
    }

    private bool AccountLevelAgrees(ref MessageRecord m, ref MessageRecord o, out Failure f)
    {
        f = default;
        return Amount(ref m, ref o, InputFields.Gross, Criterion.GrossAmount, 381, m.Gross, o.Gross, out f) &&
               Amount(ref m, ref o, InputFields.Commission, Criterion.Commission, 12, m.Commission, o.Commission, out f) &&
               Amount(ref m, ref o, InputFields.Fees, Criterion.Fees, 137, m.Fees, o.Fees, out f) &&
               Amount(ref m, ref o, InputFields.Tax, Criterion.Tax, 137, m.Tax, o.Tax, out f) &&
               (_ref.GetSecurity(m.Security).AssetClass != AssetClass.FixedIncome ||
                Amount(ref m, ref o, InputFields.Accrued, Criterion.AccruedInterest, 159, m.Accrued, o.Accrued, out f)) &&
               Amount(ref m, ref o, InputFields.Net, Criterion.NetAmount, 118, m.Net, o.Net, out f) &&
               (!m.Has(InputFields.SettlCurrency) || !o.Has(InputFields.SettlCurrency) || m.SettlCurrency == o.SettlCurrency ||
                Mismatch(out f, Criterion.SettlementCurrency, 120, FailureValue.Currency, _ref.CurrencyCode(m.SettlCurrency), _ref.CurrencyCode(o.SettlCurrency), default, ref o)) &&
               Amount(ref m, ref o, InputFields.SettlAmount, Criterion.SettlementAmount, 119, m.SettlAmount, o.SettlAmount, out f);
    }

    private bool Amount(ref MessageRecord m, ref MessageRecord o, InputFields field, Criterion criterion, int tag, long mine, long theirs, out Failure f)
    {
        f = default;
        if (!m.Has(field) || !o.Has(field))
        {
            return true;
        }

        var t = Tolerance(ref m, criterion);
        return Agrees(in t, mine, theirs) || Mismatch(out f, criterion, tag, FailureValue.Number, mine, theirs, t, ref o);
    }

    /// <summary>A SET against the NPR of its account: place of settlement and settlement currency.</summary>
    private bool SettlementAgrees(ref MessageRecord set, ref MessageRecord npr, out Failure f)
    {
        f = default;
        if (set.Has(InputFields.Place) && npr.Has(InputFields.Place) && set.Place != npr.Place)
        {
            // Reported from the point of view of the arriving message.
            return _msgs[_current].Kind == MessageKind.Set
                ? Mismatch(out f, Criterion.PlaceOfSettlement, 448, FailureValue.Place, set.Place, npr.Place, default, ref npr)
                : Mismatch(out f, Criterion.PlaceOfSettlement, 448, FailureValue.Place, npr.Place, set.Place, default, ref set);
        }

        if (set.Has(InputFields.SettlCurrency) && npr.Has(InputFields.SettlCurrency) && set.SettlCurrency != npr.SettlCurrency)
        {
            return _msgs[_current].Kind == MessageKind.Set
                ? Mismatch(out f, Criterion.SettlementCurrency, 120, FailureValue.Currency, _ref.CurrencyCode(set.SettlCurrency), _ref.CurrencyCode(npr.SettlCurrency), default, ref npr)
                : Mismatch(out f, Criterion.SettlementCurrency, 120, FailureValue.Currency, _ref.CurrencyCode(npr.SettlCurrency), _ref.CurrencyCode(set.SettlCurrency), default, ref set);
        }

        return true;
    }

    private bool SetFits(ref AccountSlot slot, ref MessageRecord set, out Failure f)
    {
        f = default;
        return slot.Npr < 0 || SettlementAgrees(ref set, ref _msgs[slot.Npr], out f);
    }

    private Tolerance Tolerance(ref MessageRecord m, Criterion criterion) => _ref.ToleranceAt(m.ToleranceRow, criterion);

    /// <summary>Equal values agree under every tolerance (static data holds no negative one): no percentage computed.</summary>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    private static bool Agrees(in Tolerance t, long actual, long expected) => actual == expected || t.Accepts(actual, expected);

    /// <summary>True when the allocations (<paramref name="allocated"/>) make up trade <paramref name="t"/>'s block (it has an NOE) and every account has its ALC.</summary>
    private bool AllocationsComplete(int t, long allocated)
    {
        ref var trade = ref _trades[t];
        if (allocated != trade.NoeQuantity)
        {
            return false;
        }

        for (int i = 0; i < trade.SlotCount; i++)
        {
            if (trade.Slots[i].Account >= 0 && trade.Slots[i].Alc < 0)
            {
                return false;
            }
        }

        return true;
    }

    private int FirstAllocationOrProceeds(int t, int ignore)
    {
        ref var trade = ref _trades[t];
        for (int i = 0; i < trade.SlotCount; i++)
        {
            ref var s = ref trade.Slots[i];
            if (s.Alc >= 0 && s.Alc != ignore)
            {
                return s.Alc;
            }

            if (s.Npr >= 0 && s.Npr != ignore)
            {
                return s.Npr;
            }
        }

        return -1;
    }

    private void CheckComplete<TSink>(int t, ref TSink sink)
        where TSink : IMatchSink
    {
        ref var trade = ref _trades[t];
        if (trade.State != TradeState.Open || trade.Noe < 0 || trade.Allocated != trade.NoeQuantity)
        {
            return;
        }

        int accounts = 0;
        for (int i = 0; i < trade.SlotCount; i++)
        {
            ref var s = ref trade.Slots[i];
            if (s.Account < 0)
            {
                continue;
            }

            if (s.Alc < 0 || s.Npr < 0 || s.Set < 0)
            {
                return;
            }

            accounts++;
        }

        if (accounts == 0)
        {
            return;
        }

        CompactSlots(t);
        trade.State = TradeState.Cleared;
        trade.ClearedDay = _day;
        RemoveAge(t);
        _openTrades--;
        _counters.Cleared++;
        try
        {
            sink.OnCleared(new ClearedTrade(this, t));
        }
        finally
        {
            // Also when the sink throws: the trade is retained (its IDs) and its records are freed either way.
            Retain(t);
        }
    }

    /// <summary>
    /// Keeps what a late or repeated message of cleared trade <paramref name="t"/> needs (each message's ID, kind,
    /// sender, transaction type, whether it was withdrawn, and the trade's number) in the cleared-ID ring, then
    /// frees the trade and its message records while they are still cached: with a million trades resident, the
    /// rows freed here are the next ones written (the free list is last in, first out). The messages' ID index
    /// entries, written when they came, are pointed at the ring in place, so a lookup still finds them in one
    /// probe; dropping the trade later touches its ring span only (its index entries go stale by their numbers and a
    /// sweep in order removes them: <see cref="DropOldestCleared"/>), not seven records, the trade record and its
    /// trade-key entry. Oldest retained trades are dropped first (counted) when
    /// <see cref="MatcherOptions.ClearedTrades"/> are retained or the ring has no room for this one's IDs.
    /// </summary>
    private void Retain(int t)
    {
        ref var trade = ref _trades[t];
        int ids = _clearedIds.Length == 0 ? 0 : CountIds(ref trade);
        if (ids > 0)
        {
            while (_clearedCount > 0 && (_clearedCount == _clearedRing.Length || _clearedIdCount + ids > _clearedIds.Length))
            {
                _counters.ClearedEvicted++;
                DropOldestCleared();
            }

            if (ids > _clearedIds.Length)
            {
                ids = 0; // more IDs than the whole ring holds: the trade is not retained (counted as dropped)
                _counters.ClearedEvicted++;
            }
        }

        if (ids > 0)
        {
            int first = Wrap(_clearedIdHead + _clearedIdCount, _clearedIds.Length);
            int at = first;
            int idNumber = Wrap(_clearedIdHeadNumber + _clearedIdCount, _clearedIdNumbers);
            long number = trade.Number;
            KeepId(trade.Noe, number, ref at, ref idNumber);
            for (int i = 0; i < trade.SlotCount; i++)
            {
                ref var s = ref trade.Slots[i];
                KeepId(s.Alc, number, ref at, ref idNumber);
                KeepId(s.Npr, number, ref at, ref idNumber);
                KeepId(s.Set, number, ref at, ref idNumber);
            }

            for (int h = trade.History; h >= 0; h = _msgs[h].NextChain)
            {
                KeepId(h, number, ref at, ref idNumber);
            }

            _clearedIdCount += ids;
            _clearedRing[Wrap(_clearedHead + _clearedCount, _clearedRing.Length)] = new ClearedSpan { First = first, Count = ids, ClearedDay = trade.ClearedDay };
            _clearedCount++;

            // The next retained trade's IDs go to the entries after these, last written a whole ring ago (cold when
            // many trades are kept): fetched now, so that its writes do not wait for them.
            PrefetchClearedIds(at, 8);
        }

        FreeTrade(t, idsKept: ids > 0);
    }

    /// <summary>The IDs cleared trade <paramref name="trade"/> keeps: its live messages and its history.</summary>
    private int CountIds(ref TradeRecord trade)
    {
        int n = trade.Noe >= 0 ? 1 : 0;
        for (int i = 0; i < trade.SlotCount; i++)
        {
            ref var s = ref trade.Slots[i];
            n += (s.Alc >= 0 ? 1 : 0) + (s.Npr >= 0 ? 1 : 0) + (s.Set >= 0 ? 1 : 0);
        }

        for (int h = trade.History; h >= 0; h = _msgs[h].NextChain)
        {
            n++;
        }

        return n;
    }

    /// <summary>Writes message <paramref name="message"/>'s ID entry at ring position <paramref name="at"/>, numbered <paramref name="idNumber"/> (then the next ones).</summary>
    private void KeepId(int message, long tradeNumber, ref int at, ref int idNumber)
    {
        if (message < 0)
        {
            return;
        }

        ref var msg = ref _msgs[message];
        ref var e = ref _clearedIds[at];
        e.Id = msg.Id;
        e.Kind = msg.Kind;
        e.Trans = msg.Trans;
        e.Withdrawn = msg.State == RecordState.History;
        e.Sender = msg.Sender;
        e.IdHash = msg.IdHash;
        e.TradeNumber = tradeNumber;

        // Its ID index entry (cached: written when the message came, a few dozen messages ago) now points at the ring.
        _idIndex.Replace(msg.IdHash, message, _msgs.Length + idNumber);
        if (++at == _clearedIds.Length)
        {
            at = 0;
        }

        if (++idNumber == _clearedIdNumbers)
        {
            idNumber = 0;
        }
    }

    /// <summary>
    /// Cleared-ID ring entries for <paramref name="clearedTrades"/> retained trades: eight each (seven messages and
    /// room for history) and <see cref="ClearedIdMargin"/> more, so that one trade with a long history fits a small ring.
    /// </summary>
    internal static int ClearedIdCapacity(int clearedTrades) =>
        clearedTrades <= 0 ? 0 : (int)Math.Min(Array.MaxLength / 2, clearedTrades * 8L + ClearedIdMargin);

    /// <summary>Cleared-ID ring entries beyond eight per retained trade.</summary>
    internal const int ClearedIdMargin = 64;

    private void ExpireTrade<TSink>(int t, ref TSink sink)
        where TSink : IMatchSink
    {
        ref var trade = ref _trades[t];

        // What the trade still lacks, told with each of its messages.
        var f = Failure.Of(ExceptionReason.Expired, Criterion.Quantity, 32, FailureValue.Number, trade.Allocated, trade.Noe >= 0 ? _msgs[trade.Noe].Quantity : 0);
        if (trade.Noe >= 0 && trade.Allocated == _msgs[trade.Noe].Quantity)
        {
            f = Failure.Of(ExceptionReason.Expired, Criterion.Account, 79, FailureValue.None);
            for (int i = 0; i < trade.SlotCount; i++)
            {
                ref var s = ref trade.Slots[i];
                if (s.Account >= 0 && (s.Alc < 0 || s.Npr < 0 || s.Set < 0))
                {
                    f = Failure.Of(ExceptionReason.Expired, s.Set < 0 ? Criterion.PlaceOfSettlement : Criterion.Account, s.Set < 0 ? 448 : 79, FailureValue.Account, s.Account);
                    break;
                }
            }
        }

        f.TradeNumber = trade.Number;
        _counters.Expired++;
        if (trade.Noe >= 0)
        {
            RecordException(trade.Noe, ref f, ref sink);
        }

        for (int i = 0; i < trade.SlotCount; i++)
        {
            ref var s = ref trade.Slots[i];
            if (s.Alc >= 0)
            {
                RecordException(s.Alc, ref f, ref sink);
            }

            if (s.Npr >= 0)
            {
                RecordException(s.Npr, ref f, ref sink);
            }

            if (s.Set >= 0)
            {
                RecordException(s.Set, ref f, ref sink);
            }
        }

        FreeTrade(t); // still open: FreeTrade takes it off the age list and its slots off the awaiting-SET chains
    }

    // ---- table operations -----------------------------------------------------------------------------------------

    private int NewTrade(uint key, ref MessageRecord m)
    {
        if (_freeTrade < 0 || _openTrades >= _options.OpenTrades)
        {
            return -1;
        }

        int t = _freeTrade;
        ref var trade = ref _trades[t];
        _freeTrade = trade.NextFree;
        trade = default;
        trade.State = TradeState.Open;
        trade.KeyHash = key;
        trade.Im = m.Im;
        trade.Eb = m.Eb;
        trade.Side = m.Side;
        trade.Security = m.Security;
        trade.TradeDate = m.TradeDate;
        trade.Noe = -1;
        trade.History = -1;
        trade.Number = ++_nextTradeNumber;
        trade.OpenedDay = _day;
        _tradeIndex.Add(key, t);
        trade.PrevAge = _newestOpen;
        trade.NextAge = -1;
        if (_newestOpen >= 0)
        {
            _trades[_newestOpen].NextAge = t;
        }
        else
        {
            _oldestOpen = t;
        }

        _newestOpen = t;
        _openTrades++;
        return t;
    }

    /// <summary>Stores the message being processed in trade <paramref name="t"/> (a new account slot when <paramref name="slot"/> is -1).</summary>
    private bool Join<TSink>(int t, int slot, in MatchInput input, ref TSink sink)
        where TSink : IMatchSink
    {
        ref var m = ref _msgs[_current];
        int mi = AllocMessage();
        if (mi < 0)
        {
            TableFull(in input, ref sink);
            return false;
        }

        ref var trade = ref _trades[t];
        _msgs[mi].Trade = t;
        if (m.Kind == MessageKind.Noe)
        {
            SetNoe(ref trade, mi);
            return true;
        }

        bool created = slot < 0;
        if (created)
        {
            slot = OpenSlot(t, m.Account);
        }

        ref var s = ref trade.Slots[slot];
        if (m.Kind == MessageKind.Alc)
        {
            s.Alc = mi;
            trade.Allocated += m.Quantity;
        }
        else
        {
            s.Npr = mi;
        }

        if (created)
        {
            // A SET that came first waits for this account: take the newest that agrees, else wait for one.
            uint key = m.AccountHash; // the trade's key fields and this account: the message's own
            int pending = -1;
            for (int p = _accountBuckets[PendingHead(key)]; p >= 0; p = _msgs[p].NextChain)
            {
                ref var candidate = ref _msgs[p];
                if (candidate.Im == trade.Im && candidate.Eb == trade.Eb && candidate.Side == trade.Side && candidate.Account == s.Account &&
                    SetFits(ref s, ref candidate, out _))
                {
                    pending = p;
                    break;
                }
            }

            if (pending >= 0)
            {
                RemovePending(pending);
                AttachSet(t, slot, pending);
            }
            else
            {
                AddAwaiting(t * MaxAccounts + slot, key);
            }
        }

        return true;
    }

    /// <summary>Makes <paramref name="noe"/> the trade's NOE, with the copy of the values later messages are compared with.</summary>
    private void SetNoe(ref TradeRecord trade, int noe)
    {
        ref var msg = ref _msgs[noe];
        trade.Noe = noe;
        trade.NoeQuantity = msg.Quantity;
        trade.NoeRoundedPrice = msg.RoundedPrice;
        trade.NoeSettlDate = msg.SettlDate;
        trade.NoeCurrency = msg.Currency;
        trade.NoeHasSettlDate = msg.Has(InputFields.SettlDate);
    }

    private void AttachSet(int t, int slot, int set)
    {
        _trades[t].Slots[slot].Set = set;
        _msgs[set].State = RecordState.Live;
        _msgs[set].Trade = t;
    }

    private int OpenSlot(int t, int account)
    {
        ref var trade = ref _trades[t];
        int slot = -1;
        for (int i = 0; i < trade.SlotCount; i++)
        {
            if (trade.Slots[i].Account < 0)
            {
                slot = i;
                break;
            }
        }

        if (slot < 0)
        {
            slot = trade.SlotCount++;
        }

        trade.Slots[slot] = new AccountSlot { Account = account, Alc = -1, Npr = -1, Set = -1, NextAwaiting = -1 };
        return slot;
    }

    /// <summary>Takes message <paramref name="target"/> out of its trade (or the waiting SETs); a SET left without its account's ALC and NPR waits again.</summary>
    private void Detach(int target)
    {
        ref var msg = ref _msgs[target];
        if (msg.State == RecordState.Pending)
        {
            RemovePending(target);
            return;
        }

        int t = msg.Trade;
        ref var trade = ref _trades[t];
        if (msg.Kind == MessageKind.Noe)
        {
            trade.Noe = -1;
            return;
        }

        int slot = SlotOf(t, msg.Account);
        ref var s = ref trade.Slots[slot];
        switch (msg.Kind)
        {
            case MessageKind.Alc:
                s.Alc = -1;
                trade.Allocated -= msg.Quantity;
                break;
            case MessageKind.Npr:
                s.Npr = -1;
                break;
            default:
                s.Set = -1;
                if (s.Alc >= 0 || s.Npr >= 0)
                {
                    AddAwaiting(t * MaxAccounts + slot, AccountKey(trade.Im, trade.Eb, trade.Side, s.Account));
                }

                break;
        }

        if (s.Alc < 0 && s.Npr < 0)
        {
            if (s.Set < 0)
            {
                RemoveAwaiting(t * MaxAccounts + slot);
            }
            else
            {
                int set = s.Set;
                AddPending(set, AccountKey(trade.Im, trade.Eb, trade.Side, s.Account));
            }

            s.Account = -1;
        }
    }

    /// <summary>Puts replacement <paramref name="mi"/> where <paramref name="target"/> was.</summary>
    private void Substitute(int t, int target, int mi)
    {
        ref var trade = ref _trades[t];
        ref var old = ref _msgs[target];
        _msgs[mi].Trade = t;
        if (old.Kind == MessageKind.Noe)
        {
            SetNoe(ref trade, mi);
            return;
        }

        ref var s = ref trade.Slots[SlotOf(t, old.Account)];
        switch (old.Kind)
        {
            case MessageKind.Alc:
                s.Alc = mi;
                trade.Allocated += _msgs[mi].Quantity - old.Quantity;
                break;
            case MessageKind.Npr:
                s.Npr = mi;
                break;
            default:
                s.Set = mi;
                break;
        }
    }

    private void ToHistory(int message, int trade)
    {
        ref var msg = ref _msgs[message];
        if (trade < 0)
        {
            Withdrawn(message); // a waiting SET's: no trade to keep it with
            return;
        }

        msg.State = RecordState.History;
        msg.Trade = trade;
        msg.NextChain = _trades[trade].History;
        _trades[trade].History = message;
    }

    /// <summary>Moves trade <paramref name="t"/>'s history (replaced and cancelled messages, cancels) to the withdrawn IDs.</summary>
    private void KeepWithdrawn(int t)
    {
        ref var trade = ref _trades[t];
        for (int h = trade.History; h >= 0;)
        {
            int next = _msgs[h].NextChain;
            Withdrawn(h);
            h = next;
        }

        trade.History = -1;
    }

    /// <summary>
    /// Keeps a withdrawn message that belongs to no trade (its ID answers duplicates and refuses references) until
    /// <see cref="MatcherOptions.ExpiryBusinessDays"/> business days have passed (oldest first, in a FIFO through NextChain).
    /// </summary>
    private void Withdrawn(int message)
    {
        ref var msg = ref _msgs[message];
        msg.State = RecordState.History;
        msg.Trade = -1;
        msg.OpenedDay = _day;
        msg.NextChain = -1;
        if (_newestWithdrawn >= 0)
        {
            _msgs[_newestWithdrawn].NextChain = message;
        }
        else
        {
            _oldestWithdrawn = message;
        }

        _newestWithdrawn = message;
    }

    private bool IsEmpty(int t)
    {
        ref var trade = ref _trades[t];
        if (trade.Noe >= 0)
        {
            return false;
        }

        for (int i = 0; i < trade.SlotCount; i++)
        {
            if (trade.Slots[i].Account >= 0)
            {
                return false;
            }
        }

        return true;
    }

    /// <summary>Moves used slots to the front (before a trade is reported), so accounts 0..n-1 are the allocations.</summary>
    private void CompactSlots(int t)
    {
        ref var trade = ref _trades[t];
        int n = 0;
        for (int i = 0; i < trade.SlotCount; i++)
        {
            if (trade.Slots[i].Account >= 0)
            {
                trade.Slots[n++] = trade.Slots[i];
            }
        }

        trade.SlotCount = n;
    }

    /// <summary>Frees trade <paramref name="t"/> and its messages; <paramref name="idsKept"/>: their ID entries were pointed at the cleared-ID ring (<see cref="Retain"/>) and stay.</summary>
    private void FreeTrade(int t, bool idsKept = false)
    {
        ref var trade = ref _trades[t];

        // Its messages leave the ID index: fetch all their entries first, so the misses overlap.
        if (!idsKept)
        {
            PrefetchMessages(ref trade, idEntries: true);
        }

        _tradeIndex.Prefetch(trade.KeyHash);
        if (trade.State == TradeState.Open)
        {
            RemoveAge(t);
            _openTrades--;
        }

        if (trade.Noe >= 0)
        {
            FreeMessage(trade.Noe, idsKept);
        }

        for (int i = 0; i < trade.SlotCount; i++)
        {
            ref var s = ref trade.Slots[i];
            if (s.Account < 0)
            {
                continue;
            }

            if (s.Set < 0 && trade.State == TradeState.Open)
            {
                RemoveAwaiting(t * MaxAccounts + i);
            }

            FreeIf(s.Alc, idsKept);
            FreeIf(s.Npr, idsKept);
            FreeIf(s.Set, idsKept);
        }

        for (int h = trade.History; h >= 0;)
        {
            int next = _msgs[h].NextChain;
            FreeMessage(h, idsKept);
            h = next;
        }

        _tradeIndex.Remove(trade.KeyHash, t);
        trade.State = TradeState.Free; // NewTrade clears the rest
        trade.NextFree = _freeTrade;
        _freeTrade = t;
    }

    /// <summary>Starts fetching, for every message of <paramref name="trade"/>, its ID index entry or (<paramref name="idEntries"/> false) its record.</summary>
    private void PrefetchMessages(ref TradeRecord trade, bool idEntries)
    {
        PrefetchMessage(trade.Noe, idEntries);
        for (int i = 0; i < trade.SlotCount; i++)
        {
            ref var s = ref trade.Slots[i];
            PrefetchMessage(s.Alc, idEntries);
            PrefetchMessage(s.Npr, idEntries);
            PrefetchMessage(s.Set, idEntries);
        }
    }

    private void PrefetchMessage(int message, bool idEntry)
    {
        if (idEntry)
        {
            PrefetchIdEntry(message);
        }
        else
        {
            PrefetchRecord(message);
        }
    }

    private void PrefetchRecord(int message)
    {
        if (message >= 0)
        {
            ref var msg = ref _msgs[message];
            Prefetcher.Touch(ref msg.State);
            Prefetcher.Touch(ref msg.IdHash);
        }
    }

    private void PrefetchIdEntry(int message)
    {
        if (message >= 0)
        {
            _idIndex.Prefetch(_msgs[message].IdHash);
        }
    }

    private void FreeIf(int message, bool idKept)
    {
        if (message >= 0)
        {
            FreeMessage(message, idKept);
        }
    }

    /// <summary>Drops the oldest retained cleared trade: its IDs leave the ring (their index entries go stale, swept later).</summary>
    private void DropOldestCleared()
    {
        var span = _clearedRing[_clearedHead];
        _clearedHead = Wrap(_clearedHead + 1, _clearedRing.Length);
        _clearedCount--;
        _clearedIdHead = Wrap(span.First + span.Count, _clearedIds.Length);
        _clearedIdHeadNumber = Wrap(_clearedIdHeadNumber + span.Count, _clearedIdNumbers);
        _clearedIdCount -= span.Count;

        // The dropped IDs' numbers have left the live window, so their index entries are stale as they stand (a
        // lookup passes them by: FindId): not removed one by one, a random access each (with a million open trades
        // a cache miss and a page walk each: 22-27 ns a message, docs/matching.md), but swept in order, a few entries for each ID
        // dropped; ClearedIdNumbers makes the sweep pass every entry before a dropped ID's number comes round again.
        _sweepOwed += span.Count * _sweepPerClearedId;
        if (_sweepOwed >= SweepBatch)
        {
            int entries = (_sweepOwed + 7) & ~7;
            _sweepOwed -= entries;
            _idSweep = _idIndex.Sweep(_idSweep, entries,
                new RowWindow(_msgs.Length, _clearedIdNumbers, _clearedIdHeadNumber, _clearedIdCount));
        }
    }

    /// <summary>
    /// ID index entries a sweep passes at least (what the drops owe, <see cref="ClearedIdNumbers"/>, gathered until
    /// there are this many): one page translation and a few lines each 1 KB instead of each trade dropped, -3 to
    /// -7 ns a message measured; 1,024 level with it, and it keeps the matcher thread's pauses short.
    /// </summary>
    internal const int SweepBatch = 256;

    /// <summary>A ring position: <paramref name="sum"/> (of a position and a count, each under <paramref name="length"/>) modulo the ring's length, without a division.</summary>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    private static int Wrap(int sum, int length) => sum >= length ? sum - length : sum;

    /// <summary>Starts loading <paramref name="count"/> cleared-ID ring entries from <paramref name="at"/> (a hint: their lines).</summary>
    private void PrefetchClearedIds(int at, int count)
    {
        var ids = _clearedIds;
        for (int i = 0; i < count; i++)
        {
            // The hash lies near the end of an entry: touching it in each of consecutive entries reaches every line.
            Prefetcher.Touch(ref ids[at].IdHash);
            if (++at == ids.Length)
            {
                at = 0;
            }
        }
    }

    /// <summary>Stores the message being processed in the row it was resolved into; -1 when no row was free.</summary>
    private int AllocMessage()
    {
        int mi = _claimed;
        if (mi < 0)
        {
            return -1;
        }

        _claimed = -1;
        ref var msg = ref _msgs[mi];
        msg.State = RecordState.Live;
        msg.Trade = -1;
        msg.NextChain = -1;
        msg.OpenedDay = _day;
        _idIndex.Add(msg.IdHash, mi);
        return mi;
    }

    /// <summary>Gives row <paramref name="mi"/> back to the free list; its ID leaves the index unless <paramref name="idKept"/> (then the entry points elsewhere already).</summary>
    private void FreeMessage(int mi, bool idKept = false)
    {
        ref var msg = ref _msgs[mi];
        if (!idKept)
        {
            _idIndex.Remove(msg.IdHash, mi);
        }

        // Only the links: Resolve overwrites the content, and clearing ~200 cold bytes per message would cost
        // more cache misses than the rest of freeing it.
        msg.State = RecordState.Free;
        msg.Trade = -1;
        msg.NextChain = _freeMsg;
        _freeMsg = mi;
    }

    /// <summary>
    /// The stored message with this ID (kind, sender, ID): a row of the message table, or, for a message of a retained
    /// cleared trade, <c>_msgs.Length</c> + its position in the cleared-ID ring; -1 when none.
    /// </summary>
    private int FindId(MessageKind kind, int sender, ReadOnlySpan<byte> id, uint hash)
    {
        int position = _idIndex.Start(hash);
        int rows = _msgs.Length;
        for (int p = _idIndex.Next(hash, ref position); p >= 0; p = _idIndex.Next(hash, ref position))
        {
            if (p < rows)
            {
                ref var msg = ref _msgs[p];
                if (msg.Kind == kind && msg.Sender == sender && msg.Id.Span.SequenceEqual(id))
                {
                    return p;
                }
            }
            else
            {
                // A number outside the ring's live window: a dropped ID whose entry a sweep has not reached yet.
                int at = ClearedIdPosition(p - rows);
                if (at >= 0)
                {
                    ref var e = ref _clearedIds[at];
                    if (e.Kind == kind && e.Sender == sender && e.Id.Span.SequenceEqual(id))
                    {
                        return rows + at;
                    }
                }
            }
        }

        return -1;
    }

    /// <summary>The hash ID index row <paramref name="row"/> was added under (the index asks for it rarely and only for a live row: <see cref="HashIndex"/>).</summary>
    private uint IdHashOfRow(int row) => row < _msgs.Length ? _msgs[row].IdHash : _clearedIds[ClearedIdPosition(row - _msgs.Length)].IdHash;

    /// <summary>True for the ID index row of an ID dropped from the cleared-ID ring (its entry waits for a sweep).</summary>
    private bool IsStaleRow(int row) => row >= _msgs.Length && ClearedIdPosition(row - _msgs.Length) < 0;

    /// <summary>The ring position of the cleared ID numbered <paramref name="number"/>, or -1 when that number is not in the ring now.</summary>
    private int ClearedIdPosition(int number)
    {
        int d = number - _clearedIdHeadNumber;
        if (d < 0)
        {
            d += _clearedIdNumbers;
        }

        return d < _clearedIdCount ? Wrap(_clearedIdHead + d, _clearedIds.Length) : -1;
    }

    /// <summary>The transaction type of what <see cref="FindId"/> found.</summary>
    private TransType TransOf(int found) => found < _msgs.Length ? _msgs[found].Trans : _clearedIds[found - _msgs.Length].Trans;

    private void AddPending(int mi, uint key)
    {
        ref var msg = ref _msgs[mi];
        msg.State = RecordState.Pending;
        msg.Trade = -1;
        int head = PendingHead(key);
        msg.NextChain = _accountBuckets[head];
        _accountBuckets[head] = mi;
        msg.PrevAge = _newestPending;
        msg.NextAge = -1;
        if (_newestPending >= 0)
        {
            _msgs[_newestPending].NextAge = mi;
        }
        else
        {
            _oldestPending = mi;
        }

        _newestPending = mi;
    }

    private void RemovePending(int mi)
    {
        ref var msg = ref _msgs[mi];
        int head = PendingHead(msg.AccountHash);
        if (_accountBuckets[head] == mi)
        {
            _accountBuckets[head] = msg.NextChain;
        }
        else
        {
            for (int p = _accountBuckets[head]; p >= 0; p = _msgs[p].NextChain)
            {
                if (_msgs[p].NextChain == mi)
                {
                    _msgs[p].NextChain = msg.NextChain;
                    break;
                }
            }
        }

        if (msg.PrevAge >= 0)
        {
            _msgs[msg.PrevAge].NextAge = msg.NextAge;
        }
        else
        {
            _oldestPending = msg.NextAge;
        }

        if (msg.NextAge >= 0)
        {
            _msgs[msg.NextAge].PrevAge = msg.PrevAge;
        }
        else
        {
            _newestPending = msg.PrevAge;
        }

        msg.NextChain = -1;
        msg.PrevAge = msg.NextAge = -1;
        msg.State = RecordState.Live;
    }

    /// <summary>
    /// Slots awaiting a SET, per bucket, as a circle in arrival order: the bucket holds the newest, whose
    /// <see cref="AccountSlot.NextAwaiting"/> is the oldest (a slot alone points to itself; -1: not waiting). A SET
    /// takes the oldest slot that fits, found from the front; the chain was a list from the newest, so every SET
    /// walked all the slots of its account that waited, and slots whose SET never comes (refused, lost) wait until
    /// they expire: after a stall the service's refusals made those chains thousands long and the matcher spent its
    /// time walking them (docs/performance.md).
    /// </summary>
    private void AddAwaiting(int entry, uint key)
    {
        int head = AwaitingHead(key);
        int newest = _accountBuckets[head];
        ref var slot = ref SlotRef(entry);
        if (newest < 0)
        {
            slot.NextAwaiting = entry;
        }
        else
        {
            ref var last = ref SlotRef(newest);
            slot.NextAwaiting = last.NextAwaiting;
            last.NextAwaiting = entry;
        }

        _accountBuckets[head] = entry;
    }

    /// <summary>Takes a slot out of its awaiting chain, if it is in one (the walk: from the oldest to it).</summary>
    private void RemoveAwaiting(int entry)
    {
        ref var trade = ref _trades[entry / MaxAccounts];
        ref var slot = ref SlotRef(entry);
        if (slot.NextAwaiting < 0)
        {
            return;
        }

        int head = AwaitingHead(AccountKey(trade.Im, trade.Eb, trade.Side, slot.Account));
        int newest = _accountBuckets[head];
        for (int before = newest; before >= 0;)
        {
            int next = SlotRef(before).NextAwaiting;
            if (next == entry)
            {
                UnlinkAwaiting(head, before, entry);
                return;
            }

            before = next == newest ? -1 : next;
        }

        slot.NextAwaiting = -1; // not in its bucket's chain (cannot happen): forgotten rather than walked forever
    }

    /// <summary>Takes <paramref name="entry"/> out of the chain of <paramref name="head"/>, where <paramref name="before"/> points to it.</summary>
    private void UnlinkAwaiting(int head, int before, int entry)
    {
        ref var slot = ref SlotRef(entry);
        if (slot.NextAwaiting == entry)
        {
            _accountBuckets[head] = -1; // it was alone
        }
        else
        {
            SlotRef(before).NextAwaiting = slot.NextAwaiting;
            if (_accountBuckets[head] == entry)
            {
                _accountBuckets[head] = before;
            }
        }

        slot.NextAwaiting = -1;
    }

    private void RemoveAge(int t)
    {
        ref var trade = ref _trades[t];
        if (trade.PrevAge >= 0)
        {
            _trades[trade.PrevAge].NextAge = trade.NextAge;
        }
        else
        {
            _oldestOpen = trade.NextAge;
        }

        if (trade.NextAge >= 0)
        {
            _trades[trade.NextAge].PrevAge = trade.PrevAge;
        }
        else
        {
            _newestOpen = trade.PrevAge;
        }

        trade.PrevAge = trade.NextAge = -1;
    }

    private ref AccountSlot SlotRef(int entry) => ref _trades[entry / MaxAccounts].Slots[entry % MaxAccounts];

    private int SlotOf(int t, int account)
    {
        ref var trade = ref _trades[t];
        for (int i = 0; i < trade.SlotCount; i++)
        {
            if (trade.Slots[i].Account == account)
            {
                return i;
            }
        }

        return -1;
    }

    private bool HasFreeSlot(int t)
    {
        ref var trade = ref _trades[t];
        if (trade.SlotCount < MaxAccounts)
        {
            return true;
        }

        for (int i = 0; i < trade.SlotCount; i++)
        {
            if (trade.Slots[i].Account < 0)
            {
                return true;
            }
        }

        return false;
    }

    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    private int PendingHead(uint accountKey) => (int)(accountKey & _accountMask) * 2;

    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    private int AwaitingHead(uint accountKey) => (int)(accountKey & _accountMask) * 2 + 1;

    private static int[] Buckets(int capacity)
    {
        var buckets = LargeTables.Allocate<int>((int)BitOperations.RoundUpToPowerOf2((uint)Math.Max(capacity, 16)));
        Array.Fill(buckets, -1);
        return buckets;
    }

    // ---- keys and hashes (deterministic: no process-randomised hashing) ------------------------------------------

    private static uint TradeKey(int im, int eb, byte side, int security, int tradeDate) =>
        Mix((uint)im, (uint)eb, ((uint)side << 24) ^ (uint)tradeDate, (uint)security);

    private static uint AccountKey(int im, int eb, byte side, int account) =>
        Mix((uint)im, (uint)eb, side, (uint)account) ^ 0x5bd1e995u;

    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    private static uint Mix(uint a, uint b, uint c, uint d)
    {
        ulong h = (a * 0x9E3779B97F4A7C15UL) ^ (b + 0x632BE59BD9B4E019UL);
        h = (h ^ (h >> 29)) * 0xBF58476D1CE4E5B9UL ^ c;
        h = (h ^ (h >> 31)) * 0x94D049BB133111EBUL ^ d;
        h ^= h >> 32;
        return (uint)(h * 0x9E3779B97F4A7C15UL >> 32);
    }

    /// <summary>
    /// The ID index's hash: kind, the sender's ID bytes (so it is known before static data is consulted) and the ID,
    /// ended by a full 64-bit finaliser (murmur3's fmix64). The index takes its probe start from the low bits: IDs
    /// that differ only in a few digits left those bits so alike that a million IDs piled into clusters (a mean
    /// displacement of 6.5 entries at half load instead of 0.5, an unsuccessful lookup scanning 10 entries, two
    /// cache lines, instead of 2.3), and every lookup, add and removal walked them.
    /// </summary>
    internal static uint IdHash(MessageKind kind, ReadOnlySpan<byte> sender, ReadOnlySpan<byte> id)
    {
        ulong h = Words(((ulong)kind << 56) ^ (ulong)sender.Length, sender);
        h = Words(h ^ ((ulong)id.Length * 0x632BE59BD9B4E019UL), id);
        h = (h ^ (h >> 33)) * 0xFF51AFD7ED558CCDUL;
        h = (h ^ (h >> 33)) * 0xC4CEB9FE1A85EC53UL;
        h ^= h >> 33;
        return (uint)h;
    }

    // Eight bytes at a time (the bytes of a short tail packed the way Key16 packs them).
    private static ulong Words(ulong h, ReadOnlySpan<byte> bytes)
    {
        while (bytes.Length >= 8)
        {
            h = (h ^ System.Buffers.Binary.BinaryPrimitives.ReadUInt64LittleEndian(bytes)) * 0x9E3779B97F4A7C15UL;
            h ^= h >> 29;
            bytes = bytes[8..];
        }

        if (bytes.Length > 0)
        {
            h = (h ^ Key16.Load8(bytes)) * 0xBF58476D1CE4E5B9UL;
            h ^= h >> 31;
        }

        return h;
    }

    /// <summary>Gives message <paramref name="m"/> its trade and account keys (those Prepare computed, when it did).</summary>
    private void SetKeys(ref MessageRecord m, ref Lookahead ahead)
    {
        // Computed once for the message's lifetime (lookups now, waiting-SET chains later). Prepare computed them for
        // every valid new message and fetched the entry and bucket they lead to; a replace or cancel computes them here.
        if (ahead.KeysReady)
        {
            m.KeyHash = ahead.KeyHash;
            m.AccountHash = ahead.AccountHash;
            return;
        }

        m.KeyHash = TradeKey(m.Im, m.Eb, m.Side, m.Security, m.TradeDate);
        m.AccountHash = AccountKey(m.Im, m.Eb, m.Side, m.Account);
    }

    // ---- answers ------------------------------------------------------------------------------------------------

    private void Accepted<TSink>(in MatchInput input, ref TSink sink)
        where TSink : IMatchSink
    {
        _counters.Accepted++;
        Ack(in input, AckStatus.Accepted, ref sink);
    }

    private static void Ack<TSink>(in MatchInput input, AckStatus status, ref TSink sink)
        where TSink : IMatchSink
    {
        var ack = new MatchAck { Kind = input.Kind, Trans = input.Trans, Status = status, MessageId = input.MessageId, Sender = input.Sender, Isin = input.Isin };
        sink.OnAck(in ack);
    }

    private void TableFull<TSink>(in MatchInput input, ref TSink sink)
        where TSink : IMatchSink
    {
        _counters.TableFull++;
        var f = Failure.Of(ExceptionReason.TableFull, Criterion.None, 0, FailureValue.None);
        Reject(in input, ref f, ref sink);
    }

    private void Reject<TSink>(in MatchInput input, ref Failure f, ref TSink sink)
        where TSink : IMatchSink
    {
        _counters.Rejected++;
        ref var e = ref _exceptions.Add();
        FillException(ref e, in input, ref f);
        var ack = new MatchAck
        {
            Kind = input.Kind, Trans = input.Trans, Status = AckStatus.Rejected, Reason = f.Reason, Criterion = f.Criterion,
            Tag = f.Tag, ExceptionId = e.Id, MessageId = input.MessageId, Sender = input.Sender, Isin = input.Isin,
        };
        sink.OnAck(in ack);
        sink.OnException(in e);
    }

    /// <summary>An exception about a stored message (expiry): its content is rebuilt as input for re-submission.</summary>
    private void RecordException<TSink>(int message, ref Failure f, ref TSink sink)
        where TSink : IMatchSink
    {
        ToInput(ref _msgs[message], ref _input);
        ref var e = ref _exceptions.Add();
        FillException(ref e, in _input, ref f);
        sink.OnException(in e);
    }

    private void FillException(ref MatchException e, in MatchInput input, ref Failure f)
    {
        e.Reason = f.Reason;
        e.Criterion = f.Criterion;
        e.Tag = f.Tag;
        e.Tolerance = f.Tolerance;
        e.Kind = input.Kind;
        e.Trans = input.Trans;
        e.MessageId = input.MessageId;
        e.Sender = input.Sender;
        e.TradeNumber = f.TradeNumber;
        e.BusinessDate = _businessDate;
        e.Input = input;
        if (f.Other >= 0)
        {
            ref var other = ref _msgs[f.Other];
            e.Counterparty.TrySet(_ref.GetParticipant(other.Sender).Id);
            e.CounterpartyKind = other.Kind;
            e.CounterpartyMessageId = other.Id;
            e.TradeNumber = other.Trade >= 0 ? _trades[other.Trade].Number : 0;
        }

        Span<byte> text = stackalloc byte[Bytes32.Capacity];
        e.Value.SetTruncated(text[..FormatValue(f.Kind, f.Value, in input, f.Criterion, text)]);
        if (f.HasExpected)
        {
            e.Expected.SetTruncated(text[..FormatValue(f.Kind, f.Expected, in input, Criterion.None, text)]);
        }
    }

    private int FormatValue(FailureValue kind, long value, in MatchInput input, Criterion criterion, Span<byte> text)
    {
        switch (kind)
        {
            case FailureValue.Number:
                return Scaled.Format(value, text);
            case FailureValue.Integer:
                return System.Buffers.Text.Utf8Formatter.TryFormat(value, text, out int n) ? n : 0;
            case FailureValue.Currency:
                return Codes.WriteCurrency((int)value, text);
            case FailureValue.Place:
                return Copy(_ref.PlaceId((int)value), text);
            case FailureValue.Account:
                return Copy(_ref.AccountId((int)value), text);
            case FailureValue.Text:
                var source = criterion switch
                {
                    Criterion.Security => input.Isin.Span,
                    Criterion.Account => input.Account.Span,
                    Criterion.PlaceOfSettlement => input.Place.Span,
                    Criterion.ExecutingBroker => input.ExecutingBroker.Span,
                    Criterion.InvestmentManager => input.InvestmentManager.Span,
                    _ => input.Sender.Span,
                };
                return Copy(source, text);
            default:
                return 0;
        }
    }

    private static int Copy(ReadOnlySpan<byte> source, Span<byte> destination)
    {
        int n = Math.Min(source.Length, destination.Length);
        source[..n].CopyTo(destination);
        return n;
    }

    /// <summary>A stored message back as input (IDs from static data, commission as an absolute amount).</summary>
    private void ToInput(ref MessageRecord r, ref MatchInput input)
    {
        input = default;
        input.Kind = r.Kind;
        input.Trans = TransType.New;
        input.Side = r.Side;
        input.Present = r.Present;
        input.Id = r.Id;
        input.MessageId = r.Id;
        input.Isin = r.Isin;
        input.Sender.TrySet(_ref.GetParticipant(r.Sender).Id);
        input.InvestmentManager.TrySet(_ref.GetParticipant(r.Im).Id);
        input.ExecutingBroker.TrySet(_ref.GetParticipant(r.Eb).Id);
        if (r.Account >= 0)
        {
            input.Account.TrySet(_ref.AccountId(r.Account));
        }

        if (r.Place >= 0)
        {
            input.Place.TrySet(_ref.PlaceId(r.Place));
        }

        input.Currency = r.Currency >= 0 ? _ref.CurrencyCode(r.Currency) : 0;
        input.SettlCurrency = r.SettlCurrency >= 0 ? _ref.CurrencyCode(r.SettlCurrency) : 0;
        input.CommType = r.Has(InputFields.Commission) ? (byte)'3' : (byte)0;
        input.TradeDate = r.TradeDate;
        input.SettlDate = r.SettlDate;
        input.Quantity = r.Quantity;
        input.Price = r.Price;
        input.Gross = r.Gross;
        input.Commission = r.Commission;
        input.Fees = r.Fees;
        input.Tax = r.Tax;
        input.Accrued = r.Accrued;
        input.Net = r.Net;
        input.SettlAmount = r.SettlAmount;
        input.FxRate = r.FxRate;
    }

    private bool Mismatch(out Failure f, Criterion criterion, int tag, FailureValue kind, long value, long expected, Tolerance tolerance, ref MessageRecord other)
    {
        f = Failure.Of(ExceptionReason.Mismatch, criterion, tag, kind, value, expected, tolerance);
        f.Other = (int)Unsafe.ByteOffset(ref _msgs[0], ref other) / Unsafe.SizeOf<MessageRecord>();
        return false;
    }

    private static bool Fail(out Failure f, ExceptionReason reason, Criterion criterion, int tag, FailureValue kind, long value = 0, long? expected = null, Tolerance tolerance = default)
    {
        f = expected.HasValue
            ? Failure.Of(reason, criterion, tag, kind, value, expected.Value, tolerance)
            : Failure.Of(reason, criterion, tag, kind, value);
        return false;
    }

    private static int IdTag(MessageKind kind) => kind switch
    {
        MessageKind.Noe => 571,
        MessageKind.Alc => 70,
        MessageKind.Npr => 664,
        _ => 162,
    };

    private static int RefTag(MessageKind kind) => kind switch
    {
        MessageKind.Noe => 572,
        MessageKind.Alc => 72,
        MessageKind.Npr => 772,
        _ => 214,
    };

    private static int PriceTag(MessageKind kind) => kind == MessageKind.Noe ? 31 : 6;

    private static Criterion CriterionOfTag(int tag) => tag switch
    {
        75 => Criterion.TradeDate,
        64 => Criterion.SettlementDate,
        48 or 22 => Criterion.Security,
        54 => Criterion.Side,
        15 => Criterion.TradeCurrency,
        32 or 80 => Criterion.Quantity,
        31 or 6 => Criterion.Price,
        381 => Criterion.GrossAmount,
        12 or 13 => Criterion.Commission,
        137 or 139 => Criterion.Fees,
        159 => Criterion.AccruedInterest,
        118 => Criterion.NetAmount,
        120 => Criterion.SettlementCurrency,
        119 or 155 => Criterion.SettlementAmount,
        79 => Criterion.Account,
        _ => Criterion.None,
    };

    private enum FailureValue : byte
    {
        None,
        Number,
        Integer,
        Currency,
        Text,
        Place,
        Account,
    }

    /// <summary>What failed: reason, criterion, tag, both values (their kind says how to show them), tolerance, and the other message.</summary>
    private struct Failure
    {
        public ExceptionReason Reason;
        public Criterion Criterion;
        public int Tag;
        public FailureValue Kind;
        public long Value;
        public long Expected;
        public bool HasExpected;
        public Tolerance Tolerance;
        public int Other;
        public long TradeNumber;

        public static Failure Of(ExceptionReason reason, Criterion criterion, int tag, FailureValue kind, long value = 0) =>
            new() { Reason = reason, Criterion = criterion, Tag = tag, Kind = kind, Value = value, Other = -1 };

        public static Failure Of(ExceptionReason reason, Criterion criterion, int tag, FailureValue kind, long value, long expected, Tolerance tolerance = default) =>
            new() { Reason = reason, Criterion = criterion, Tag = tag, Kind = kind, Value = value, Expected = expected, HasExpected = true, Tolerance = tolerance, Other = -1 };
    }
}
