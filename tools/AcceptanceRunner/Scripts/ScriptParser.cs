using System.Globalization;
using System.Text;

namespace RapidFix.AcceptanceRunner.Scripts;

/// <summary>
/// Reads the QuickFIX acceptance script format: '#' comments and blank lines, iCONNECT / iN,CONNECT,
/// iDISCONNECT, eDISCONNECT, I/E messages with an optional "N," connection prefix, and sleep(n).
/// </summary>
/// <remarks>Scripts are read as bytes; each byte becomes one char (Latin-1), so messages are sent exactly as written.</remarks>
public static class ScriptParser
{
    public static AcceptanceScript Load(string path)
    {
        string text = Encoding.Latin1.GetString(File.ReadAllBytes(path));
        return Parse(text, path);
    }

    public static AcceptanceScript Parse(string text, string path)
    {
        var steps = new List<ScriptStep>();
        string[] lines = text.Split('\n');
        for (int index = 0; index < lines.Length; index++)
        {
            int number = index + 1;
            string line = lines[index].TrimEnd('\r');
            if (line.Trim().Length == 0 || line[0] == '#')
            {
                continue;
            }

            steps.Add(ParseLine(line, number, path));
        }

        return new AcceptanceScript(System.IO.Path.GetFileNameWithoutExtension(path), path, steps);
    }

    private static ScriptStep ParseLine(string line, int number, string path)
    {
        if (line.StartsWith("sleep", StringComparison.Ordinal))
        {
            int open = line.IndexOf('(');
            int close = line.LastIndexOf(')');
            if (open < 0 || close < open ||
                !double.TryParse(line.AsSpan(open + 1, close - open - 1), NumberStyles.Float, CultureInfo.InvariantCulture, out double seconds) ||
                seconds < 0)
            {
                throw new ScriptParseException(path, number, $"'{line}' is not sleep(<seconds>)");
            }

            return new ScriptStep(StepKind.Sleep, number, line, Seconds: seconds);
        }

        char kind = line[0];
        if (kind is not ('I' or 'E' or 'i' or 'e'))
        {
            throw new ScriptParseException(path, number, $"'{Shorten(line)}' starts with neither I, E, i, e, sleep nor #");
        }

        // Optional connection prefix: a single digit (or more) followed by a comma, as in "I2,8=..." or "e1,DISCONNECT".
        int connection = 1;
        string body = line[1..];
        int digits = 0;
        while (digits < body.Length && char.IsAsciiDigit(body[digits]))
        {
            digits++;
        }

        if (digits > 0 && digits < body.Length && body[digits] == ',')
        {
            connection = int.Parse(body.AsSpan(0, digits), CultureInfo.InvariantCulture);
            body = body[(digits + 1)..];
        }

        if (kind is 'i' or 'e')
        {
            return (kind, body) switch
            {
                ('i', "CONNECT") => new ScriptStep(StepKind.Connect, number, line, connection),
                ('i', "DISCONNECT") => new ScriptStep(StepKind.Disconnect, number, line, connection),
                ('e', "CONNECT") => new ScriptStep(StepKind.ExpectConnect, number, line, connection),
                ('e', "DISCONNECT") => new ScriptStep(StepKind.ExpectDisconnect, number, line, connection),
                _ => throw new ScriptParseException(path, number, $"'{line}' is neither CONNECT nor DISCONNECT"),
            };
        }

        if (body.Length == 0)
        {
            throw new ScriptParseException(path, number, $"'{line}' has no message");
        }

        return new ScriptStep(kind == 'I' ? StepKind.Send : StepKind.Expect, number, line, connection, body);
    }

    private static string Shorten(string line) => line.Length > 40 ? line[..40] + "..." : line;
}
