using System.Xml.Linq;
using RapidFix.Tests.Shared;

namespace RapidFix.Fast.Tests.Support;

/// <summary>One test of openfast's Tests-SampleXmlTest.xml: templates, encoded bits, expected messages.</summary>
internal sealed record ConformanceCase(string Name, string Action, XElement Templates, byte[] Bytes, string[] Messages)
{
    public override string ToString() => Name;
}

internal static class ConformanceFile
{
    private static readonly XNamespace TestNs = "http://www.fixprotocol.org/ns/fast/t/1.0";
    private static readonly XNamespace TemplateNs = "http://www.fixprotocol.org/ns/fast/td/1.1";

    public static string PathOf() => SharedData.PathOf("fast", "openfast", "Tests-SampleXmlTest.xml");

    public static IReadOnlyList<ConformanceCase> Load()
    {
        var doc = XDocument.Load(PathOf(), LoadOptions.SetLineInfo);
        var cases = new List<ConformanceCase>();
        foreach (var test in doc.Root!.Elements(TestNs + "test"))
        {
            string name = (string)test.Attribute("name")!;
            string action = (string?)test.Attribute("action") ?? "all";
            var templates = test.Element(TemplateNs + "templates")!;
            var bytes = BitsToBytes(test.Element(TestNs + "binstr")!.Value);
            var messages = test.Element(TestNs + "data")!.Elements(TestNs + "message").Select(m => MessageText.Normalize(m.Value)).ToArray();
            cases.Add(new ConformanceCase(name, action, templates, bytes, messages));
        }

        return cases;
    }

    /// <summary>"11000000 10000001 ..." → bytes (groups of 8 bits, most significant first).</summary>
    public static byte[] BitsToBytes(string bits)
    {
        var groups = bits.Split((char[]?)null, StringSplitOptions.RemoveEmptyEntries);
        return groups.Select(g => Convert.ToByte(g, 2)).ToArray();
    }

    public static IEnumerable<object[]> Names()
    {
        if (SharedData.Directory is null)
        {
            return [["(shared data missing)"]];
        }

        return Load().Select(c => new object[] { c.Name });
    }
}
