using System.Buffers.Binary;
using System.Globalization;
using System.Runtime.CompilerServices;
using RapidFix.Engine.Store;
using RapidFix.Matching;

namespace RapidFix.Persistence;

/// <summary>Where a field's value lies in a message: its start and length; <c>default</c> is a field the message lacks.</summary>
internal readonly struct Field(int start, int length)
{
    private readonly int _lengthPlusOne = length + 1; // 0: absent (an empty value is present)

    public int Start { get; } = start;

    public int Length => _lengthPlusOne - 1;

    public bool Has => _lengthPlusOne != 0;

    public ReadOnlySpan<byte> Of(ReadOnlySpan<byte> message) => message.Slice(Start, Length);
}

/// <summary>
/// The fields of a FIX message the persister keeps in columns, as offsets into the message's bytes: no string, no
/// object. The same rules as <see cref="FixFields"/> (which is kept as the reference the encoder is tested against):
/// the first occurrence of a tag wins, the parties are read as (448, 452) pairs, SendingTime and the amounts are
/// those of their first occurrence.
/// </summary>
internal struct FixView
{
    public Field MsgType, SenderCompId, TargetCompId, SendingTime, TradeDate, Isin, Side, Account, Quantity, NetAmount, Currency, SettlDate,
        Text, RefMsgType, RefId, RefSeqNum, RejectCode, Status, ConfirmType, TradeReportId, AllocId, ConfirmId, SettlInstMsgId,
        InvestmentManager, ExecutingBroker;

    public int MsgSeqNum;

    public static void Parse(ReadOnlySpan<byte> message, out FixView f)
    {
        f = default;
        Field partyId = default;
        int start = 0;
        while (start < message.Length)
        {
            int end = message[start..].IndexOf((byte)1);
            int fieldStart = start, fieldLength = end < 0 ? message.Length - start : end;
            start = end < 0 ? message.Length : start + end + 1;
            var field = message.Slice(fieldStart, fieldLength);
            int eq = field.IndexOf((byte)'=');
            if (eq <= 0 || !FixFields.TryTag(field[..eq], out int tag))
            {
                continue;
            }

            var v = new Field(fieldStart + eq + 1, fieldLength - eq - 1);
            switch (tag)
            {
                case 35: First(ref f.MsgType, v); break;
                case 34: if (f.MsgSeqNum == 0) { _ = int.TryParse(field[(eq + 1)..], NumberStyles.None, CultureInfo.InvariantCulture, out f.MsgSeqNum); } break;
                case 49: First(ref f.SenderCompId, v); break;
                case 56: First(ref f.TargetCompId, v); break;
                case 52: First(ref f.SendingTime, v); break;
                case 75: First(ref f.TradeDate, v); break;
                case 48: First(ref f.Isin, v); break;
                case 54: First(ref f.Side, v); break;
                case 79: First(ref f.Account, v); break;
                case 80: First(ref f.Quantity, v); break;
                case 118: First(ref f.NetAmount, v); break;
                case 15: First(ref f.Currency, v); break;
                case 64: First(ref f.SettlDate, v); break;
                case 58: First(ref f.Text, v); break;
                case 372: First(ref f.RefMsgType, v); break;
                case 379: First(ref f.RefId, v); break;
                case 45: First(ref f.RefSeqNum, v); break;
                case 571: First(ref f.TradeReportId, v); break;
                case 70: First(ref f.AllocId, v); break;
                case 664: First(ref f.ConfirmId, v); break;
                case 777: First(ref f.SettlInstMsgId, v); break;
                case 773: First(ref f.ConfirmType, v); break;
                case 939 or 87 or 940: First(ref f.Status, v); break;
                case 751 or 88 or 774 or 380: First(ref f.RejectCode, v); break;
                case 448: partyId = v; break;
                case 452:
                    if (partyId.Has)
                    {
                        var role = field[(eq + 1)..];
                        if (role.SequenceEqual("13"u8))
                        {
                            First(ref f.InvestmentManager, partyId);
                        }
                        else if (role.SequenceEqual("1"u8))
                        {
                            First(ref f.ExecutingBroker, partyId);
                        }
                    }

                    partyId = default;
                    break;
            }
        }
    }

