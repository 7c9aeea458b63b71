namespace RapidFix.Matching.Tests;

/// <summary>
/// Trades as FIX text built from the documented examples (docs/matching.md), with the fields a test changes.
/// Message names: NOE, ALC-A, ALC-B, NPR-A, NPR-B, SET-A, SET-B.
/// </summary>
internal static class Trades
{
    public static readonly string[] Seven = ["NOE", "ALC-A", "ALC-B", "NPR-A", "NPR-B", "SET-A", "SET-B"];

    /// <summary>The documented trade with every message ID suffixed by <paramref name="suffix"/> (a distinct set of IDs).</summary>
    public static Dictionary<string, string> Documented(string suffix = "")
    {
        var map = new Dictionary<string, string>();
        foreach (var name in Seven)
        {
            string text = ContractExamples.Get(name);
            map[name] = suffix.Length == 0 ? text : Demo.With(text, IdChange(name, text, suffix));
        }

        return map;
    }

    private static string[] IdChange(string name, string text, string suffix)
    {
        string Field(string tag)
        {
            int at = text.IndexOf("|" + tag + "=", StringComparison.Ordinal) + tag.Length + 2;
            return tag + "=" + text[at..text.IndexOf('|', at)] + suffix;
        }

        return name switch
        {
            "NOE" => [Field("571")],
            "ALC-A" or "ALC-B" => [Field("70")],
            "NPR-A" or "NPR-B" => [Field("664")],
            _ => [Field("777"), Field("162")],
        };
    }

    /// <summary>Processes one FIX text message.</summary>
    public static void Send<TSink>(Matcher matcher, string text, ref TSink sink)
        where TSink : IMatchSink
    {
        matcher.Process(Demo.Parse(text), Demo.SenderOf(text), ref sink);
    }

    /// <summary>Reads one FIX text message into a <see cref="MatchInput"/>.</summary>
    public static MatchInput Read(string text)
    {
        Assert.True(MessageReader.TryRead(Demo.Parse(text), Demo.SenderOf(text), out var input, out var problem), problem.ToString());
        return input;
    }
}
