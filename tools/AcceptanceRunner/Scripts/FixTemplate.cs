using System.Globalization;
using System.Text;

namespace RapidFix.AcceptanceRunner.Scripts;

/// <summary>Turns a script's message template into the bytes to send or to expect.</summary>
public static class FixTemplate
{
    public const char Soh = '\u0001';

    /// <summary>
    /// Replaces every &lt;TIME&gt; with <paramref name="utcNow"/> as yyyyMMdd-HH:mm:ss, and every &lt;TIME+N&gt; /
    /// &lt;TIME-N&gt; with that time shifted by N seconds.
    /// </summary>
    public static string ResolveTimes(string template, DateTime utcNow)
    {
        var text = new StringBuilder(template.Length + 16);
        int position = 0;
        while (true)
        {
            int start = template.IndexOf("<TIME", position, StringComparison.Ordinal);
            int end = start < 0 ? -1 : template.IndexOf('>', start);
            if (start < 0 || end < 0)
            {
                return text.Append(template, position, template.Length - position).ToString();
            }

            string inner = template[(start + 5)..end];
            DateTime time = utcNow;
            if (inner.Length > 0)
            {
                if (inner[0] is not ('+' or '-') || !int.TryParse(inner.AsSpan(1), NumberStyles.None, CultureInfo.InvariantCulture, out int seconds))
                {
                    // Not a time placeholder (e.g. "<TIMEOUT>" inside a value): keep it as written.
                    text.Append(template, position, end + 1 - position);
                    position = end + 1;
                    continue;
                }

                time = utcNow.AddSeconds(inner[0] == '+' ? seconds : -seconds);
            }

            text.Append(template, position, start - position).Append(time.ToString("yyyyMMdd-HH:mm:ss", CultureInfo.InvariantCulture));
            position = end + 1;
        }
    }

    /// <summary>
    /// Completes a message the way the QuickFIX test tools do: a message that starts with 8= and has no 9= as its second field gets the
    /// BodyLength of what follows the 8= field (CheckSum field excluded), inserted after 8=; one that does not end
    /// with a 10= field gets its CheckSum appended. Fields already present are kept exactly as written, so
    /// deliberately wrong lengths and checksums are sent as they are. A message that does not start with 8= is left
    /// alone.
    /// </summary>
    public static string Complete(string message)
    {
        if (!message.StartsWith("8=", StringComparison.Ordinal))
        {
            return message;
        }

        int headEnd = message.IndexOf(Soh);
        if (headEnd < 0)
        {
            return message;
        }

        string head = message[..(headEnd + 1)];
        string rest = message[(headEnd + 1)..];
        string? checksum = null;
        int checksumStart = TrailingChecksumStart(rest);
        if (checksumStart >= 0)
        {
            checksum = rest[checksumStart..];
            rest = rest[..checksumStart];
        }

        // BodyLength counts only as the second field: a "9=" inside a data field (XmlData...) is not one.
        bool hasLength = rest.StartsWith("9=", StringComparison.Ordinal);
        string length = hasLength ? "" : "9=" + rest.Length.ToString(CultureInfo.InvariantCulture) + Soh;
        checksum ??= "10=" + Checksum(head + length + rest).ToString("000", CultureInfo.InvariantCulture) + Soh;
        return head + length + rest + checksum;
    }

    /// <summary>Sum of the bytes modulo 256 (chars are bytes here).</summary>
    public static int Checksum(string bytes)
    {
        int sum = 0;
        foreach (char c in bytes)
        {
            sum += c & 0xFF;
        }

        return sum % 256;
    }

    /// <summary>Where a final "10=...&lt;SOH&gt;" field starts in <paramref name="text"/> (after a SOH or at 0), or -1.</summary>
    private static int TrailingChecksumStart(string text)
    {
        if (text.Length == 0 || text[^1] != Soh)
        {
            return -1;
        }

        int fieldStart = text.LastIndexOf(Soh, text.Length - 2) + 1;
        return text.AsSpan(fieldStart).StartsWith("10=", StringComparison.Ordinal) ? fieldStart : -1;
    }

    /// <summary>A message with SOH shown as '|', for reports.</summary>
    public static string Printable(string message) => message.Replace(Soh, '|');
}