    /// <summary>The participant's own ID of an input (AE 571, J 70, AK 664, T 777).</summary>
    public readonly Field InputId(ReadOnlySpan<byte> message)
    {
        var type = MsgType.Has ? MsgType.Of(message) : default;
        return type.SequenceEqual("AE"u8) ? TradeReportId
            : type.SequenceEqual("J"u8) ? AllocId
            : type.SequenceEqual("AK"u8) ? ConfirmId
            : type.SequenceEqual("T"u8) ? SettlInstMsgId
            : default;
    }

    /// <summary>Whether the message carries a whole matching key (manager, broker, side, ISIN, trade date).</summary>
    public readonly bool HasTradeKey => InvestmentManager.Has && ExecutingBroker.Has && Isin.Has && TradeDate.Has && Side.Has;

    /// <summary>Writes the matching key <c>manager|broker|side|ISIN|YYYYMMDD</c> into <paramref name="into"/> (grown when short); returns its length.</summary>
    public readonly int TradeKey(ReadOnlySpan<byte> message, ref byte[] into)
    {
        int length = InvestmentManager.Length + ExecutingBroker.Length + Side.Length + Isin.Length + TradeDate.Length + 4;
        if (into.Length < length)
        {
            into = new byte[Math.Max(length, into.Length * 2)];
        }

        int at = 0;
        Append(into, ref at, InvestmentManager.Of(message), true);
        Append(into, ref at, ExecutingBroker.Of(message), true);
        Append(into, ref at, Side.Of(message), true);
        Append(into, ref at, Isin.Of(message), true);
        Append(into, ref at, TradeDate.Of(message), false);
        return at;
    }

    private static void Append(byte[] into, ref int at, ReadOnlySpan<byte> part, bool bar)
    {
        part.CopyTo(into.AsSpan(at));
        at += part.Length;
        if (bar)
        {
            into[at++] = (byte)'|';
        }
    }

    /// <summary>A trade date (YYYYMMDD) from its bytes; false when it is not one (what <see cref="FixFields.Date"/> refuses).</summary>
    public static bool TryDate(ReadOnlySpan<byte> yyyymmdd, out DateOnly date)
    {
        date = default;
        if (yyyymmdd.Length != 8)
        {
            return false;
        }

        int year = 0, month = 0, day = 0;
        for (int i = 0; i < 8; i++)
        {
            int d = yyyymmdd[i] - '0';
            if ((uint)d > 9)
            {
                return false;
            }

            if (i < 4)
            {
                year = year * 10 + d;
            }
            else if (i < 6)
            {
                month = month * 10 + d;
            }
            else
            {
                day = day * 10 + d;
            }
        }

        if (year < 1 || month is < 1 or > 12 || day < 1 || day > DateTime.DaysInMonth(year, month))
        {
            return false;
        }

        date = new DateOnly(year, month, day);
        return true;
    }

    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    private static void First(ref Field slot, Field value)
    {
        if (!slot.Has)
        {
            slot = value;
        }
    }
}

/// <summary>A trade an answer refers to, copied out of the <see cref="InputIndex"/>: its parties, its key and its date.</summary>
internal sealed class ResolvedTrade
{
    public byte[] Bytes = new byte[512];
    public int ManagerLength, BrokerLength, KeyLength; // KeyLength -1: the input had no whole key
    public bool HasDate;
    public DateOnly Date;

    public ReadOnlySpan<byte> Manager => Bytes.AsSpan(0, ManagerLength);

    public ReadOnlySpan<byte> Broker => Bytes.AsSpan(ManagerLength, BrokerLength);

    public ReadOnlySpan<byte> Key => KeyLength < 0 ? default : Bytes.AsSpan(ManagerLength + BrokerLength, KeyLength);
}

