using System.Text;

namespace RapidFix.Engine.Configuration;

/// <summary>
/// Identifies a FIX session: BeginString, our and the counterparty's CompID (with optional SubID and LocationID)
/// and an optional qualifier. Empty optional parts are "not set". Equality is ordinal on every part.
/// </summary>
public sealed record SessionId(
    string BeginString,
    string SenderCompId,
    string TargetCompId,
    string SenderSubId = "",
    string SenderLocationId = "",
    string TargetSubId = "",
    string TargetLocationId = "",
    string SessionQualifier = "")
{
    /// <summary>True for FIXT.1.1 sessions (FIX 5.x application messages).</summary>
    public bool IsFixt => BeginString.StartsWith("FIXT", StringComparison.Ordinal);

    /// <summary>
    /// The QuickFIX/n-style text form: <c>FIX.4.2:ISLD/SUB/LOC-&gt;TW/SUB/LOC:Qualifier</c>. The sub and location
    /// parts appear only when set.
    /// </summary>
    public override string ToString()
    {
        var text = new StringBuilder();
        text.Append(BeginString).Append(':').Append(SenderCompId);
        AppendIfSet(text, SenderSubId);
        AppendIfSet(text, SenderLocationId);
        text.Append("->").Append(TargetCompId);
        AppendIfSet(text, TargetSubId);
        AppendIfSet(text, TargetLocationId);
        if (SessionQualifier.Length > 0)
        {
            text.Append(':').Append(SessionQualifier);
        }

        return text.ToString();

        static void AppendIfSet(StringBuilder text, string part)
        {
            if (part.Length > 0)
            {
                text.Append('/').Append(part);
            }
        }
    }

    /// <summary>
    /// A name made of the identity's parts that is safe as a file name on every OS (used for store journals).
    /// Parts are joined with '-', '--' and '.'; any other character than a letter or digit (and '.' in the
    /// BeginString) is written as _XXXX (hex), so distinct identities never share a name.
    /// </summary>
    public string ToFileName()
    {
        var text = new StringBuilder();
        Append(text, BeginString, allowDot: true);
        text.Append('-');
        Append(text, SenderCompId);
        AppendPart(text, SenderSubId);
        AppendPart(text, SenderLocationId);
        text.Append("--");
        Append(text, TargetCompId);
        AppendPart(text, TargetSubId);
        AppendPart(text, TargetLocationId);
        if (SessionQualifier.Length > 0)
        {
            text.Append("--");
            Append(text, SessionQualifier);
        }

        return text.ToString();

        static void AppendPart(StringBuilder text, string part)
        {
            if (part.Length > 0)
            {
                text.Append('.');
                Append(text, part);
            }
        }

        static void Append(StringBuilder text, string part, bool allowDot = false)
        {
            foreach (char c in part)
            {
                if (char.IsAsciiLetterOrDigit(c) || (allowDot && c == '.'))
                {
                    text.Append(c);
                }
                else
                {
                    text.Append('_').Append(((int)c).ToString("X4", System.Globalization.CultureInfo.InvariantCulture));
                }
            }
        }
    }
}
