using System.Buffers.Text;
using System.Globalization;
using System.Runtime.CompilerServices;
using RapidFix.Matching;

namespace RapidFix.TradeDriver.Measure;

/// <summary>
/// The driver's set, streamed: trade n's seven messages are formatted from a compact description (a small
/// spec per trade of the current shuffle window) into a fixed ring of pre-sized slots, a little ahead of the
/// schedule, on the driver's own thread. Byte for byte the set <see cref="TradeGenerator"/> makes for the same seed
/// with its default options (good trades only, shuffle window 16): the same <see cref="Random"/> draws in the same
/// order (kind, price, two quantities, the shuffle within the trade, the interleaving of the window), the same
/// decimal arithmetic and the same text. Memory is the ring (<see cref="BytesFor"/>), whatever the run's length;
/// nothing is allocated after construction. Single-threaded: the driver both formats and sends.
/// </summary>
internal sealed class TradeStream
{
    /// <summary>Bytes of one slot: the longest body (an NPR, about 560 bytes) with room to spare. A longer one fails closed.</summary>
    public const int SlotBytes = 1024;

    /// <summary>The default ring: 16,384 messages (16 MiB of bodies), half a second ahead at 32,000 messages/s.</summary>
    public const int DefaultCapacity = 1 << 14;

    /// <summary>Trades per shuffle window (<see cref="GeneratorOptions.ShuffleWindow"/>'s default).</summary>
    public const int Window = 16;

    /// <summary>Messages of a standard trade.</summary>
    public const int PerTrade = 7;

    // The demo participants and TradeUniverse's securities, as TradeGenerator draws from them.
    private static readonly byte[][] ManagerNames = ["IM1"u8.ToArray(), "IM2"u8.ToArray()];
    private static readonly byte[][][] AccountNames = [["ACC-A"u8.ToArray(), "ACC-B"u8.ToArray()], ["ACC-C"u8.ToArray(), "ACC-D"u8.ToArray()]];
    private static readonly byte[][] BrokerNames = ["EB1"u8.ToArray(), "EB2"u8.ToArray()];
    private static readonly string[] AmountFormats = ["F0", "F1", "F2", "F3", "F4", "F5", "F6", "F7", "F8", "F9"];

    /// <summary>The message types by kind (0 NOE, 1-2 ALC, 3-4 NPR, 5-6 SET).</summary>
    private static readonly byte[][] Types = ["AE"u8.ToArray(), "J"u8.ToArray(), "J"u8.ToArray(), "AK"u8.ToArray(), "AK"u8.ToArray(), "T"u8.ToArray(), "T"u8.ToArray()];

    // The standard trade's messages in TradeMessages.Standard's order: NOE, ALC1, NPR1, SET1, ALC2, NPR2, SET2, as kinds.
    private static readonly byte[] StandardOrder = [0, 1, 3, 5, 2, 4, 6];

    private readonly Random _random;
    private readonly int _settle;
    private readonly int _seed;
    private readonly int[] _tradeDates;
    private readonly int[] _managerSession = new int[2];
    private readonly int[] _brokerSession = new int[2];
    private readonly int _mask;

    // The ring: per slot the body, its length, the session, the trade number and the kind.
    private readonly byte[] _bodies;
    private readonly int[] _lengths;
    private readonly byte[] _sessions;
    private readonly long[] _trades;
    private readonly byte[] _kinds;

    // The window being formatted: its specs, each trade's own order, the interleaving, and how far it got.
    private readonly Spec[] _specs = new Spec[Window];
    private readonly byte[] _orders = new byte[Window * PerTrade];
    private readonly byte[] _interleaved = new byte[Window * PerTrade];
    private readonly int[] _next = new int[Window];
    private readonly Writer _writer = new();
    private int _windowLength;
    private int _windowAt;
    private long _nextTrade = 1;
    private ClearedTrades? _cleared;
    private long _keysOfOpenTrades;

    private long _formatted;
    private long _released;