/// <summary>
/// The inputs' trades by (participant, the participant's message ID), kept as bytes: <see cref="TradeIndex"/>'s
/// rules and its own read-only tail of the input journal (read from the start at startup), with no string and no
/// object an input. One arena of bytes holds the entries (key: participant and ID; value: manager, broker, matching
/// key, trade date); a table of buckets (chained, rehashed when three quarters full) finds them by a hash of the
/// key, checked byte for byte. A later input with the same participant and ID replaces the earlier one (as the
/// dictionary did). Shared by every worker of a persister, under a lock.
/// </summary>
internal sealed class InputIndex : IDisposable
{
    private readonly JournalTail? _tail;
    private readonly object _gate = new();
    private readonly Sink _sink;
    private byte[] _arena = new byte[1 << 20];
    private int _used;
    private int[] _buckets = NewBuckets(1 << 16);
    private int[] _offsets = new int[1 << 16];
    private int[] _next = new int[1 << 16];
    private int[] _hashes = new int[1 << 16];
    private int _count;
    private DateOnly? _businessDate;
    private byte[] _key = new byte[256];

    public InputIndex(string? inputJournal)
    {
        _tail = inputJournal is null ? null : new JournalTail(inputJournal);
        _sink = new Sink(this);
    }

    /// <summary>The business date recorded in the input journal (its first record), once read.</summary>
    public DateOnly? BusinessDate
    {
        get
        {
            lock (_gate)
            {
                return _businessDate;
            }
        }
    }

    public int Count
    {
        get
        {
            lock (_gate)
            {
                return _count;
            }
        }
    }

    /// <summary>Reads what the input journal has now.</summary>
    public void CatchUp()
    {
        lock (_gate)
        {
            CatchUpLocked();
        }
    }

    /// <summary>
    /// The trade of the input <paramref name="participant"/> sent with ID <paramref name="id"/>, copied into
    /// <paramref name="trade"/>; on a miss the input journal is read further first (an answer's input is journalled before it).
    /// </summary>
    public bool TryResolve(ReadOnlySpan<byte> participant, ReadOnlySpan<byte> id, ResolvedTrade trade)
    {
        lock (_gate)
        {
            int hash = Hash(participant, id);
            int entry = Find(hash, participant, id);
            if (entry < 0)
            {
                CatchUpLocked();
                entry = Find(hash, participant, id);
                if (entry < 0)
                {
                    return false;
                }
            }

            // The value follows the key: [u16 manager][u16 broker][i32 key or -1][i32 day number or -1][bytes].
            int at = _offsets[entry];
            at += 4 + BinaryPrimitives.ReadUInt16LittleEndian(_arena.AsSpan(at)) + BinaryPrimitives.ReadUInt16LittleEndian(_arena.AsSpan(at + 2));
            int im = BinaryPrimitives.ReadUInt16LittleEndian(_arena.AsSpan(at)), eb = BinaryPrimitives.ReadUInt16LittleEndian(_arena.AsSpan(at + 2));
            int key = BinaryPrimitives.ReadInt32LittleEndian(_arena.AsSpan(at + 4)), day = BinaryPrimitives.ReadInt32LittleEndian(_arena.AsSpan(at + 8));
            int bytes = im + eb + Math.Max(key, 0);
            if (trade.Bytes.Length < bytes)
            {
                trade.Bytes = new byte[Math.Max(bytes, trade.Bytes.Length * 2)];
            }

            _arena.AsSpan(at + 12, bytes).CopyTo(trade.Bytes);
            trade.ManagerLength = im;
            trade.BrokerLength = eb;
            trade.KeyLength = key;
            trade.HasDate = day >= 0;
            trade.Date = day >= 0 ? DateOnly.FromDayNumber(day) : default;
            return true;
        }
    }

    private void CatchUpLocked()
    {
        if (_tail is null)
        {
            return;
        }

        while (_tail.Poll(_sink, 10_000) > 0)
        {
        }
    }

    /// <summary>Indexes one input journal record as if read from the journal (benchmarks: an index with no journal).</summary>
    internal void AddInput(ReadOnlySpan<byte> payload, int seq)
    {
        lock (_gate)
        {
            Add(payload, seq);
        }
    }

