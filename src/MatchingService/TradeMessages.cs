using System.Globalization;
using System.Text;

namespace RapidFix.MatchingService;

/// <summary>One account of a <see cref="TradeSpec"/>.</summary>
/// <param name="Account">The account (79; PartyID with role 24 on SET).</param>
/// <param name="Quantity">Allocated quantity.</param>
/// <param name="Place">Place of settlement (PartyID with role 10).</param>
internal sealed record AccountSpec(string Account, long Quantity, string Place);

/// <summary>
/// A standard trade's content: what its seven messages (NOE, an ALC, NPR and SET per account) say, in the tag
/// contract of docs/matching.md. Amounts are derived here so that the messages agree.
/// </summary>
internal sealed record TradeSpec
{
    /// <summary>Prefix of every ID of the trade ("T42" gives T42-NOE, T42-ALC1...): answers are traced back by it.</summary>
    public required string Key { get; init; }

    public required string InvestmentManager { get; init; }

    public required string ExecutingBroker { get; init; }

    public required string Isin { get; init; }

    public required string Currency { get; init; }

    /// <summary>Minor units of <see cref="Currency"/> (amounts are rounded to them).</summary>
    public int MinorUnits { get; init; } = 2;

    /// <summary>'1' buy, '2' sell.</summary>
    public char Side { get; init; } = '1';

    public int TradeDate { get; init; }

    public int SettlDate { get; init; }

    /// <summary>Price as text (its decimals as sent).</summary>
    public required decimal Price { get; init; }

    public required IReadOnlyList<AccountSpec> Accounts { get; init; }

    /// <summary>Commission rate of the gross amount (absolute commission is sent, 13=3).</summary>
    public decimal CommissionRate { get; init; } = 0.002m;

    /// <summary>Added to the first NPR's net amount (0: consistent; large: beyond tolerance).</summary>
    public decimal NetError { get; init; }

    public long BlockQuantity => Accounts.Sum(a => a.Quantity);
}

/// <summary>
/// Writes a <see cref="TradeSpec"/>'s messages as FIX 4.4 tag=value bodies (from MsgType on, without the header the
/// session adds) and as complete messages. Startup and tool work: allocates freely.
/// </summary>
internal static class TradeMessages
{
    /// <summary>The FIX text of every field after 35=MsgType of one message, SOH-separated, and its sender.</summary>
    /// <param name="MsgType">AE, J, AK or T.</param>
    /// <param name="Sender">The participant that sends it.</param>
    /// <param name="Id">The message's identity (571, 70, 664, 162).</param>
    /// <param name="Body">The body fields, each ending with SOH.</param>
    public readonly record struct Message(string MsgType, string Sender, string Id, string Body);

    private const char Soh = '\u0001';

    public static Message Noe(TradeSpec t, string trans = "0", string? id = null, string? refId = null)
    {
        var b = new Body();
        id ??= t.Key + "-NOE";
        b.Add(571, id).Add(487, trans);
        if (refId is not null)
        {
            b.Add(572, refId);
        }

        b.Add(856, "0").Add(570, "N").Add(55, "[N/A]").Add(48, t.Isin).Add(22, "4").Add(32, t.BlockQuantity).Add(31, t.Price)
            .Add(75, t.TradeDate).Add(753, "0").Add(60, Timestamp(t.TradeDate)).Add(768, "1").Add(769, Timestamp(t.TradeDate)).Add(770, "1")
            .Add(64, t.SettlDate).Add(552, "1").Add(54, t.Side.ToString()).Add(37, t.Key + "-ORD");

        // Inside the NoSides entry the dictionary puts Parties before Currency (group fields in order: ValidateUnorderedGroupFields).
        Parties(b, t, null, null);
        b.Add(15, t.Currency);
        return new Message("AE", t.ExecutingBroker, id, b.ToString());
    }

    public static Message Alc(TradeSpec t, int account, string trans = "0", string? id = null, string? refId = null)
    {
        var a = t.Accounts[account];
        var b = new Body();
        id ??= t.Key + "-ALC" + (account + 1);
        b.Add(70, id).Add(71, trans);
        if (refId is not null)
        {
            b.Add(72, refId);
        }

        b.Add(626, "2").Add(857, "0").Add(54, t.Side.ToString()).Add(55, "[N/A]").Add(48, t.Isin).Add(22, "4").Add(53, a.Quantity).Add(6, t.Price)
            .Add(15, t.Currency).Add(75, t.TradeDate).Add(60, Timestamp(t.TradeDate)).Add(64, t.SettlDate);
        Parties(b, t, null, null);
        b.Add(78, "1").Add(79, a.Account).Add(80, a.Quantity);
        return new Message("J", t.InvestmentManager, id, b.ToString());
    }

