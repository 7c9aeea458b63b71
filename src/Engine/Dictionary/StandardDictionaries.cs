namespace RapidFix.Engine.Dictionary;

/// <summary>
/// The QuickFIX-format dictionaries built into the engine (FIX 4.0 to 4.4, FIX 5.0 to 5.0SP2, FIXT 1.1), so a
/// session can validate with no dictionary file beside the application. Each call loads a fresh copy: startup work.
/// This product includes software developed by quickfixengine.org (http://www.quickfixengine.org/).
/// </summary>
public static class StandardDictionaries
{
    /// <summary>The built-in dictionary names: FIX40, FIX41, FIX42, FIX43, FIX44, FIX50, FIX50SP1, FIX50SP2, FIXT11.</summary>
    public static IReadOnlyList<string> Names { get; } =
        ["FIX40", "FIX41", "FIX42", "FIX43", "FIX44", "FIX50", "FIX50SP1", "FIX50SP2", "FIXT11"];

    /// <summary>Loads a built-in dictionary by file name ("FIX44") or version ("FIX.4.4", "FIX.5.0SP2", "FIXT.1.1").</summary>
    public static DataDictionary Load(string nameOrVersion)
    {
        string name = Normalize(nameOrVersion);
        var assembly = typeof(StandardDictionaries).Assembly;
        using var stream = assembly.GetManifestResourceStream($"RapidFix.Dictionaries.{name}.xml")
            ?? throw new ArgumentException($"No built-in dictionary '{nameOrVersion}'. Built in: {string.Join(", ", Names)}.", nameof(nameOrVersion));
        return DataDictionary.Load(stream, $"built-in {name}");
    }

    /// <summary>
    /// The dictionary a session of this BeginString uses; for FIXT.1.1, the transport dictionary combined with the
    /// application version's (default FIX.5.0SP2).
    /// </summary>
    public static DataDictionary ForSession(string beginString, string defaultApplVerId = "FIX.5.0SP2") =>
        beginString == "FIXT.1.1"
            ? DataDictionary.Combine(Load("FIXT11"), Load(defaultApplVerId))
            : Load(beginString);

    private static string Normalize(string s)
    {
        var compact = s.Replace(".", string.Empty, StringComparison.Ordinal).ToUpperInvariant();
        return compact switch
        {
            "FIXT11" => "FIXT11",
            _ when Names.Contains(compact) => compact,
            _ => s,
        };
    }
}
