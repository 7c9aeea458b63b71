using System.Text;
using Microsoft.CodeAnalysis;
using RapidFix.Engine.Codec;
using RapidFix.Engine.Dictionary;
using RapidFix.Tests.Shared;

namespace RapidFix.Generators.Tests;

public class FixDictionaryGeneratorTests
{
    /// <summary>
    /// A firm's own FIX 4.4 dialect (firm44.xml beside this file): one standard message with a custom field (5001)
    /// and a custom group. The samples' tests build a project from the generator package with the same file.
    /// </summary>
    private static readonly string CustomDictionary = File.ReadAllText(Path.Combine(AppContext.BaseDirectory, "firm44.xml"));

    /// <summary>User code compiled with the generated types: reads a message through them, writes nothing.</summary>
    private const string Probe = """
        using System.Text;
        using RapidFix.Engine.Codec;
        using Firm.Fix44;

        public static class Probe
        {
            public static string Read(FixMessage message)
            {
                var order = new NewOrderSingle(message);
                var tags = order.NoDeskTags;
                var sb = new StringBuilder();
                sb.Append(Encoding.ASCII.GetString(order.ClOrdID)).Append('|');
                sb.Append(order.DeskStrategy == Values.DeskStrategy.TwapSlice).Append('|');
                sb.Append(order.Side == Values.Side.Sell).Append('|');
                sb.Append(order.TryGetOrderQty(out var qty)).Append('|');
                sb.Append(tags.Count).Append('|');
                sb.Append(Encoding.ASCII.GetString(tags[1].DeskTag)).Append('|');
                sb.Append(tags[1].DeskWeight.ToString()).Append('|');
                sb.Append(FieldTags.DeskStrategy).Append('|');
                sb.Append(MsgTypes.DeskPingText).Append('|');
                sb.Append(MessageCracker.Crack(new Handler(), message, null!).Reason);
                return sb.ToString();
            }

            private sealed class Handler : IMessageHandler
            {
                public RapidFix.Engine.Sessions.MessageDisposition OnMessage(NewOrderSingle message, RapidFix.Engine.Sessions.FixSession session) =>
                    RapidFix.Engine.Sessions.MessageDisposition.BusinessReject((int)message.DeskStrategy);
            }
        }
        """;

    [Fact]
    public void A_custom_dictionary_with_a_custom_field_gets_accessors_that_read_the_message()
    {
        var run = GeneratorHarness.RunWith(Probe, new() { ["build_property.RootNamespace"] = "Firm" }, bind: true, ("firm44.xml", CustomDictionary));

        Assert.Null(run.GeneratorException);
        Assert.Empty(run.GeneratorDiagnostics);
        Assert.Empty(run.CompileErrors);
        Assert.Contains("public const int DeskStrategy = 5001;", run.Sources["Firm.Fix44.FieldTags.g.cs"], StringComparison.Ordinal);

        var dictionary = DataDictionary.Load(new MemoryStream(Encoding.UTF8.GetBytes(CustomDictionary)), "firm44.xml");
        var wire = FixSamples.Wire("8=FIX.4.4|35=D|34=2|49=A|52=20261121-21:30:15.123|56=B|11=ORD-7|55=MSFT|54=2|5001=7|5002=2|5003=alpha|5004=0.25|5003=beta|5004=12.5|");
        var message = new FixMessage();
        Assert.Equal(FixParseError.None, message.Parse(wire, 0, wire.Length, dictionary));

        var read = run.Load().GetType("Probe")!.GetMethod("Read")!;
        Assert.Equal("ORD-7|True|True|False|2|beta|12.5|5001|U100|7", read.Invoke(null, [message]));
    }

    [Fact]
    public void A_MsgType_longer_than_one_byte_is_packed_as_the_engine_packs_it()
    {
        var run = GeneratorHarness.RunWith("", new() { ["build_property.RapidFixMessagesNamespace"] = "Firm" }, bind: true, ("firm44.xml", CustomDictionary));

        string msgTypes = run.Sources["Firm.Fix44.MsgTypes.g.cs"];
        Assert.Contains($"public const ulong DeskPing = {MsgTypeKey.Pack("U100"u8)}UL;", msgTypes, StringComparison.Ordinal);
        Assert.Contains($"public const ulong NewOrderSingle = {MsgTypeKey.Pack("D"u8)}UL;", msgTypes, StringComparison.Ordinal);
    }

    [Fact]
    public void A_file_that_imports_the_engine_fields_and_the_generated_namespace_names_both_tag_classes_without_ambiguity()
    {
        // The usual pair of imports of typed code: the value types (FixDecimal...) and the generated messages.
        const string user = """
            using RapidFix.Engine.Fields;
            using Firm.Fix44;

            public static class Both
            {
                public static int Sum() => Tags.MsgSeqNum + FieldTags.DeskStrategy + new FixDecimal(1, 0).Exponent;
            }
            """;
        var run = GeneratorHarness.RunWith(user, new() { ["build_property.RootNamespace"] = "Firm" }, bind: true, ("firm44.xml", CustomDictionary));

        Assert.Null(run.GeneratorException);
        Assert.Empty(run.CompileErrors);
        Assert.Contains("public static class FieldTags", run.Sources["Firm.Fix44.FieldTags.g.cs"], StringComparison.Ordinal);
    }

    [Fact]
    public void Namespace_metadata_on_the_file_names_the_whole_namespace()
    {
        var run = GeneratorHarness.RunWith("", new() { ["firm44.xml|build_metadata.AdditionalFiles.RapidFixNamespace"] = "Firm.Dialects.Equities" }, bind: true, ("firm44.xml", CustomDictionary));

        Assert.Empty(run.CompileErrors);
        Assert.Contains("Firm.Dialects.Equities.Messages.g.cs", run.Sources.Keys);
    }

