using System.Text;
using RapidFix.AcceptanceRunner.Scripts;

namespace RapidFix.AcceptanceRunner.Hosting;

/// <summary>
/// The acceptor settings the acceptance scripts assume (shared/fix/README.md and at_*.cfg): SenderCompID=ISLD,
/// TargetCompID=TW, ResetOnLogon=Y, always in session, the dictionary of the FIX version the scripts use; and
/// AcceptanceScriptCompatibility=Y, because these scripts pin three answers of the older QuickFIX that RapidFix's
/// defaults no longer give (docs/conformance.md).
/// </summary>
public static class AcceptorSettings
{
    /// <summary>
    /// The FIX version of a set of scripts: the BeginString the engine is expected to answer with (scripts that
    /// expect nothing, such as one that only sends a wrong BeginString, do not count); when no script expects a
    /// message, the one they send. An error when they disagree or say nothing.
    /// </summary>
    public static string InferBeginString(IReadOnlyList<AcceptanceScript> scripts)
    {
        var versions = scripts.Select(s => s.ExpectedBeginString).OfType<string>().Distinct(StringComparer.Ordinal).ToList();
        if (versions.Count == 0)
        {
            versions = scripts.Select(s => s.SentBeginString).OfType<string>().Distinct(StringComparer.Ordinal).ToList();
        }

        return versions.Count switch
        {
            1 => versions[0],
            0 => throw new InvalidOperationException("the scripts contain no message starting with 8=, so their FIX version cannot be inferred; use --config"),
            _ => throw new InvalidOperationException($"the scripts use several FIX versions ({string.Join(", ", versions)}); run one folder at a time or use --config"),
        };
    }

    /// <summary>
    /// Settings text for an in-process acceptor on an OS-chosen port. <paramref name="specDirectory"/> is where
    /// the dictionaries are (shared/fix/spec), when known. FIXT.1.1 scripts are taken to be FIX 5.0 SP2, as in
    /// at_50_sp2.cfg; the misc scripts need at_42.misc.cfg, given with --config.
    /// </summary>
    public static string For(string beginString, string? specDirectory)
    {
        string Spec(string file) => specDirectory is null ? file : Path.Combine(specDirectory, file);

        var text = new StringBuilder();
        text.AppendLine("[DEFAULT]");
        text.AppendLine("ConnectionType=acceptor");
        text.AppendLine("SocketAcceptHost=127.0.0.1");
        text.AppendLine("SocketAcceptPort=0");
        text.AppendLine("SenderCompID=ISLD");
        text.AppendLine("TargetCompID=TW");
        text.AppendLine("ResetOnLogon=Y");
        text.AppendLine("AcceptanceScriptCompatibility=Y");
        text.AppendLine("StartTime=00:00:00");
        text.AppendLine("EndTime=00:00:00");
        text.AppendLine("StoreType=express");
        text.AppendLine("[SESSION]");
        text.AppendLine("BeginString=" + beginString);
        if (beginString == "FIXT.1.1")
        {
            text.AppendLine("DefaultApplVerID=FIX.5.0SP2");
            text.AppendLine("TransportDataDictionary=" + Spec("FIXT11.xml"));
            text.AppendLine("AppDataDictionary=" + Spec("FIX50SP2.xml"));
        }
        else
        {
            text.AppendLine("DataDictionary=" + Spec(beginString.Replace(".", "", StringComparison.Ordinal) + ".xml"));
        }

        return text.ToString();
    }
}