    private void Add(ReadOnlySpan<byte> payload, int seq)
    {
        if (!SenderRecord.TryDecode(payload, out var participant, out long generationOrDate, out var message))
        {
            return;
        }

        if (seq == 1 && participant.Length == 0)
        {
            // The business date: YYYYMMDD as a number.
            Span<byte> digits = stackalloc byte[20];
            if (generationOrDate.TryFormat(digits, out int written, default, CultureInfo.InvariantCulture) &&
                FixView.TryDate(digits[..written], out var business))
            {
                _businessDate = business;
            }

            return;
        }

        FixView.Parse(message, out var f);
        var id = f.InputId(message);
        if (!id.Has || !f.InvestmentManager.Has || !f.ExecutingBroker.Has)
        {
            return;
        }

        var idBytes = id.Of(message);
        var im = f.InvestmentManager.Of(message);
        var eb = f.ExecutingBroker.Of(message);
        int keyLength = f.HasTradeKey ? f.TradeKey(message, ref _key) : -1;
        int day = f.TradeDate.Has && FixView.TryDate(f.TradeDate.Of(message), out var date) ? date.DayNumber : -1;
        if (participant.Length > ushort.MaxValue || idBytes.Length > ushort.MaxValue || im.Length > ushort.MaxValue || eb.Length > ushort.MaxValue)
        {
            return; // cannot be a FIX value the service took; such an answer goes to the home server
        }

        int size = 4 + participant.Length + idBytes.Length + 12 + im.Length + eb.Length + Math.Max(keyLength, 0);
        if (_used + size > _arena.Length)
        {
            Array.Resize(ref _arena, Math.Max(_used + size, _arena.Length * 2));
        }

        int offset = _used;
        var a = _arena.AsSpan(offset, size);
        BinaryPrimitives.WriteUInt16LittleEndian(a, (ushort)participant.Length);
        BinaryPrimitives.WriteUInt16LittleEndian(a[2..], (ushort)idBytes.Length);
        participant.CopyTo(a[4..]);
        idBytes.CopyTo(a[(4 + participant.Length)..]);
        var v = a[(4 + participant.Length + idBytes.Length)..];
        BinaryPrimitives.WriteUInt16LittleEndian(v, (ushort)im.Length);
        BinaryPrimitives.WriteUInt16LittleEndian(v[2..], (ushort)eb.Length);
        BinaryPrimitives.WriteInt32LittleEndian(v[4..], keyLength);
        BinaryPrimitives.WriteInt32LittleEndian(v[8..], day);
        im.CopyTo(v[12..]);
        eb.CopyTo(v[(12 + im.Length)..]);
        if (keyLength > 0)
        {
            _key.AsSpan(0, keyLength).CopyTo(v[(12 + im.Length + eb.Length)..]);
        }

        _used += size;
        int hash = Hash(participant, idBytes);
        int existing = Find(hash, participant, idBytes);
        if (existing >= 0)
        {
            _offsets[existing] = offset; // the later input wins
            return;
        }

        if (_count == _offsets.Length)
        {
            Array.Resize(ref _offsets, _count * 2);
            Array.Resize(ref _next, _count * 2);
            Array.Resize(ref _hashes, _count * 2);
        }

        if (_count >= _buckets.Length / 4 * 3)
        {
            _buckets = NewBuckets(_buckets.Length * 2);
            for (int e = 0; e < _count; e++)
            {
                ref int head = ref _buckets[_hashes[e] & (_buckets.Length - 1)];
                _next[e] = head;
                head = e;
            }
        }

        _offsets[_count] = offset;
        _hashes[_count] = hash;
        ref int bucket = ref _buckets[hash & (_buckets.Length - 1)];
        _next[_count] = bucket;
        bucket = _count;
        _count++;
    }

    private int Find(int hash, ReadOnlySpan<byte> participant, ReadOnlySpan<byte> id)
    {
        for (int e = _buckets[hash & (_buckets.Length - 1)]; e >= 0; e = _next[e])
        {
            if (_hashes[e] != hash)
            {
                continue;
            }

            int at = _offsets[e];
            int p = BinaryPrimitives.ReadUInt16LittleEndian(_arena.AsSpan(at)), i = BinaryPrimitives.ReadUInt16LittleEndian(_arena.AsSpan(at + 2));
            if (_arena.AsSpan(at + 4, p).SequenceEqual(participant) && _arena.AsSpan(at + 4 + p, i).SequenceEqual(id))
            {
                return e;
            }
        }

        return -1;
    }

    private static int Hash(ReadOnlySpan<byte> participant, ReadOnlySpan<byte> id)
    {
        var h = new HashCode();
        h.AddBytes(participant);
        h.Add(participant.Length);
        h.AddBytes(id);
        return h.ToHashCode() & int.MaxValue;
    }

