using System.Globalization;
using System.Text;

namespace RapidFix.Persistence;

/// <summary>
/// The fields of a FIX message (tag=value, SOH between fields) that the persister stores in columns. A plain scan,
/// no dictionary: the persister keeps the whole message in <c>fix_message.body</c> and only needs these to key,
/// date and classify it. The first occurrence of a tag wins, except the parties, which are read as (448, 452) pairs.
/// Fewer strings per message: the values that repeat from message to message (message type, CompIDs, party IDs, ISIN,
/// dates, side, currency, statuses and codes) come from <see cref="Strings"/>, a table of strings made once; the
/// sending time and the amounts are parsed from the bytes, with no string at all; the party role is compared as bytes.
/// </summary>
internal sealed class FixFields
{
    public string? MsgType, SenderCompId, TargetCompId, TradeDate, Isin, Side, Account,
        Currency, SettlDate, Text, RefMsgType, RefId, RefSeqNum, RejectCode, Status, ConfirmType, TradeReportId, AllocId,
        ConfirmId, SettlInstMsgId;

    /// <summary>SendingTime (52), to the microsecond; null when absent or malformed.</summary>
    public DateTime? SendingTime;

    /// <summary>Quantity (80) and NetAmount (118); null when absent or not a number.</summary>
    public decimal? Quantity, NetAmount;

    public int MsgSeqNum;
    public string? InvestmentManager, ExecutingBroker, AccountParty;

    private bool _hasSendingTime, _hasQuantity, _hasNetAmount;
    private string? _tradeKey;

    public static FixFields Parse(ReadOnlySpan<byte> message)
    {
        var f = new FixFields();
        string? partyId = null;
        int start = 0;
        while (start < message.Length)
        {
            int end = message[start..].IndexOf((byte)1);
            var field = end < 0 ? message[start..] : message.Slice(start, end);
            start = end < 0 ? message.Length : start + end + 1;
            int eq = field.IndexOf((byte)'=');
            if (eq <= 0 || !TryTag(field[..eq], out int tag))
            {
                continue;
            }

            var value = field[(eq + 1)..];
            switch (tag)
            {
                case 35: f.MsgType ??= Strings.Get(value); break;
                case 34: if (f.MsgSeqNum == 0) { _ = int.TryParse(value, NumberStyles.None, CultureInfo.InvariantCulture, out f.MsgSeqNum); } break;
                case 49: f.SenderCompId ??= Strings.Get(value); break;
                case 56: f.TargetCompId ??= Strings.Get(value); break;
                case 52: if (!f._hasSendingTime) { f._hasSendingTime = true; f.SendingTime = Timestamp(value); } break;
                case 75: f.TradeDate ??= Strings.Get(value); break;
                case 48: f.Isin ??= Strings.Get(value); break;
                case 54: f.Side ??= Strings.Get(value); break;
                case 79: f.Account ??= Strings.Get(value); break;
                case 80: if (!f._hasQuantity) { f._hasQuantity = true; f.Quantity = Number(value); } break;
                case 118: if (!f._hasNetAmount) { f._hasNetAmount = true; f.NetAmount = Number(value); } break;
                case 15: f.Currency ??= Strings.Get(value); break;
                case 64: f.SettlDate ??= Strings.Get(value); break;
                case 58: f.Text ??= S(value); break;
                case 372: f.RefMsgType ??= Strings.Get(value); break;
                case 379: f.RefId ??= S(value); break;
                case 45: f.RefSeqNum ??= S(value); break;
                case 571: f.TradeReportId ??= S(value); break;
                case 70: f.AllocId ??= S(value); break;
                case 664: f.ConfirmId ??= S(value); break;
                case 777: f.SettlInstMsgId ??= S(value); break;
                case 773: f.ConfirmType ??= Strings.Get(value); break;
                // The ack's status and reject code (AR 939/751, P 87/88, AU 940/774, j 380).
                case 939 or 87 or 940: f.Status ??= Strings.Get(value); break;
                case 751 or 88 or 774 or 380: f.RejectCode ??= Strings.Get(value); break;
                case 448: partyId = Strings.Get(value); break;
                case 452:
                    if (partyId is not null)
                    {
                        if (value.SequenceEqual("13"u8))
                        {
                            f.InvestmentManager ??= partyId;
                        }
                        else if (value.SequenceEqual("1"u8))
                        {
                            f.ExecutingBroker ??= partyId;
                        }
                        else if (value.SequenceEqual("24"u8))
                        {
                            f.AccountParty ??= partyId;
                        }
                    }

                    partyId = null;
                    break;
            }
        }

        return f;
    }

    /// <summary>The participant's own ID of an input (AE 571, J 70, AK 664, T 777).</summary>
    public string? InputId => MsgType switch
    {
        "AE" => TradeReportId,
        "J" => AllocId,
        "AK" => ConfirmId,
        "T" => SettlInstMsgId,
        _ => null,
    };

    /// <summary>The matching key of a trade (manager, broker, side, ISIN, trade date), when the message carries it.</summary>
    public string? TradeKey =>
        InvestmentManager is null || ExecutingBroker is null || Isin is null || TradeDate is null || Side is null
            ? null
            : _tradeKey ??= $"{InvestmentManager}|{ExecutingBroker}|{Side}|{Isin}|{TradeDate}"; // made once a message