    [Fact]
    public void A_dictionary_that_is_not_well_formed_is_an_error_diagnostic_not_a_crash()
    {
        string broken = CustomDictionary.Replace("</messages>", "</message>", StringComparison.Ordinal);

        var run = GeneratorHarness.Run("", ("broken.xml", broken));

        Assert.Null(run.GeneratorException);
        var diagnostic = Assert.Single(run.GeneratorDiagnostics);
        Assert.Equal("RFX001", diagnostic.Id);
        Assert.Equal(DiagnosticSeverity.Error, diagnostic.Severity);
        Assert.Contains("broken.xml", diagnostic.GetMessage(), StringComparison.Ordinal);
        Assert.True(diagnostic.Location.GetLineSpan().StartLinePosition.Line > 0, "the diagnostic points at the line");
        Assert.Empty(run.Sources);
    }

    [Fact]
    public void A_fix_element_without_a_version_is_an_error_diagnostic()
    {
        var run = GeneratorHarness.Run("", ("noversion.xml", "<fix><fields/></fix>"));

        Assert.Equal("RFX001", Assert.Single(run.GeneratorDiagnostics).Id);
        Assert.Empty(run.Sources);
    }

    [Fact]
    public void An_undefined_field_or_component_is_a_warning_and_the_rest_is_generated()
    {
        string dangling = CustomDictionary
            .Replace("<field name=\"Side\" required=\"Y\"/>", "<field name=\"Side\" required=\"Y\"/><field name=\"NoSuchField\" required=\"N\"/><component name=\"NoSuchComponent\" required=\"N\"/>", StringComparison.Ordinal);

        var run = GeneratorHarness.RunWith("", new() { ["build_property.RootNamespace"] = "Firm" }, bind: true, ("firm44.xml", dangling));

        Assert.Null(run.GeneratorException);
        Assert.Equal(2, run.GeneratorDiagnostics.Count(d => d.Id == "RFX002" && d.Severity == DiagnosticSeverity.Warning));
        Assert.Contains(run.GeneratorDiagnostics, d => d.GetMessage().Contains("NoSuchField", StringComparison.Ordinal));
        Assert.Contains(run.GeneratorDiagnostics, d => d.GetMessage().Contains("NoSuchComponent", StringComparison.Ordinal));
        Assert.Empty(run.CompileErrors);
        Assert.Contains("public byte Side =>", run.Sources["Firm.Fix44.Messages.g.cs"], StringComparison.Ordinal);
    }

    [Fact]
    public void A_component_that_includes_itself_is_reported_not_followed_forever()
    {
        string cyclic = CustomDictionary.Replace(
            "<field name=\"Symbol\" required=\"Y\"/>",
            "<field name=\"Symbol\" required=\"Y\"/><component name=\"Instrument\" required=\"N\"/>",
            StringComparison.Ordinal);

        var run = GeneratorHarness.RunWith("", new() { ["build_property.RootNamespace"] = "Firm" }, bind: true, ("firm44.xml", cyclic));

        Assert.Null(run.GeneratorException);
        Assert.Contains(run.GeneratorDiagnostics, d => d.Id == "RFX002" && d.GetMessage().Contains("Instrument", StringComparison.Ordinal));
        Assert.Empty(run.CompileErrors);
    }

    [Fact]
    public void Other_xml_files_are_left_alone()
    {
        var run = GeneratorHarness.Run("", ("settings.xml", "<configuration><add key=\"a\" value=\"b\"/></configuration>"), ("notes.xml", "not xml at all"));

        Assert.Empty(run.GeneratorDiagnostics);
        Assert.Empty(run.Sources);
    }

    [Fact]
    public void A_name_that_is_not_an_identifier_is_reported_and_the_field_left_out()
    {
        string odd = CustomDictionary.Replace("name=\"DeskTag\" type", "name=\"Desk Tag\" type", StringComparison.Ordinal);

        var run = GeneratorHarness.RunWith("", new() { ["build_property.RootNamespace"] = "Firm" }, bind: true, ("firm44.xml", odd));

        Assert.Contains(run.GeneratorDiagnostics, d => d.Id == "RFX002" && d.GetMessage().Contains("Desk Tag", StringComparison.Ordinal));
        Assert.Empty(run.CompileErrors);
    }

    /// <summary>
    /// Every built-in dictionary generates without a problem; the small ones are compiled here, FIX 4.2, 4.4 and 5.0 SP2
    /// by the build of RapidFix.Messages.*, and the rest are checked for syntax (binding them takes minutes).
    /// </summary>
    [Fact]
    public void Every_standard_dictionary_generates_code_without_errors()
    {
        foreach (string name in StandardDictionaries.Names)
        {
            bool bind = name is "FIX40" or "FIX41" or "FIXT11";
            var run = GeneratorHarness.RunWith("", new() { ["build_property.RootNamespace"] = "Std" }, bind, ($"{name}.xml", ReadStandard(name)));

            Assert.Null(run.GeneratorException);
            Assert.Empty(run.GeneratorDiagnostics);
            Assert.Empty(run.CompileErrors);
            Assert.Equal(6, run.Sources.Count);
        }
    }

    private static string ReadStandard(string name)
    {
        using var stream = typeof(StandardDictionaries).Assembly.GetManifestResourceStream($"RapidFix.Dictionaries.{name}.xml")!;
        using var reader = new StreamReader(stream, Encoding.UTF8);
        return reader.ReadToEnd();
    }
}