    private static int[] NewBuckets(int size)
    {
        var buckets = new int[size];
        Array.Fill(buckets, -1);
        return buckets;
    }

    public void Dispose()
    {
        lock (_gate)
        {
            _tail?.Dispose();
        }
    }

    private sealed class Sink(InputIndex index) : IJournalRecordSink
    {
        public void OnRecord(long generation, int seq, ReadOnlySpan<byte> payload) => index.Add(payload, seq);
    }
}

/// <summary>What a journal tail hands each new record to, without a copy of its bytes (valid only during the call).</summary>
internal interface IJournalRecordSink
{
    void OnRecord(long generation, int seq, ReadOnlySpan<byte> payload);
}

/// <summary>
/// A batch of journal records encoded once, straight into the binary COPY rows of each table: one arena a table
/// (<see cref="BinaryCopyWriter"/> in arena mode), and per record where its rows end in each arena, so that any run
/// of records (the whole batch, or the halves of a batch split down to a refused record) is one contiguous range of
/// each arena, sent as it is between the COPY header and trailer. The records' keys and raw payloads (for the
/// quarantine) are kept beside them. Made twice per worker at startup (one batch written while the next is read)
/// and reused; the arrays and arenas grow only when a batch is larger than any before.
/// </summary>
internal sealed class EncodedBatch
{
    /// <summary>fix_message, cls, match_exception (the audit trail is columns of fix_message since migration 6).</summary>
    public const int Tables = 3;

    public readonly BinaryCopyWriter[] Rows = new BinaryCopyWriter[Tables];
    public readonly Dictionary<string, (long Generation, int Seq)> Positions = new();

    /// <summary>The trade dates of the batch's messages (the day partitions they need).</summary>
    public readonly HashSet<DateOnly> Days = new();

    private readonly int[][] _ends = new int[Tables][];
    private readonly int[][] _rowEnds = new int[Tables][];
    private string[] _sources;
    private long[] _generations;
    private int[] _seqs;
    private int[] _payloadEnds;
    private byte[] _payloads;
    private int _payloadLength;

    public EncodedBatch(int records = 1024)
    {
        records = Math.Max(records, 16);
        for (int t = 0; t < Tables; t++)
        {
            Rows[t] = new BinaryCopyWriter(t == 0 ? records * 512 : records * 128, arena: true);
            _ends[t] = new int[records];
            _rowEnds[t] = new int[records];
        }

        _sources = new string[records];
        _generations = new long[records];
        _seqs = new int[records];
        _payloadEnds = new int[records];
        _payloads = new byte[records * 384];
    }

    /// <summary>Records in the batch.</summary>
    public int Count { get; private set; }

    public void Clear()
    {
        foreach (var w in Rows)
        {
            w.Reset();
        }

        Positions.Clear();
        Days.Clear();
        Count = 0;
        _payloadLength = 0;
    }

    /// <summary>Ends a record whose rows (if any) were just written into the arenas.</summary>
    public void EndRecord(string source, long generation, int seq, ReadOnlySpan<byte> payload)
    {
        if (Count == _sources.Length)
        {
            int size = Count * 2;
            for (int t = 0; t < Tables; t++)
            {
                Array.Resize(ref _ends[t], size);
                Array.Resize(ref _rowEnds[t], size);
            }

            Array.Resize(ref _sources, size);
            Array.Resize(ref _generations, size);
            Array.Resize(ref _seqs, size);
            Array.Resize(ref _payloadEnds, size);
        }

        if (_payloadLength + payload.Length > _payloads.Length)
        {
            Array.Resize(ref _payloads, Math.Max(_payloadLength + payload.Length, _payloads.Length * 2));
        }

        payload.CopyTo(_payloads.AsSpan(_payloadLength));
        _payloadLength += payload.Length;
        int i = Count++;
        for (int t = 0; t < Tables; t++)
        {
            _ends[t][i] = Rows[t].Length;
            _rowEnds[t][i] = (int)Rows[t].Rows;
        }

        _sources[i] = source;
        _generations[i] = generation;
        _seqs[i] = seq;
        _payloadEnds[i] = _payloadLength;
    }