    public static DateOnly? Date(string? yyyymmdd) =>
        yyyymmdd is { Length: 8 } && DateOnly.TryParseExact(yyyymmdd, "yyyyMMdd", CultureInfo.InvariantCulture, DateTimeStyles.None, out var d) ? d : null;

    /// <summary>A UTCTimestamp (YYYYMMDD-HH:MM:SS[.sss[sss[sss]]]), to microseconds (what PostgreSQL keeps); null when malformed.</summary>
    public static DateTime? Timestamp(ReadOnlySpan<byte> utc)
    {
        if (utc.Length < 17 || utc[8] != '-' || utc[11] != ':' || utc[14] != ':')
        {
            return null;
        }

        if (!Digits(utc, 0, 4, out int year) || !Digits(utc, 4, 2, out int month) || !Digits(utc, 6, 2, out int day) ||
            !Digits(utc, 9, 2, out int hour) || !Digits(utc, 12, 2, out int minute) || !Digits(utc, 15, 2, out int second) ||
            month is < 1 or > 12 || day < 1 || day > DateTime.DaysInMonth(Math.Max(1, year), month) || hour > 23 || minute > 59 || second > 60)
        {
            return null;
        }

        long ticks = 0;
        if (utc.Length > 18 && utc[17] == '.')
        {
            int digits = Math.Min(utc.Length - 18, 6);
            if (!Digits(utc, 18, digits, out int fraction))
            {
                return null;
            }

            for (int i = digits; i < 7; i++)
            {
                fraction *= 10;
            }

            ticks = fraction;
        }

        return new DateTime(year, month, day, hour, minute, Math.Min(second, 59), DateTimeKind.Unspecified).AddTicks(ticks);
    }

    private static bool Digits(ReadOnlySpan<byte> s, int start, int count, out int value)
    {
        value = 0;
        for (int i = start; i < start + count; i++)
        {
            if (s[i] is < (byte)'0' or > (byte)'9')
            {
                return false;
            }

            value = value * 10 + (s[i] - '0');
        }

        return count > 0;
    }

    /// <summary>A decimal number (digits, one point, a leading sign), parsed from the UTF-8 bytes; null when not one.</summary>
    public static decimal? Number(ReadOnlySpan<byte> value) =>
        decimal.TryParse(value, NumberStyles.AllowDecimalPoint | NumberStyles.AllowLeadingSign, CultureInfo.InvariantCulture, out var d) ? d : null;

    // Latin-1 would map any byte; UTF-8 keeps what participants send readable. Bytes PostgreSQL refuses in text (NUL)
    // stay in the string on purpose: the row is then quarantined with PostgreSQL's reason, and the raw message kept.
    private static string S(ReadOnlySpan<byte> value) => Encoding.UTF8.GetString(value);

    /// <summary>A tag number from its ASCII digits (at most 9); false for anything else. Shared with <see cref="RowEncoder"/>'s scan.</summary>
    internal static bool TryTag(ReadOnlySpan<byte> digits, out int tag)
    {
        tag = 0;
        if (digits.Length > 9)
        {
            return false;
        }

        foreach (byte b in digits)
        {
            if (b is < (byte)'0' or > (byte)'9')
            {
                return false;
            }

            tag = tag * 10 + (b - '0');
        }

        return true;
    }
}

/// <summary>
/// Strings for the FIX values that repeat from message to message (message types, CompIDs, party IDs, ISINs,
/// dates, codes), made once and handed out again: a fixed table of 8,192 slots, sized at startup, indexed by a hash
/// of the bytes; a slot holds the last string made for its hash, and is used when its characters equal the bytes.
/// A miss (a new value, or two values sharing a slot) makes the string as before and puts it in the slot: it
/// costs what a string a value cost before, never more. Only short ASCII values are kept (other values are decoded
/// as UTF-8 every time, as before). Shared by every worker thread without a lock: a slot is one reference, read
/// once and checked, so a race only costs a miss.
/// </summary>
internal static class Strings
{
    private const int Slots = 8192;
    private const int Longest = 32;
    private static readonly string?[] Table = new string?[Slots];

    public static string Get(ReadOnlySpan<byte> value)
    {
        if (value.Length > Longest)
        {
            return Encoding.UTF8.GetString(value);
        }

        uint hash = 2166136261; // FNV-1a
        foreach (byte b in value)
        {
            if (b >= 0x80)
            {
                return Encoding.UTF8.GetString(value);
            }

            hash = (hash ^ b) * 16777619;
        }

        ref string? slot = ref Table[hash & (Slots - 1)];
        string? cached = slot;
        if (cached is not null && Equal(cached, value))
        {
            return cached;
        }

        string made = Encoding.ASCII.GetString(value);
        slot = made;
        return made;
    }

    private static bool Equal(string s, ReadOnlySpan<byte> ascii)
    {
        if (s.Length != ascii.Length)
        {
            return false;
        }

        for (int i = 0; i < ascii.Length; i++)
        {
            if (s[i] != ascii[i])
            {
                return false;
            }
        }

        return true;
    }
}
