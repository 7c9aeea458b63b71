using System.Text;
using System.Text.RegularExpressions;

namespace RapidFix.Matching.Tests;

/// <summary>
/// The tag=value examples of docs/matching.md, read from the document itself (so the contract and the tests cannot
/// drift apart): every block fenced as <c>```fix name</c>.
/// </summary>
internal static partial class ContractExamples
{
    private static readonly Lazy<IReadOnlyDictionary<string, string>> All = new(Load);

    public static IReadOnlyDictionary<string, string> Examples => All.Value;

    public static string Get(string name) => All.Value[name];

    /// <summary>The wire bytes ('|' to SOH) of example <paramref name="name"/>.</summary>
    public static byte[] Wire(string name) => Encoding.Latin1.GetBytes(Get(name).Replace('|', '\u0001'));

    public static string DocPath()
    {
        for (var dir = new DirectoryInfo(AppContext.BaseDirectory); dir is not null; dir = dir.Parent)
        {
            string candidate = Path.Combine(dir.FullName, "docs", "matching.md");
            if (File.Exists(candidate))
            {
                return candidate;
            }
        }

        throw new FileNotFoundException("docs/matching.md not found above " + AppContext.BaseDirectory);
    }

    private static IReadOnlyDictionary<string, string> Load()
    {
        var text = File.ReadAllText(DocPath());
        var map = new Dictionary<string, string>(StringComparer.Ordinal);
        foreach (Match m in Block().Matches(text))
        {
            map.Add(m.Groups[1].Value, m.Groups[2].Value.Trim());
        }

        return map;
    }

    [GeneratedRegex(@"```fix ([A-Za-z0-9-]+)\n(.*?)\n```", RegexOptions.Singleline)]
    private static partial Regex Block();
}
