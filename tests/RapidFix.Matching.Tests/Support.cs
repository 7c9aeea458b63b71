using System.Text;
using RapidFix.Engine.Codec;
using RapidFix.Engine.Dictionary;
using RapidFix.Matching.StaticData;

namespace RapidFix.Matching.Tests;

/// <summary>The demo static data, loaded once (it is read-only after load).</summary>
internal static class Demo
{
    private static readonly Lazy<ReferenceData> Data = new(() => ReferenceData.Load(Directory)); 

    public static string Directory => Path.Combine(AppContext.BaseDirectory, "StaticData", "Demo");

    public static ReferenceData Reference => Data.Value;

    public static readonly DataDictionary Fix44 = StandardDictionaries.Load("FIX44");

    public static Matcher NewMatcher(int openTrades = 1024, int expiryDays = 3, int clearedTrades = -1, int messages = -1, int exceptions = 4096) =>
        new(Reference, new MatcherOptions
        {
            OpenTrades = openTrades, ExpiryBusinessDays = expiryDays, ClearedTrades = clearedTrades, Messages = messages,
            Exceptions = exceptions, BusinessDate = 20261123,
        });

    /// <summary>Parses a documented example (or any '|' text with 9 and 10) against FIX44.</summary>
    public static FixMessage Parse(string text)
    {
        var wire = Encoding.Latin1.GetBytes(text.Replace('|', '\u0001'));
        var m = new FixMessage();
        Assert.Equal(FixParseError.None, m.Parse(wire, 0, wire.Length, Fix44));
        return m;
    }

    /// <summary>Sender CompID (49) of a '|' text message.</summary>
    public static byte[] SenderOf(string text)
    {
        int at = text.IndexOf("|49=", StringComparison.Ordinal) + 4;
        return Encoding.ASCII.GetBytes(text[at..text.IndexOf('|', at)]);
    }

    /// <summary>Changes fields of a '|' text message (tag=value pairs replace the first occurrence) and recomputes 9 and 10.</summary>
    public static string With(string text, params string[] changes)
    {
        var fields = text.TrimEnd('|').Split('|').ToList();
        foreach (var change in changes)
        {
            string tag = change[..(change.IndexOf('=') + 1)];
            int i = fields.FindIndex(f => f.StartsWith(tag, StringComparison.Ordinal));
            Assert.True(i >= 0, $"no {tag} in {text}");
            fields[i] = change;
        }

        return Frame(fields);
    }

    /// <summary>Recomputes BodyLength and CheckSum of a field list that starts with 8= and may hold stale 9= and 10=.</summary>
    public static string Frame(IEnumerable<string> fieldList)
    {
        var fields = fieldList.Where(f => !f.StartsWith("9=", StringComparison.Ordinal) && !f.StartsWith("10=", StringComparison.Ordinal)).ToList();
        string body = string.Join('\u0001', fields.Skip(1)) + "\u0001";
        string msg = fields[0] + "\u0001" + "9=" + body.Length + "\u0001" + body;
        int sum = Encoding.Latin1.GetBytes(msg).Sum(b => b) % 256;
        return (msg + "10=" + sum.ToString("000", System.Globalization.CultureInfo.InvariantCulture) + "\u0001").Replace('\u0001', '|');
    }
}

/// <summary>A sink that records everything (tests only: it allocates).</summary>
internal sealed class RecordingSink : IMatchSink
{
    public List<MatchAck> Acks { get; } = [];

    public List<(long TradeNumber, string[] Accounts, long[] Net)> Cleared { get; } = [];

    public List<MatchException> Exceptions { get; } = [];

    /// <summary>Everything in order, as text (for replay comparisons).</summary>
    public List<string> Log { get; } = [];

    public void OnAck(in MatchAck ack)
    {
        Acks.Add(ack);
        Log.Add($"ACK {ack.Kind} {ack.Trans} {ack.Status} {ack.MessageId} {ack.Reason} {ack.Criterion} {ack.Tag} {ack.ExceptionId}");
    }

    public void OnCleared(in ClearedTrade trade)
    {
        var accounts = new string[trade.AccountCount];
        var net = new long[trade.AccountCount];
        for (int i = 0; i < accounts.Length; i++)
        {
            accounts[i] = Encoding.ASCII.GetString(trade.AccountId(i));
            net[i] = trade.NetProceeds(i).Net;
        }

        Cleared.Add((trade.TradeNumber, accounts, net));
        Log.Add($"CLS {trade.TradeNumber} {Encoding.ASCII.GetString(trade.Isin)} {string.Join(',', accounts)} {string.Join(',', net)}");
    }

    public void OnException(in MatchException exception)
    {
        Exceptions.Add(exception);
        Log.Add("EXC " + Text(exception));
    }

    public static string Text(in MatchException e)
    {
        Span<byte> buffer = stackalloc byte[ExceptionText.MaxLength];
        return Encoding.ASCII.GetString(buffer[..ExceptionText.Write(in e, buffer)]);
    }

    public MatchAck LastAck => Acks[^1];
}

/// <summary>A sink that only counts (allocation tests, benchmarks).</summary>
internal struct CountingSink : IMatchSink
{
    public long Acks;
    public long Rejected;
    public long Cleared;
    public long Exceptions;

    public void OnAck(in MatchAck ack)
    {
        Acks++;
        if (ack.Status == AckStatus.Rejected)
        {
            Rejected++;
        }
    }

    public void OnCleared(in ClearedTrade trade) => Cleared++;

    public void OnException(in MatchException exception) => Exceptions++;
}
