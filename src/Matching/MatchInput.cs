namespace RapidFix.Matching;

/// <summary>Which optional values a <see cref="MatchInput"/> carries.</summary>
[Flags]
public enum InputFields
{
    /// <summary>No optional value.</summary>
    None = 0,
    /// <summary>Settlement date (64).</summary>
    SettlDate = 1 << 0,
    /// <summary>Trade currency (15).</summary>
    Currency = 1 << 1,
    /// <summary>Quantity.</summary>
    Quantity = 1 << 2,
    /// <summary>Price.</summary>
    Price = 1 << 3,
    /// <summary>Gross amount (381).</summary>
    Gross = 1 << 4,
    /// <summary>Commission (12).</summary>
    Commission = 1 << 5,
    /// <summary>Fees.</summary>
    Fees = 1 << 6,
    /// <summary>Tax.</summary>
    Tax = 1 << 7,
    /// <summary>Accrued interest (159).</summary>
    Accrued = 1 << 8,
    /// <summary>Net amount (118).</summary>
    Net = 1 << 9,
    /// <summary>Settlement currency (120).</summary>
    SettlCurrency = 1 << 10,
    /// <summary>Settlement amount (119).</summary>
    SettlAmount = 1 << 11,
    /// <summary>FX rate (155).</summary>
    FxRate = 1 << 12,
    /// <summary>Place of settlement.</summary>
    Place = 1 << 13,
    /// <summary>Account.</summary>
    Account = 1 << 14,
    /// <summary>Security (ISIN).</summary>
    Security = 1 << 15,
    /// <summary>Trade date (75).</summary>
    TradeDate = 1 << 16,
}

/// <summary>
/// The content of one trade message, copied out of its <see cref="RapidFix.Engine.Fields.IFieldAccessor"/> into fixed
/// slots: IDs and codes as inline bytes, decimals as integers scaled by 10^6 (<see cref="Scaled"/>), dates as
/// yyyymmdd integers. What the matcher stores, what an exception record keeps for re-submission, and what a caller
/// that has its own decoder can fill in directly (<see cref="Matcher.Process{TSink}(in MatchInput, ref TSink)"/>).
/// </summary>
public struct MatchInput
{
    /// <summary>Which of the four messages.</summary>
    public MessageKind Kind;

    /// <summary>New, cancel or replace.</summary>
    public TransType Trans;

    /// <summary>PossDupFlag (43) was Y: a resend of a known ID is a duplicate.</summary>
    public bool PossDup;

    /// <summary>Side (54): '1' buy, '2' sell.</summary>
    public byte Side;

    /// <summary>CommType (13) as sent ('3' absolute, '2' percentage), 0 when absent.</summary>
    public byte CommType;

    /// <summary>Which optional values are present.</summary>
    public InputFields Present;

    /// <summary>The message's identity: 571 (NOE), 70 (ALC), 664 (NPR), 162 (SET).</summary>
    public Bytes32 Id;

    /// <summary>The identity a cancel or replace refers to: 572, 72, 772, 214.</summary>
    public Bytes32 RefId;

    /// <summary>For SET, SettlInstMsgID (777), echoed in its reject; for the others equal to <see cref="Id"/>.</summary>
    public Bytes32 MessageId;

    /// <summary>The participant that sent it (the session's SenderCompID).</summary>
    public Bytes16 Sender;

    /// <summary>Investment manager: PartyID with PartyRole 13.</summary>
    public Bytes16 InvestmentManager;

    /// <summary>Executing broker: PartyID with PartyRole 1.</summary>
    public Bytes16 ExecutingBroker;

    /// <summary>ISIN (48 with 22=4).</summary>
    public Bytes16 Isin;

    /// <summary>Account: AllocAccount (79), or the PartyID with PartyRole 24 on SET.</summary>
    public Bytes16 Account;

    /// <summary>Place of settlement: PartyID with PartyRole 10.</summary>
    public Bytes16 Place;

    /// <summary>Currency (15), three ASCII letters packed (see <see cref="Codes.PackCurrency"/>).</summary>
    public int Currency;

    /// <summary>SettlCurrency (120), packed like <see cref="Currency"/>.</summary>
    public int SettlCurrency;

