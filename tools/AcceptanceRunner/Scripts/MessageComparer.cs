using System.Text.RegularExpressions;

namespace RapidFix.AcceptanceRunner.Scripts;

/// <summary>
/// Compares a received message with an expected one field by field, in order. CheckSum(10), SendingTime(52),
/// TransactTime(60), OrigTime(42) and OrigSendingTime(122) vary from run to run, so they are checked for shape:
/// three digits for 10, a UTC timestamp for the others (with as many fraction digits as the expected value shows,
/// when it is itself a timestamp). Every other field, BodyLength included, must match exactly.
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

        if (!TimestampShape().IsMatch(received))
        {
            return false;
        }

        // An expected value that is itself a timestamp fixes the precision (…:00 versus …:00.000).
        return !TimestampShape().IsMatch(expected) || FractionDigits(expected) == FractionDigits(received);
    }

    private static string ShapeOf(string tag, string expected) =>
        tag == "10" ? "three digits"
        : TimestampShape().IsMatch(expected) ? $"yyyyMMdd-HH:mm:ss{(FractionDigits(expected) > 0 ? "." + new string('f', FractionDigits(expected)) : "")}"
        : "yyyyMMdd-HH:mm:ss[.fff]";

    private static int FractionDigits(string timestamp)
    {
        int dot = timestamp.IndexOf('.');
        return dot < 0 ? 0 : timestamp.Length - dot - 1;
    }

    private static string[] Fields(string message) =>
        message.Split(FixTemplate.Soh, StringSplitOptions.None) is { Length: > 0 } parts && parts[^1].Length == 0 ? parts[..^1] : message.Split(FixTemplate.Soh);

    private static (string Tag, string Value) Split(string field)
    {
        int equals = field.IndexOf('=');
        return equals < 0 ? (field, "") : (field[..equals], field[(equals + 1)..]);
    }
}