    /// <param name="participants">The sessions' participants (IM1, IM2, EB1, EB2 in any order): a message's session is its sender's index.</param>
    /// <param name="capacity">Messages the ring holds (a power of two, at least a window's).</param>
    /// <param name="seed">The generator's seed (the measured runs use 7).</param>
    /// <param name="businessDate">The business date (<see cref="GeneratorOptions.BusinessDate"/>).</param>
    public TradeStream(IReadOnlyList<string> participants, int capacity = DefaultCapacity, int seed = 7, int businessDate = 20261123)
    {
        if (capacity < Window * PerTrade || (capacity & (capacity - 1)) != 0)
        {
            throw new ArgumentOutOfRangeException(nameof(capacity), $"the ring must be a power of two of at least {Window * PerTrade} messages");
        }

        for (int i = 0; i < 2; i++)
        {
            _managerSession[i] = IndexOf(participants, i == 0 ? "IM1" : "IM2");
            _brokerSession[i] = IndexOf(participants, i == 0 ? "EB1" : "EB2");
        }

        _random = new Random(seed);
        _seed = seed;
        _tradeDates = TradeUniverse.TradeDates(businessDate);
        _settle = Settlement(DateOnly.ParseExact(businessDate.ToString(CultureInfo.InvariantCulture), "yyyyMMdd", CultureInfo.InvariantCulture));
        _mask = capacity - 1;
        _bodies = GC.AllocateUninitializedArray<byte>(capacity * SlotBytes, pinned: true);
        _lengths = new int[capacity];
        _sessions = new byte[capacity];
        _trades = new long[capacity];
        _kinds = new byte[capacity];
        Capacity = capacity;
    }

    /// <summary>Messages the ring holds.</summary>
    public int Capacity { get; }

    /// <summary>Messages formatted so far (the next one's index).</summary>
    public long Formatted => _formatted;

    /// <summary>Messages released (sent or dropped): their slots may be formatted again.</summary>
    public long Released => _released;

    /// <summary>
    /// Where the stream checks, as it starts each trade past <see cref="TradeUniverse.UniqueTrades"/>, that the trade
    /// whose matching key it takes again has cleared (the sink marks them); null: not checked (a stream not sent).
    /// </summary>
    public ClearedTrades? Cleared { get => _cleared; set => _cleared = value; }

    /// <summary>Trades that took the matching key of a trade that had not cleared (<see cref="Cleared"/>): 0 expected.</summary>
    public long KeysOfOpenTrades => _keysOfOpenTrades;

    /// <summary>Messages formatted late, inline, because the next one due was not ready (the ring ran dry).</summary>
    public long FormattedInline { get; private set; }

    /// <summary>Bytes a ring of <paramref name="capacity"/> messages holds (bodies and per-slot metadata).</summary>
    public static long BytesFor(int capacity) => (long)capacity * (SlotBytes + sizeof(int) + 1 + sizeof(long) + 1);

    /// <summary>Trades needed for <paramref name="messages"/> messages (every trade has seven).</summary>
    public static long TradesFor(long messages) => (messages + PerTrade - 1) / PerTrade;

    /// <summary>The session (index into the participants) of message <paramref name="index"/>, formatted and not released.</summary>
    public int SessionOf(long index) => _sessions[index & _mask];

    /// <summary>Its trade number (its IDs are T&lt;trade&gt;-...).</summary>
    public long TradeOf(long index) => _trades[index & _mask];

    /// <summary>Its kind: 0 NOE, 1-2 ALC, 3-4 NPR, 5-6 SET (<see cref="IntendedTimes"/>' slot within the trade).</summary>
    public int KindOf(long index) => _kinds[index & _mask];

    /// <summary>Its MsgType (AE, J, AK, T).</summary>
    public ReadOnlySpan<byte> MsgTypeOf(long index) => Types[_kinds[index & _mask]];

    /// <summary>Its body from the field after MsgType on, SOH-terminated fields.</summary>
    public ReadOnlySpan<byte> BodyOf(long index)
    {
        int slot = (int)(index & _mask);
        return new ReadOnlySpan<byte>(_bodies, slot * SlotBytes, _lengths[slot]);
    }

    /// <summary>Whether a SET (no ack comes back for an accepted one).</summary>
    public static bool IsSet(int kind) => kind >= 5;

    /// <summary>Frees every slot below <paramref name="index"/> for formatting.</summary>
    public void Release(long index)
    {
        if (index > _formatted)
        {
            throw new InvalidOperationException("a message not formatted yet cannot be released");
        }

        if (index > _released)
        {
            _released = index;
        }
    }