    /// <summary>The rows of table <paramref name="table"/> of records [<paramref name="from"/>, +<paramref name="count"/>), and how many.</summary>
    public ReadOnlySpan<byte> Range(int table, int from, int count, out int rows)
    {
        int start = from == 0 ? 0 : _ends[table][from - 1], end = _ends[table][from + count - 1];
        rows = _rowEnds[table][from + count - 1] - (from == 0 ? 0 : _rowEnds[table][from - 1]);
        return Rows[table].Written[start..end];
    }

    public string Source(int i) => _sources[i];

    public long Generation(int i) => _generations[i];

    public int Seq(int i) => _seqs[i];

    public ReadOnlySpan<byte> Payload(int i)
    {
        int start = i == 0 ? 0 : _payloadEnds[i - 1];
        return _payloads.AsSpan(start, _payloadEnds[i] - start);
    }
}

/// <summary>
/// Encodes journal records straight from their bytes into an <see cref="EncodedBatch"/>'s COPY rows: the message
/// parsed into offsets (<see cref="FixView"/>), every text column written as the message's own bytes, the matching
/// key assembled in a reused buffer, an answer's trade copied out of the <see cref="InputIndex"/>. No row object and
/// no string a record. The rules are <see cref="RowBuilder"/>'s (which is kept as the reference: the fault checker
/// routes with it, and <c>RowEncoderTests</c> checks both give the same bytes), docs/persistence.md.
/// </summary>
internal sealed class RowEncoder(InputIndex index, int servers) : IJournalRecordSink
{
    private readonly ResolvedTrade _trade = new();
    private readonly Dictionary<string, byte[]> _names = new();
    private byte[] _key = new byte[256];
    private EncodedBatch? _batch;
    private JournalSource? _source;
    private byte[] _sourceName = [];
    private int _server;

    /// <summary>The records handed to <see cref="OnRecord"/> next are <paramref name="source"/>'s, for <paramref name="batch"/>, keeping those of <paramref name="server"/>.</summary>
    public void Begin(EncodedBatch batch, JournalSource source, int server)
    {
        _batch = batch;
        _source = source;
        _server = server;
        if (!_names.TryGetValue(source.Name, out var name))
        {
            _names[source.Name] = name = System.Text.Encoding.UTF8.GetBytes(source.Name);
        }

        _sourceName = name;
    }

    public void OnRecord(long generation, int seq, ReadOnlySpan<byte> payload)
    {
        if (Encode(_batch!, _source!, _sourceName, generation, seq, payload, _server) == _server)
        {
            _batch!.EndRecord(_source!.Name, generation, seq, payload);
        }
    }

    private static readonly byte[] Empty = [];