    /// <summary>TradeDate (75), yyyymmdd.</summary>
    public int TradeDate;

    /// <summary>SettlDate (64), yyyymmdd.</summary>
    public int SettlDate;

    /// <summary>Quantity: LastQty (32) on NOE, AllocQty (80) otherwise; scaled by 10^6.</summary>
    public long Quantity;

    /// <summary>Price: LastPx (31) on NOE, AvgPx (6) otherwise; scaled by 10^6.</summary>
    public long Price;

    /// <summary>GrossTradeAmt (381), scaled.</summary>
    public long Gross;

    /// <summary>Commission (12), scaled (as sent: absolute, or a percentage when CommType is 2).</summary>
    public long Commission;

    /// <summary>Sum of MiscFeeAmt (137) whose MiscFeeType (139) is not a tax, scaled.</summary>
    public long Fees;

    /// <summary>Sum of MiscFeeAmt (137) whose MiscFeeType (139) is 2 or 22, scaled.</summary>
    public long Tax;

    /// <summary>AccruedInterestAmt (159), scaled.</summary>
    public long Accrued;

    /// <summary>NetMoney (118), scaled.</summary>
    public long Net;

    /// <summary>SettlCurrAmt (119), scaled.</summary>
    public long SettlAmount;

    /// <summary>SettlCurrFxRate (155), scaled.</summary>
    public long FxRate;

    /// <summary>True when every flag of <paramref name="fields"/> is present.</summary>
    public readonly bool Has(InputFields fields) => (Present & fields) == fields;
}

/// <summary>Decimals as 64-bit integers scaled by 10^6: exact for up to six decimal places, up to 9.2 × 10^12.</summary>
public static class Scaled
{
    /// <summary>Decimal places kept.</summary>
    public const int Decimals = 6;

    /// <summary>10^<see cref="Decimals"/>.</summary>
    public const long One = 1_000_000;

    internal static readonly long[] Powers =
    [
        1L, 10L, 100L, 1_000L, 10_000L, 100_000L, 1_000_000L, 10_000_000L, 100_000_000L, 1_000_000_000L,
        10_000_000_000L, 100_000_000_000L, 1_000_000_000_000L, 10_000_000_000_000L, 100_000_000_000_000L,
        1_000_000_000_000_000L, 10_000_000_000_000_000L, 100_000_000_000_000_000L, 1_000_000_000_000_000_000L,
    ];

    /// <summary>Converts a FIX decimal; false when it has more than six decimals (non-zero) or overflows.</summary>
    public static bool TryFrom(RapidFix.Engine.Fields.FixDecimal value, out long scaled)
    {
        long m = value.Mantissa;
        int shift = value.Exponent + Decimals;
        if (shift >= 0)
        {
            if (shift >= Powers.Length)
            {
                scaled = 0;
                return m == 0;
            }

            // Overflow seen in the high half of the full product, not by dividing back (a division per amount
            // was a tenth of reading a message).
            long high = Math.BigMul(m, Powers[shift], out long low);
            if (high != (low >> 63))
            {
                scaled = 0;
                return false;
            }

            scaled = low;
            return true;
        }

        if (-shift >= Powers.Length)
        {
            scaled = 0;
            return m == 0;
        }

        long d = Powers[-shift];
        if (m % d != 0)
        {
            scaled = 0;
            return false;
        }

        scaled = m / d;
        return true;
    }

    /// <summary>Writes the value with its decimals (trailing zeros dropped, at least <paramref name="minDecimals"/>).</summary>
    public static int Format(long scaled, Span<byte> destination, int minDecimals = 0)
    {
        int pos = 0;
        ulong magnitude;
        if (scaled < 0)
        {
            if (destination.Length < 1)
            {
                return 0;
            }

            destination[pos++] = (byte)'-';
            magnitude = (ulong)(-(scaled + 1)) + 1;
        }
        else
        {
            magnitude = (ulong)scaled;
        }

        ulong whole = magnitude / One;
        ulong frac = magnitude % One;
        if (!System.Buffers.Text.Utf8Formatter.TryFormat(whole, destination[pos..], out int written))
        {
            return 0;
        }

        pos += written;
        int decimals = Decimals;
        while (decimals > minDecimals && frac % 10 == 0)
        {
            frac /= 10;
            decimals--;
        }

        if (decimals > 0)
        {
            if (destination.Length < pos + 1 + decimals)
            {
                return 0;
            }

            destination[pos++] = (byte)'.';
            for (int i = decimals - 1; i >= 0; i--)
            {
                destination[pos + i] = (byte)('0' + (int)(frac % 10));
                frac /= 10;
            }

            pos += decimals;
        }

        return pos;
    }