    /// <summary>Formats the next message into the ring; false when the ring is full (nothing released to reuse).</summary>
    public bool TryFormatNext()
    {
        if (_formatted - _released >= Capacity)
        {
            return false;
        }

        if (_windowAt == _windowLength)
        {
            NextWindow();
        }

        byte entry = _interleaved[_windowAt++];
        int w = entry >> 3, kind = entry & 7;
        long index = _formatted;
        int slot = (int)(index & _mask);
        ref readonly var spec = ref _specs[w];
        _lengths[slot] = Format(in spec, kind, slot * SlotBytes);
        _trades[slot] = spec.Trade;
        _kinds[slot] = (byte)kind;
        _sessions[slot] = (byte)(kind is 0 or 3 or 4 ? _brokerSession[spec.Broker] : _managerSession[spec.Manager]);
        _formatted = index + 1;
        return true;
    }

    /// <summary>Makes message <paramref name="index"/> ready (formatting inline what is missing); false when the ring cannot hold it.</summary>
    public bool Ensure(long index)
    {
        while (_formatted <= index)
        {
            if (!TryFormatNext())
            {
                return false;
            }

            FormattedInline++;
        }

        return true;
    }

    /// <summary>Formats ahead until the ring is full or <paramref name="deadline"/> (a <see cref="System.Diagnostics.Stopwatch"/> tick) passes; returns how many.</summary>
    public int FillAhead(long deadline)
    {
        int n = 0;
        while (TryFormatNext())
        {
            n++;
            if ((n & 15) == 0 && System.Diagnostics.Stopwatch.GetTimestamp() >= deadline)
            {
                break;
            }
        }

        return n;
    }

    // TradeGenerator.Windows for one window of good trades: the same draws in the same order.
    private void NextWindow()
    {
        const int managers = 2, brokers = 2;
        for (int w = 0; w < Window; w++)
        {
            long number = _nextTrade++;
            if (_cleared is { } cleared && !cleared.TakeKey(number))
            {
                _keysOfOpenTrades++; // the trade that had this key UniqueTrades ago has not cleared yet
            }

            _ = _random.NextDouble(); // the kind: good whatever it draws (no duplicates, amendments, cancels, bad trades)
            var (c, security) = TradeUniverse.KeyOf(number);
            int manager = c % managers;
            c /= managers;
            int broker = c % brokers;
            byte side = c / brokers == 0 ? (byte)'1' : (byte)'2';
            int date = _tradeDates[TradeUniverse.DaysBack(_seed, number)];
            decimal price = Math.Round(1m + ((decimal)_random.Next(1, 100_000) / 1000m), 3);
            long q0 = 100 * _random.Next(1, 100);
            long q1 = 100 * _random.Next(1, 100);
            _specs[w] = new Spec(number, security, (byte)manager, (byte)broker, side, date, price, q0, q1);

            // The trade's own order: the standard seven shuffled (TradeGenerator.Shuffle).
            var order = _orders.AsSpan(w * PerTrade, PerTrade);
            StandardOrder.CopyTo(order);
            for (int i = PerTrade - 1; i > 0; i--)
            {
                int j = _random.Next(i + 1);
                (order[i], order[j]) = (order[j], order[i]);
            }
        }

        // TradeGenerator.Interleave: a random interleaving of the window's trades, each keeping its own order.
        Array.Clear(_next);
        int remaining = Window * PerTrade, at = 0;
        while (remaining > 0)
        {
            int pick = _random.Next(remaining);
            for (int i = 0; i < Window; i++)
            {
                int left = PerTrade - _next[i];
                if (pick < left)
                {
                    _interleaved[at++] = (byte)((i << 3) | _orders[(i * PerTrade) + _next[i]++]);
                    break;
                }

                pick -= left;
            }

            remaining--;
        }

        _windowLength = at;
        _windowAt = 0;
    }