    /// <summary>
    /// Encodes one record's rows into <paramref name="b"/>'s arenas when it belongs to server <paramref name="ofServer"/>;
    /// returns the record's server. A record of another server writes nothing (its server is known first).
    /// </summary>
    internal int Encode(EncodedBatch b, JournalSource source, ReadOnlySpan<byte> sourceName, long generation, int seq, ReadOnlySpan<byte> payload, int ofServer)
    {
        ReadOnlySpan<byte> message, participant = default;
        bool input = source.IsInput;
        if (input)
        {
            if (!SenderRecord.TryDecode(payload, out var sender, out _, out message) || sender.Length == 0)
            {
                return 0; // the business-date record (or nothing we know): no message, the position moves
            }

            participant = sender;
        }
        else
        {
            message = payload;
        }

        FixView.Parse(message, out var f);
        if (!input)
        {
            participant = f.TargetCompId.Has ? f.TargetCompId.Of(message) : sourceName;
        }

        var msgType = f.MsgType.Has ? f.MsgType.Of(message) : default;
        bool hasTrade = false, ownKey = f.HasTradeKey;
        ReadOnlySpan<byte> manager = default, broker = default, tradeKey = default, refId = default;
        bool hasRefId = false, hasTradeKey = false;
        DateOnly tradeDay = default;
        bool hasTradeDay = false;
        if (ownKey)
        {
            tradeKey = _key.AsSpan(0, f.TradeKey(message, ref _key));
            hasTradeKey = true;
        }

        if (f.InvestmentManager.Has && f.ExecutingBroker.Has)
        {
            hasTrade = true;
            manager = f.InvestmentManager.Of(message);
            broker = f.ExecutingBroker.Of(message);
            hasTradeDay = f.TradeDate.Has && FixView.TryDate(f.TradeDate.Of(message), out tradeDay);
        }
        else if (!input)
        {
            var answered = AnsweredId(ref f, msgType);
            hasRefId = answered.Has;
            refId = hasRefId ? answered.Of(message) : default;
            if (hasRefId && index.TryResolve(participant, refId, _trade))
            {
                hasTrade = true;
                manager = _trade.Manager;
                broker = _trade.Broker;
                hasTradeDay = _trade.HasDate;
                tradeDay = _trade.Date;
                if (!hasTradeKey && _trade.KeyLength >= 0)
                {
                    tradeKey = _trade.Key;
                    hasTradeKey = true;
                }
            }
        }

        int partition = hasTrade ? TradePartition.Of(manager, broker, servers) : -1;
        int server = Math.Max(partition, 0);
        if (server != ofServer)
        {
            return server;
        }

        DateTime? sent = f.SendingTime.Has ? FixFields.Timestamp(f.SendingTime.Of(message)) : null;
        DateOnly date;
        if (f.TradeDate.Has && FixView.TryDate(f.TradeDate.Of(message), out var own))
        {
            date = own;
        }
        else if (hasTradeDay)
        {
            date = tradeDay;
        }
        else if (index.BusinessDate is { } business)
        {
            date = business;
        }
        else
        {
            date = sent is { } s ? DateOnly.FromDateTime(s) : DateOnly.FromDateTime(DateTime.UtcNow);
        }

        b.Days.Add(date);
        Field messageIdField = input ? f.InputId(message) : msgType.SequenceEqual("AK"u8) ? f.ConfirmId : default;
        bool hasMessageId = messageIdField.Has;
        var messageId = hasMessageId ? messageIdField.Of(message) : default;

        // fix_message: 14 columns here, then the audit trail's two (counterparty, outcome) once the outcome is known
        var w = b.Rows[0];
        w.StartRow(16);
        Key(w, date, sourceName, generation, seq);
        w.Char(input ? 'I' : 'O');
        w.Text(participant);
        w.Text(msgType);
        w.Int32(f.MsgSeqNum);
        w.Timestamp(sent);
        w.Int32(partition);
        Text(w, tradeKey, hasTradeKey);
        Text(w, messageId, hasMessageId);
        Text(w, refId, hasRefId);
        w.Bytes(message);

        if (input)
        {
            // The audit trail (migration 6): the counterparty (the target; the sender is the participant), "received".
            w.Text(f.TargetCompId.Has ? f.TargetCompId.Of(message) : default);
            w.Text("received"u8);
            return server;
        }

        ReadOnlySpan<byte> outcome = default, outcomeCode = default;
        bool hasOutcome = false;
        var code = f.RejectCode.Has ? f.RejectCode.Of(message) : default;
        var status = f.Status.Has ? f.Status.Of(message) : default;
        bool ar = msgType.SequenceEqual("AR"u8), p = msgType.SequenceEqual("P"u8), au = msgType.SequenceEqual("AU"u8);
        if (ar || p || au)
        {
            bool rejected = f.Status.Has && ((ar || p) ? status.SequenceEqual("1"u8) : status.SequenceEqual("2"u8));
            hasOutcome = true;
            outcome = rejected ? "rejected "u8 : "accepted"u8;
            outcomeCode = rejected ? code : default;
            if (rejected)
            {
                Exception(b.Rows[2], date, sourceName, generation, seq, participant, "rejected"u8, ar ? "AE"u8 : p ? "J"u8 : "AK"u8, true,
                    refId, hasRefId, ref f, message, tradeKey, hasTradeKey, partition, sent);
            }
        }
        else if (msgType.SequenceEqual("j"u8))
        {
            bool notice = !f.RefSeqNum.Has;
            hasOutcome = true;
            outcome = notice ? "exception notice"u8 : "rejected "u8;
            outcomeCode = notice ? default : code;
            Exception(b.Rows[2], date, sourceName, generation, seq, participant, notice ? "notice"u8 : "rejected"u8,
                f.RefMsgType.Has ? f.RefMsgType.Of(message) : default, f.RefMsgType.Has, refId, hasRefId, ref f, message, tradeKey, hasTradeKey, partition, sent);
        }
        else if (msgType.SequenceEqual("AK"u8) && f.ConfirmType.Has && f.ConfirmType.Of(message).SequenceEqual("1"u8))
        {
            hasOutcome = true;
            outcome = "cleared"u8;
            // The CLS goes to the manager and to the broker: one CLS row, from the manager's copy.
            if (hasTrade && participant.SequenceEqual(manager) && hasTradeKey && f.ConfirmId.Has)
            {
                var c = b.Rows[1];
                c.StartRow(15);
                c.Date(date);
                c.Text(f.ConfirmId.Of(message));
                c.Text(manager);
                c.Text(broker);
                Text(c, ref f, f.Account, message);
                Text(c, ref f, f.Isin, message);
                if (f.Side.Has && f.Side.Length == 1)
                {
                    c.Char((char)message[f.Side.Start]);
                }
                else
                {
                    c.Null();
                }

                c.Numeric(f.Quantity.Has ? FixFields.Number(f.Quantity.Of(message)) : null);
                c.Numeric(f.NetAmount.Has ? FixFields.Number(f.NetAmount.Of(message)) : null);
                Text(c, ref f, f.Currency, message);
                c.Date(f.SettlDate.Has && FixView.TryDate(f.SettlDate.Of(message), out var settl) ? settl : null);
                Text(c, ref f, f.AllocId, message);
                c.Timestamp(sent);
                c.Int32(partition);
                c.Text(tradeKey);
            }
        }

        // The audit trail (migration 6): the counterparty (the sender; the target is the participant) and the outcome;
        // NULL both for an output that answers nothing (a session message), which had no audit row.
        if (hasOutcome)
        {
            w.Text(f.SenderCompId.Has ? f.SenderCompId.Of(message) : default);
            w.Text(outcome, outcomeCode);
        }
        else
        {
            w.Null();
            w.Null();
        }

        return server;
    }

