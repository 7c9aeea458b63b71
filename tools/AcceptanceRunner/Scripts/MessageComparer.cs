using System.Text.RegularExpressions;

namespace RapidFix.AcceptanceRunner.Scripts;

/// <summary>
/// Compares a received message with an expected one field by field, in order. CheckSum(10), SendingTime(52),
/// TransactTime(60), OrigTime(42) and OrigSendingTime(122) vary from run to run, so they are checked for shape:
/// three digits for 10, a UTC timestamp of any precision for the others (the scripts write "…:00" and "…:00.000"
/// for the same engine output; the exact BodyLength comparison still pins the length). Every other field,
/// BodyLength included, must match exactly.
/// </summary>
public static partial class MessageComparer
{
    /// <summary>The tags compared as patterns.</summary>
    public static readonly IReadOnlySet<string> PatternTags = new HashSet<string>(StringComparer.Ordinal) { "10", "52", "60", "42", "122" };

    [GeneratedRegex(@"^\d{3}$")]
    private static partial Regex ChecksumShape();

    [GeneratedRegex(@"^\d{8}-\d{2}:\d{2}:\d{2}(\.\d+)?$")]
    private static partial Regex TimestampShape();

    /// <summary>Null when the messages match; otherwise the first difference, in words.</summary>
    public static string? FirstDifference(string expected, string received)
    {
        string[] expectedFields = Fields(expected);
        string[] receivedFields = Fields(received);
        int common = Math.Min(expectedFields.Length, receivedFields.Length);
        for (int i = 0; i < common; i++)
        {
            var (expectedTag, expectedValue) = Split(expectedFields[i]);
            var (receivedTag, receivedValue) = Split(receivedFields[i]);
            if (expectedTag != receivedTag)
            {
                return $"field {i + 1}: expected tag {expectedTag} but received tag {receivedTag}";
            }

            if (PatternTags.Contains(expectedTag))
            {
                if (!MatchesShape(expectedTag, expectedValue, receivedValue))
                {
                    return $"field {expectedTag}: '{receivedValue}' does not have the expected shape ({ShapeOf(expectedTag, expectedValue)})";
                }
            }
            else if (expectedValue != receivedValue)
            {
                return $"field {expectedTag}: expected '{expectedValue}' but received '{receivedValue}'";
            }
        }

        if (expectedFields.Length > common)
        {
            return $"field {common + 1}: expected tag {Split(expectedFields[common]).Tag} but the message ended";
        }

        if (receivedFields.Length > common)
        {
            return $"field {common + 1}: received extra field {receivedFields[common]}";
        }

        return null;
    }

    private static bool MatchesShape(string tag, string expected, string received)
    {
        if (tag == "10")
        {
            return ChecksumShape().IsMatch(received);
        }

        return TimestampShape().IsMatch(received);
    }

    private static string ShapeOf(string tag, string expected) =>
        tag == "10" ? "three digits" : "yyyyMMdd-HH:mm:ss[.fff...]";

    private static string[] Fields(string message) =>
        message.Split(FixTemplate.Soh, StringSplitOptions.None) is { Length: > 0 } parts && parts[^1].Length == 0 ? parts[..^1] : message.Split(FixTemplate.Soh);

    private static (string Tag, string Value) Split(string field)
    {
        int equals = field.IndexOf('=');
        return equals < 0 ? (field, "") : (field[..equals], field[(equals + 1)..]);
    }
}