    // TradeMessages.Noe/Alc/Npr/Set for a standard trade, as bytes.
    private int Format(in Spec t, int kind, int offset)
    {
        var w = _writer.Reset(_bodies, offset, SlotBytes);
        var isin = TradeUniverse.Isin(t.Security);
        var currency = TradeUniverse.Currency(t.Security);
        const int minor = TradeUniverse.MinorUnits;
        var manager = ManagerNames[t.Manager];
        var broker = BrokerNames[t.Broker];
        int account = kind switch { 1 or 3 or 5 => 0, _ => 1 };
        long quantity = account == 0 ? t.Quantity0 : t.Quantity1;
        var accountName = AccountNames[t.Manager][account];
        ReadOnlySpan<byte> place = "CDP"u8;
        switch (kind)
        {
            case 0:
                w.Tag(571).Id(t.Trade, "-NOE"u8).Tag(487).Text("0"u8).Tag(856).Text("0"u8).Tag(570).Text("N"u8).Tag(55).Text("[N/A]"u8).Tag(48).Text(isin)
                    .Tag(22).Text("4"u8).Tag(32).Number(t.Quantity0 + t.Quantity1).Tag(31).Decimal(t.Price).Tag(75).Number(t.TradeDate).Tag(753).Text("0"u8)
                    .Tag(60).Timestamp(t.TradeDate).Tag(768).Text("1"u8).Tag(769).Timestamp(t.TradeDate).Tag(770).Text("1"u8).Tag(64).Number(_settle)
                    .Tag(552).Text("1"u8).Tag(54).Byte(t.Side).Tag(37).Id(t.Trade, "-ORD"u8);
                Parties(w, broker, manager, default, default);
                w.Tag(15).Text(currency);
                break;
            case 1 or 2:
                w.Tag(70).Id(t.Trade, kind == 1 ? "-ALC1"u8 : "-ALC2"u8).Tag(71).Text("0"u8).Tag(626).Text("2"u8).Tag(857).Text("0"u8).Tag(54).Byte(t.Side)
                    .Tag(55).Text("[N/A]"u8).Tag(48).Text(isin).Tag(22).Text("4"u8).Tag(53).Number(quantity).Tag(6).Decimal(t.Price).Tag(15).Text(currency)
                    .Tag(75).Number(t.TradeDate).Tag(60).Timestamp(t.TradeDate).Tag(64).Number(_settle);
                Parties(w, broker, manager, default, default);
                w.Tag(78).Text("1"u8).Tag(79).Text(accountName).Tag(80).Number(quantity);
                break;
            case 3 or 4:
            {
                decimal gross = Round(quantity * t.Price, minor);
                decimal commission = Round(gross * 0.002m, minor);
                decimal fee = Round(gross * 0.0001m, minor);
                decimal tax = Round(commission * 0.07m, minor);
                decimal net = t.Side == (byte)'1' ? gross + commission + fee + tax : gross - commission - fee - tax;
                w.Tag(664).Id(t.Trade, kind == 3 ? "-NPR1"u8 : "-NPR2"u8).Tag(666).Text("0"u8).Tag(773).Text("2"u8).Tag(665).Text("1"u8)
                    .Tag(60).Timestamp(t.TradeDate).Tag(75).Number(t.TradeDate).Tag(64).Number(_settle);
                Parties(w, broker, manager, place, default);
                w.Tag(55).Text("[N/A]"u8).Tag(48).Text(isin).Tag(22).Text("4"u8).Tag(711).Text("0"u8).Tag(555).Text("0"u8).Tag(768).Text("1"u8)
                    .Tag(769).Timestamp(t.TradeDate).Tag(770).Text("1"u8).Tag(80).Number(quantity).Tag(54).Byte(t.Side).Tag(15).Text(currency)
                    .Tag(862).Text("1"u8).Tag(528).Text("A"u8).Tag(863).Number(quantity).Tag(79).Text(accountName).Tag(6).Decimal(t.Price)
                    .Tag(381).Amount(gross, minor).Tag(118).Amount(net, minor).Tag(119).Amount(net, minor).Tag(120).Text(currency)
                    .Tag(12).Amount(commission, minor).Tag(13).Text("3"u8).Tag(136).Text("2"u8).Tag(137).Amount(fee, minor).Tag(139).Text("4"u8)
                    .Tag(137).Amount(tax, minor).Tag(139).Text("2"u8);
                break;
            }

            default:
            {
                var suffix = kind == 5 ? "-SET1"u8 : "-SET2"u8;
                w.Tag(777).Id(t.Trade, suffix).Text("-M"u8).Tag(160).Text("1"u8).Tag(60).Timestamp(t.TradeDate).Tag(778).Text("1"u8).Tag(162).Id(t.Trade, suffix)
                    .Tag(163).Text("N"u8);
                Parties(w, broker, manager, place, accountName);
                w.Tag(54).Byte(t.Side);
                break;
            }
        }

        return w.Finish();
    }