    private static void Exception(BinaryCopyWriter x, DateOnly date, ReadOnlySpan<byte> sourceName, long generation, int seq, ReadOnlySpan<byte> participant,
        ReadOnlySpan<byte> kind, ReadOnlySpan<byte> refMsgType, bool hasRefMsgType, ReadOnlySpan<byte> refId, bool hasRefId, ref FixView f,
        ReadOnlySpan<byte> message, ReadOnlySpan<byte> tradeKey, bool hasTradeKey, int partition, DateTime? sent)
    {
        x.StartRow(13);
        Key(x, date, sourceName, generation, seq);
        x.Text(participant);
        x.Text(kind);
        Text(x, refMsgType, hasRefMsgType);
        Text(x, refId, hasRefId);
        Text(x, ref f, f.RejectCode, message);
        Text(x, ref f, f.Text, message);
        Text(x, tradeKey, hasTradeKey);
        x.Int32(partition);
        x.Timestamp(sent);
    }

    private static void Key(BinaryCopyWriter w, DateOnly date, ReadOnlySpan<byte> source, long generation, int seq)
    {
        w.Date(date);
        w.Text(source);
        w.Int64(generation);
        w.Int32(seq);
    }

    private static void Text(BinaryCopyWriter w, ReadOnlySpan<byte> value, bool has)
    {
        if (has)
        {
            w.Text(value);
        }
        else
        {
            w.Null();
        }
    }

    private static void Text(BinaryCopyWriter w, ref FixView f, Field field, ReadOnlySpan<byte> message)
    {
        if (field.Has)
        {
            w.Text(field.Of(message));
        }
        else
        {
            w.Null();
        }
    }

    /// <summary>The participant's message ID an answer refers to (AR 571, P 70, AU 664, j 379).</summary>
    private static Field AnsweredId(ref FixView f, ReadOnlySpan<byte> msgType) =>
        msgType.SequenceEqual("AR"u8) ? f.TradeReportId
        : msgType.SequenceEqual("P"u8) ? f.AllocId
        : msgType.SequenceEqual("AU"u8) ? f.ConfirmId
        : msgType.SequenceEqual("j"u8) ? f.RefId
        : default;
}
