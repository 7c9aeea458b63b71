using System.Text;

namespace RapidFix.Tests.Shared;

/// <summary>
/// Sample FIX 4.4 messages used by the tests and the benchmarks, and a helper that turns readable "|"-separated
/// text into wire bytes with a correct BodyLength and CheckSum.
/// </summary>
public static class FixSamples
{
    /// <summary>A NewOrderSingle of about 200 bytes.</summary>
    public const string NewOrderSingle =
        "8=FIX.4.4|35=D|34=1234|49=CLIENT01|52=20261121-21:30:15.123|56=BROKER01|" +
        "11=ORD-0000012345|1=ACCT-778|21=1|55=MSFT|54=1|60=20261121-21:30:15.120|38=1500|40=2|44=412.37|59=0|18=G|";

    /// <summary>An ExecutionReport (partial fill).</summary>
    public const string ExecutionReport =
        "8=FIX.4.4|35=8|34=5678|49=BROKER01|52=20261121-21:30:15.456|56=CLIENT01|" +
        "37=BRK-998877|11=ORD-0000012345|17=EXE-5566778899|150=F|39=1|1=ACCT-778|55=MSFT|54=1|38=1500|40=2|44=412.37|" +
        "32=500|31=412.35|151=1000|14=500|6=412.35|60=20261121-21:30:15.455|";

    /// <summary>A MarketDataSnapshotFullRefresh with a 10-entry NoMDEntries group.</summary>
    public static readonly string MarketDataSnapshot = BuildSnapshot(10);

    /// <summary>A snapshot with <paramref name="entries"/> bid/offer entries.</summary>
    public static string BuildSnapshot(int entries)
    {
        var sb = new StringBuilder("8=FIX.4.4|35=W|34=42|49=VENUE|52=20261121-21:30:15.789|56=CLIENT01|262=MDREQ-1|55=MSFT|48=594918104|22=1|");
        sb.Append("268=").Append(entries).Append('|');
        for (int i = 0; i < entries; i++)
        {
            bool bid = i % 2 == 0;
            sb.Append("269=").Append(bid ? '0' : '1').Append('|');
            sb.Append("270=").Append(bid ? 412.30m - (i / 2 * 0.01m) : 412.40m + (i / 2 * 0.01m)).Append('|');
            sb.Append("15=USD|");
            sb.Append("271=").Append(100 * (i + 1)).Append('|');
            sb.Append("273=21:30:15.").Append((700 + i).ToString("000")).Append('|');
            sb.Append("290=").Append((i / 2) + 1).Append('|');
        }

        return sb.ToString();
    }

    /// <summary>
    /// Wire bytes for readable text: '|' becomes SOH; when the text has no BodyLength (9) and CheckSum (10), they are
    /// computed and inserted, otherwise the text is kept exactly (to build deliberately broken messages).
    /// </summary>
    public static byte[] Wire(string text)
    {
        var raw = Encoding.Latin1.GetBytes(text.Replace('|', '\u0001'));
        if (text.Contains("|9=", StringComparison.Ordinal) || text.Contains("|10=", StringComparison.Ordinal))
        {
            return raw;
        }

        int firstSoh = Array.IndexOf(raw, (byte)1);
        var begin = raw.AsSpan(0, firstSoh + 1);
        var body = raw.AsSpan(firstSoh + 1);
        var head = Encoding.ASCII.GetBytes($"9={body.Length}\u0001");
        var message = new byte[begin.Length + head.Length + body.Length + 7];
        begin.CopyTo(message);
        head.CopyTo(message.AsSpan(begin.Length));
        body.CopyTo(message.AsSpan(begin.Length + head.Length));
        int sum = 0;
        for (int i = 0; i < message.Length - 7; i++)
        {
            sum += message[i];
        }

        Encoding.ASCII.GetBytes($"10={sum % 256:000}\u0001").CopyTo(message.AsSpan(message.Length - 7));
        return message;
    }

    /// <summary>Readable text of wire bytes ('|' for SOH).</summary>
    public static string Text(ReadOnlySpan<byte> wire) => Encoding.Latin1.GetString(wire).Replace('\u0001', '|');
}