    private static void Parties(Writer w, ReadOnlySpan<byte> broker, ReadOnlySpan<byte> manager, ReadOnlySpan<byte> place, ReadOnlySpan<byte> account)
    {
        int n = 2 + (place.IsEmpty ? 0 : 1) + (account.IsEmpty ? 0 : 1);
        w.Tag(453).Number(n).Tag(448).Text(broker).Tag(447).Text("D"u8).Tag(452).Text("1"u8).Tag(448).Text(manager).Tag(447).Text("D"u8).Tag(452).Text("13"u8);
        if (!account.IsEmpty)
        {
            w.Tag(448).Text(account).Tag(447).Text("D"u8).Tag(452).Text("24"u8);
        }

        if (!place.IsEmpty)
        {
            w.Tag(448).Text(place).Tag(447).Text("D"u8).Tag(452).Text("10"u8);
        }
    }

    private static decimal Round(decimal value, int decimals) => Math.Round(value, decimals, MidpointRounding.AwayFromZero);

    // TradeGenerator's settlement date: three weekdays after the business date, skipping the demo calendars' holidays.
    private static int Settlement(DateOnly businessDay)
    {
        var holidays = TradeUniverse.Holidays;
        var d = businessDay;
        int days = 3;
        while (days > 0)
        {
            d = d.AddDays(1);
            int yyyymmdd = (d.Year * 10000) + (d.Month * 100) + d.Day;
            if (d.DayOfWeek is not DayOfWeek.Saturday and not DayOfWeek.Sunday && !holidays.Contains(yyyymmdd))
            {
                days--;
            }
        }

        return (d.Year * 10000) + (d.Month * 100) + d.Day;
    }

    private static int IndexOf(IReadOnlyList<string> participants, string id)
    {
        for (int i = 0; i < participants.Count; i++)
        {
            if (participants[i] == id)
            {
                return i;
            }
        }

        throw new InvalidDataException($"the set names participant {id}, who has no session");
    }

    /// <summary>One trade of the window: what its seven messages say.</summary>
    private readonly record struct Spec(long Trade, int Security, byte Manager, byte Broker, byte Side, int TradeDate, decimal Price, long Quantity0, long Quantity1);

    /// <summary>Writes tag=value fields into a slot of the ring (one instance, reused); a field that does not fit fails closed.</summary>
    private sealed class Writer
    {
        private byte[] _buffer = [];
        private int _at;
        private int _end;
        private int _start;
        private bool _open;

        public Writer Reset(byte[] buffer, int start, int length)
        {
            _buffer = buffer;
            _start = _at = start;
            _end = start + length;
            _open = false;
            return this;
        }

        private Span<byte> Free => _buffer.AsSpan(_at, _end - _at);

        public Writer Tag(int tag)
        {
            // One unaligned 8-byte store writes the previous field's SOH and "tag=" (the table's bytes, SOH first;
            // its top byte is the length with the SOH); the next write overwrites the spare bytes after it.
            if ((uint)tag < (uint)TagPrefixes.Length && _end - _at >= sizeof(ulong))
            {
                ulong packed = TagPrefixes[tag];
                int length = (int)(packed >> 56);
                ulong bytes = packed & 0x00FF_FFFF_FFFF_FFFFUL;
                if (!_open)
                {
                    bytes >>= 8;
                    length--;
                }

                Unsafe.WriteUnaligned(ref _buffer[_at], bytes);
                _at += length;
            }
            else
            {
                End();
                Put(tag);
                Byte1((byte)'=');
            }

            _open = true;
            return this;
        }

        // "\u0001tag=" for every tag below 1,000 (all a trade message uses), packed in a word with its length in the top
        // byte, made once: formatting the tag's number for each of a message's 40-odd fields, and then copying the
        // prefix with a call per field, were the largest part of the driver's formatting (2.6 % and then 4.3 % of the
        // machine's CPU at 112,000 and 184,000 messages/s).
        private static readonly ulong[] TagPrefixes = MakeTagPrefixes(1_000);