    /// <summary>Rounds half away from zero to <paramref name="decimals"/> places (0..6).</summary>
    public static long Round(long scaled, int decimals)
    {
        if (decimals >= Decimals)
        {
            return scaled;
        }

        // A constant divisor per precision: the JIT turns each division into a multiplication (a division by a
        // variable power of ten took a 64-bit divide per message).
        return (Decimals - decimals) switch
        {
            1 => RoundTo(scaled, 10),
            2 => RoundTo(scaled, 100),
            3 => RoundTo(scaled, 1_000),
            4 => RoundTo(scaled, 10_000),
            5 => RoundTo(scaled, 100_000),
            _ => RoundTo(scaled, Powers[Decimals - decimals]),
        };
    }

    [System.Runtime.CompilerServices.MethodImpl(System.Runtime.CompilerServices.MethodImplOptions.AggressiveInlining)]
    private static long RoundTo(long scaled, long unit)
    {
        long half = unit / 2;
        long q = scaled >= 0 ? (scaled + half) / unit : -((-scaled + half) / unit);
        return q * unit;
    }

    /// <summary>a × b / 10^6 (both scaled), rounded half away from zero; false on overflow.</summary>
    public static bool TryMultiply(long a, long b, out long product)
    {
        // Quantities and prices make products far below 2^63: take the 64-bit path (Int128 division is slow).
        long high = Math.BigMul(a, b, out long low);
        if (high == (low >> 63) && low is > long.MinValue + One and < long.MaxValue - One)
        {
            product = low >= 0 ? (low + One / 2) / One : -((-low + One / 2) / One);
            return true;
        }

        Int128 p = (Int128)a * b;
        Int128 half = One / 2;
        Int128 q = p >= 0 ? (p + half) / One : -((-p + half) / One);
        if (q > long.MaxValue || q < long.MinValue)
        {
            product = 0;
            return false;
        }

        product = (long)q;
        return true;
    }
}

/// <summary>Packing of short codes (currencies) into integers, and dates.</summary>
public static class Codes
{
    /// <summary>Three upper-case ASCII letters as one integer; 0 when <paramref name="code"/> is not that.</summary>
    public static int PackCurrency(ReadOnlySpan<byte> code)
    {
        if (code.Length != 3)
        {
            return 0;
        }

        int packed = 0;
        foreach (byte b in code)
        {
            if (b < 'A' || b > 'Z')
            {
                return 0;
            }

            packed = (packed << 8) | b;
        }

        return packed;
    }

    /// <summary>Writes a packed currency's three letters.</summary>
    public static int WriteCurrency(int packed, Span<byte> destination)
    {
        if (packed == 0 || destination.Length < 3)
        {
            return 0;
        }

        destination[0] = (byte)(packed >> 16);
        destination[1] = (byte)(packed >> 8);
        destination[2] = (byte)packed;
        return 3;
    }

    /// <summary>True for a valid Gregorian date written yyyymmdd (years 1900-2199).</summary>
    public static bool IsDate(int yyyymmdd) => TryDayNumber(yyyymmdd, out _);

    /// <summary>Days since 0001-01-01 of a yyyymmdd date; false when it is not a valid date.</summary>
    public static bool TryDayNumber(int yyyymmdd, out int dayNumber)
    {
        int y = yyyymmdd / 10000, m = yyyymmdd / 100 % 100, d = yyyymmdd % 100;
        if (y < 1900 || y > 2199 || m < 1 || m > 12 || d < 1 || d > DateTime.DaysInMonth(y, m))
        {
            dayNumber = 0;
            return false;
        }

        dayNumber = (int)(new DateOnly(y, m, d).DayNumber);
        return true;
    }
}
