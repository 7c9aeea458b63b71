using System.IO.Compression;
using System.Xml.Linq;

namespace RapidFix.Samples.Tests;

/// <summary>
/// What a firm's package review looks at, read from the packages the quickstart test packed: the licence declared
/// as an expression with LICENSE and NOTICE inside, the QuickFIX dictionaries' licence beside them in the engine, a
/// description of each package's own, its README, icon, project and repository URLs, both target frameworks with
/// their XML documentation, and a symbol package with the PDBs.
/// </summary>
public sealed partial class QuickstartTests
{
    private void AssertPackagesAcceptable(string feed, params string[] ids)
    {
        var descriptions = new Dictionary<string, string>(StringComparer.Ordinal);
        foreach (string id in ids)
        {
            string package = Path.Combine(feed, $"{id}.{_version}.nupkg");
            using var zip = ZipFile.OpenRead(package);
            var entries = zip.Entries.Select(e => e.FullName).ToHashSet(StringComparer.Ordinal);
            var nuspecEntry = zip.Entries.Single(e => e.FullName.EndsWith(".nuspec", StringComparison.Ordinal));
            XElement metadata;
            using (var stream = nuspecEntry.Open())
            {
                metadata = XDocument.Load(stream).Root!.Elements().Single(e => e.Name.LocalName == "metadata");
            }

            string Meta(string name) => metadata.Elements().SingleOrDefault(e => e.Name.LocalName == name)?.Value ?? "";
            var license = metadata.Elements().Single(e => e.Name.LocalName == "license");
            Assert.Equal("expression", (string?)license.Attribute("type"));
            Assert.Equal("Apache-2.0", license.Value);
            Assert.Equal("icon.png", Meta("icon"));
            Assert.Equal("README.md", Meta("readme"));
            Assert.StartsWith("https://", Meta("projectUrl"), StringComparison.Ordinal);
            var repository = metadata.Elements().Single(e => e.Name.LocalName == "repository");
            Assert.Equal("git", (string?)repository.Attribute("type"));
            Assert.StartsWith("https://", (string?)repository.Attribute("url"), StringComparison.Ordinal);
            string description = Meta("description");
            Assert.True(description.Length > 40, $"{id}: description \"{description}\"");
            Assert.DoesNotContain(description, descriptions.Values);
            descriptions[id] = description;

            foreach (string file in new[] { "LICENSE", "NOTICE", "README.md", "icon.png" })
            {
                Assert.True(entries.Contains(file), $"{id} has no {file}: {string.Join(", ", entries)}");
            }

            foreach (string framework in new[] { "net8.0", "net10.0" })
            {
                Assert.True(entries.Contains($"lib/{framework}/{id}.dll"), $"{id} has no lib/{framework}/{id}.dll");
                Assert.True(entries.Contains($"lib/{framework}/{id}.xml"), $"{id} has no XML documentation for {framework}");
            }

            if (id == "RapidFix.Engine")
            {
                Assert.Contains("licenses/LICENSE-quickfix.txt", entries);
            }

            using var symbols = ZipFile.OpenRead(Path.ChangeExtension(package, ".snupkg"));
            Assert.Contains($"lib/net10.0/{id}.pdb", symbols.Entries.Select(e => e.FullName));
        }
    }
}