        private static ulong[] MakeTagPrefixes(int count)
        {
            var prefixes = new ulong[count];
            for (int tag = 0; tag < count; tag++)
            {
                var bytes = System.Text.Encoding.ASCII.GetBytes("\u0001" + tag.ToString(CultureInfo.InvariantCulture) + "=");
                ulong packed = (ulong)bytes.Length << 56;
                for (int i = 0; i < bytes.Length; i++)
                {
                    packed |= (ulong)bytes[i] << (8 * i);
                }

                prefixes[tag] = packed;
            }

            return prefixes;
        }

        public Writer Text(ReadOnlySpan<byte> value)
        {
            // Most values are a few bytes: a loop beats a call to the general copy.
            if (value.Length <= 16 && _end - _at >= value.Length)
            {
                var buffer = _buffer;
                int at = _at;
                for (int i = 0; i < value.Length; i++)
                {
                    buffer[at + i] = value[i];
                }

                _at = at + value.Length;
                return this;
            }

            if (!value.TryCopyTo(Free))
            {
                Overflow();
            }

            _at += value.Length;
            return this;
        }

        public Writer Byte(byte value)
        {
            Byte1(value);
            return this;
        }

        public Writer Number(long value)
        {
            Put(value);
            return this;
        }

        public Writer Id(long trade, ReadOnlySpan<byte> suffix)
        {
            Byte1((byte)'T');
            Put(trade);
            return Text(suffix);
        }

        public Writer Timestamp(int date)
        {
            Put(date);
            return Text("-10:00:00.000"u8);
        }

        /// <summary>The value as <c>decimal.ToString()</c> writes it: every digit of its scale, trailing zeros kept.</summary>
        public Writer Decimal(decimal value)
        {
            if (!TryScaled(value, value.Scale))
            {
                if (!value.TryFormat(Free, out int n, default, CultureInfo.InvariantCulture))
                {
                    Overflow();
                }

                _at += n;
            }

            return this;
        }

        /// <summary>The value with exactly <paramref name="decimals"/> decimals, as the format "F<i>decimals</i>" writes it.</summary>
        public Writer Amount(decimal value, int decimals)
        {
            if (!TryScaled(value, decimals))
            {
                if (!value.TryFormat(Free, out int n, AmountFormats[decimals], CultureInfo.InvariantCulture))
                {
                    Overflow();
                }

                _at += n;
            }

            return this;
        }

        // The decimal as the matcher's fixed-point amount (Scaled, six decimals), written by Scaled.Format with exactly
        // `decimals` decimals, when its mantissa fits and no digit has to be rounded away (decimal's own formatting was
        // a third of the driver's copy and format time); false leaves the position where it was, for the general path.
        private bool TryScaled(decimal value, int decimals)
        {
            Span<int> bits = stackalloc int[4];
            decimal.GetBits(value, bits);
            int scale = value.Scale;
            bool negative = bits[3] < 0;
            if (bits[2] != 0 || bits[1] < 0 || scale > decimals || decimals > Scaled.Decimals || (negative && bits[0] == 0 && bits[1] == 0))
            {
                return false;
            }

            long scaled = ((long)bits[1] << 32) | (uint)bits[0];
            for (int i = scale; i < Scaled.Decimals; i++)
            {
                if (scaled > long.MaxValue / 10)
                {
                    return false;
                }

                scaled *= 10;
            }

            // At most `decimals` decimals are significant (scale <= decimals), so at least that many is exactly that many.
            int n = Scaled.Format(negative ? -scaled : scaled, Free, decimals);
            _at += n;
            return n > 0;
        }

        /// <summary>Closes the last field; the body's length.</summary>
        public int Finish()
        {
            End();
            return _at - _start;
        }

        // Every field ends with SOH.
        private void End()
        {
            if (_open)
            {
                Byte1(1);
                _open = false;
            }
        }

        private void Put(long value)
        {
            if (!Utf8Formatter.TryFormat(value, Free, out int n))
            {
                Overflow();
            }

            _at += n;
        }

        private void Byte1(byte value)
        {
            if (_at >= _end)
            {
                Overflow();
            }

            _buffer[_at++] = value;
        }

        private static void Overflow() => throw new InvalidOperationException($"a trade message is longer than a ring slot ({SlotBytes} bytes)");
    }
}