    public static Message Npr(TradeSpec t, int account, string trans = "0", string? id = null, string? refId = null)
    {
        var a = t.Accounts[account];
        var b = new Body();
        id ??= t.Key + "-NPR" + (account + 1);
        decimal gross = Round(a.Quantity * t.Price, t.MinorUnits);
        decimal commission = Round(gross * t.CommissionRate, t.MinorUnits);
        decimal fee = Round(gross * 0.0001m, t.MinorUnits);
        decimal tax = Round(commission * 0.07m, t.MinorUnits);
        decimal net = t.Side == '1' ? gross + commission + fee + tax : gross - commission - fee - tax;
        if (account == 0)
        {
            net += t.NetError;
        }

        b.Add(664, id).Add(666, trans);
        if (refId is not null)
        {
            b.Add(772, refId);
        }

        b.Add(773, "2").Add(665, "1").Add(60, Timestamp(t.TradeDate)).Add(75, t.TradeDate).Add(64, t.SettlDate);
        Parties(b, t, a.Place, null);
        b.Add(55, "[N/A]").Add(48, t.Isin).Add(22, "4").Add(711, "0").Add(555, "0").Add(768, "1").Add(769, Timestamp(t.TradeDate)).Add(770, "1")
            .Add(80, a.Quantity).Add(54, t.Side.ToString()).Add(15, t.Currency).Add(862, "1").Add(528, "A").Add(863, a.Quantity).Add(79, a.Account)
            .Add(6, t.Price).Add(381, Amount(gross, t.MinorUnits)).Add(118, Amount(net, t.MinorUnits)).Add(119, Amount(net, t.MinorUnits))
            .Add(120, t.Currency).Add(12, Amount(commission, t.MinorUnits)).Add(13, "3")
            .Add(136, "2").Add(137, Amount(fee, t.MinorUnits)).Add(139, "4").Add(137, Amount(tax, t.MinorUnits)).Add(139, "2");
        return new Message("AK", t.ExecutingBroker, id, b.ToString());
    }

    public static Message Set(TradeSpec t, int account, string trans = "N", string? id = null, string? refId = null)
    {
        var a = t.Accounts[account];
        var b = new Body();
        id ??= t.Key + "-SET" + (account + 1);
        b.Add(777, id + "-M").Add(160, "1").Add(60, Timestamp(t.TradeDate)).Add(778, "1").Add(162, id).Add(163, trans);
        if (refId is not null)
        {
            b.Add(214, refId);
        }

        // Inside the NoSettlInst entry the dictionary puts Parties before Side.
        Parties(b, t, a.Place, a.Account);
        b.Add(54, t.Side.ToString());
        return new Message("T", t.InvestmentManager, id, b.ToString());
    }

    /// <summary>The standard seven: NOE, then per account ALC, NPR, SET.</summary>
    public static List<Message> Standard(TradeSpec t)
    {
        var list = new List<Message>(1 + (3 * t.Accounts.Count)) { Noe(t) };
        for (int i = 0; i < t.Accounts.Count; i++)
        {
            list.Add(Alc(t, i));
            list.Add(Npr(t, i));
            list.Add(Set(t, i));
        }

        return list;
    }

    /// <summary>A complete FIX 4.4 message (header, body, BodyLength and CheckSum) from <paramref name="sender"/> to <paramref name="target"/>.</summary>
    public static byte[] Complete(Message m, string target, int msgSeqNum)
    {
        string afterLength = $"35={m.MsgType}{Soh}34={msgSeqNum}{Soh}49={m.Sender}{Soh}52=20261123-10:00:00.000{Soh}56={target}{Soh}{m.Body}";
        string head = $"8=FIX.4.4{Soh}9={Encoding.ASCII.GetByteCount(afterLength)}{Soh}";
        var bytes = Encoding.ASCII.GetBytes(head + afterLength);
        int sum = 0;
        foreach (byte x in bytes)
        {
            sum += x;
        }

        return Encoding.ASCII.GetBytes(head + afterLength + "10=" + (sum % 256).ToString("D3", CultureInfo.InvariantCulture) + Soh);
    }

    private static void Parties(Body b, TradeSpec t, string? place, string? account)
    {
        int n = 2 + (place is null ? 0 : 1) + (account is null ? 0 : 1);
        b.Add(453, n).Add(448, t.ExecutingBroker).Add(447, "D").Add(452, "1").Add(448, t.InvestmentManager).Add(447, "D").Add(452, "13");
        if (account is not null)
        {
            b.Add(448, account).Add(447, "D").Add(452, "24");
        }

        if (place is not null)
        {
            b.Add(448, place).Add(447, "D").Add(452, "10");
        }
    }

    private static string Timestamp(int date) => date.ToString(CultureInfo.InvariantCulture) + "-10:00:00.000";

    private static decimal Round(decimal value, int decimals) => Math.Round(value, decimals, MidpointRounding.AwayFromZero);

    private static string Amount(decimal value, int decimals) => value.ToString("F" + decimals.ToString(CultureInfo.InvariantCulture), CultureInfo.InvariantCulture);

    private sealed class Body
    {
        private readonly StringBuilder _text = new(512);

        public Body Add(int tag, string value)
        {
            _text.Append(tag).Append('=').Append(value).Append(Soh);
            return this;
        }

        public Body Add(int tag, long value) => Add(tag, value.ToString(CultureInfo.InvariantCulture));

        public Body Add(int tag, decimal value) => Add(tag, value.ToString(CultureInfo.InvariantCulture));

        public override string ToString() => _text.ToString();
    }
}
