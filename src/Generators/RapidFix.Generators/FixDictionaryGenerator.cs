using System;
using System.IO;
using System.Linq;
using System.Text;
using System.Xml;
using System.Xml.Linq;
using Microsoft.CodeAnalysis;
using Microsoft.CodeAnalysis.Text;

namespace RapidFix.Generators;

/// <summary>
/// Generates the typed message layer from every QuickFIX-format dictionary among the project's AdditionalFiles
/// (*.xml whose root element is &lt;fix&gt;): <c>Tags</c>, <c>Values</c>, <c>MsgTypes</c>, a flyweight accessor and an
/// in-place writer per message, <c>IMessageHandler</c> and <c>MessageCracker</c>, in the namespace
/// <c>{RapidFixNamespace metadata | RapidFixMessagesNamespace | RootNamespace}.{Fix44|Fix50Sp2|Fixt11...}</c>.
/// A dictionary that cannot be read is an error diagnostic (never an exception out of the compiler); a reference to
/// an undefined field or component a warning, the member left out.
/// </summary>
[Generator(LanguageNames.CSharp)]
public sealed class FixDictionaryGenerator : IIncrementalGenerator
{
    internal static readonly DiagnosticDescriptor Unreadable = new(
        "RFX001", "FIX dictionary cannot be read", "{0}: {1}", "RapidFix.Generators", DiagnosticSeverity.Error, isEnabledByDefault: true);

    internal static readonly DiagnosticDescriptor Incomplete = new(
        "RFX002", "FIX dictionary member left out", "{0}: {1}", "RapidFix.Generators", DiagnosticSeverity.Warning, isEnabledByDefault: true);

    internal static readonly DiagnosticDescriptor Failed = new(
        "RFX003", "FIX dictionary generation failed", "{0}: generation failed: {1}", "RapidFix.Generators", DiagnosticSeverity.Error, isEnabledByDefault: true);

    internal static readonly DiagnosticDescriptor BadNamespace = new(
        "RFX004", "Namespace for generated FIX types is not valid", "{0}: '{1}' is not a valid namespace", "RapidFix.Generators", DiagnosticSeverity.Error, isEnabledByDefault: true);

    public void Initialize(IncrementalGeneratorInitializationContext context)
    {
        var inputs = context.AdditionalTextsProvider
            .Where(static file => file.Path.EndsWith(".xml", StringComparison.OrdinalIgnoreCase))
            .Combine(context.AnalyzerConfigOptionsProvider)
            .Select(static (pair, cancellation) =>
            {
                var (file, options) = pair;
                string? ns = null;
                if (!options.GetOptions(file).TryGetValue("build_metadata.AdditionalFiles.RapidFixNamespace", out ns) || string.IsNullOrWhiteSpace(ns))
                {
                    ns = null;
                    if (options.GlobalOptions.TryGetValue("build_property.RapidFixMessagesNamespace", out var root) && !string.IsNullOrWhiteSpace(root))
                    {
                        ns = root.Trim() + ".";
                    }
                    else if (options.GlobalOptions.TryGetValue("build_property.RootNamespace", out root) && !string.IsNullOrWhiteSpace(root))
                    {
                        ns = root.Trim() + ".";
                    }
                }

                return new Input(file.Path, file.GetText(cancellation)?.ToString() ?? "", ns?.Trim() ?? "");
            });

        context.RegisterSourceOutput(inputs, static (spc, input) => Generate(spc, input));
    }

    private static void Generate(SourceProductionContext context, Input input)
    {
        string file = Path.GetFileName(input.Path);
        DictionaryModel? model;
        try
        {
            model = DictionaryModel.Read(XDocument.Parse(input.Text));
        }
        catch (XmlException e)
        {
            if (input.Text.IndexOf("<fix", StringComparison.Ordinal) >= 0)
            {
                var position = new LinePosition(Math.Max(0, e.LineNumber - 1), Math.Max(0, e.LinePosition - 1));
                var location = Location.Create(input.Path, default, new LinePositionSpan(position, position));
                context.ReportDiagnostic(Diagnostic.Create(Unreadable, location, file, e.Message));
            }

            return; // another XML file that is not well formed: not ours to judge
        }
        catch (FormatException e)
        {
            context.ReportDiagnostic(Diagnostic.Create(Unreadable, Location.None, file, e.Message));
            return;
        }

        if (model is null)
        {
            return;
        }

        // A namespace ending in '.' takes the version's name; metadata on the file names the whole namespace.
        string ns = input.Namespace.Length == 0 ? model.VersionName
            : input.Namespace.EndsWith(".", StringComparison.Ordinal) ? input.Namespace + model.VersionName
            : input.Namespace;
        if (!ns.Split('.').All(Names.IsIdentifier))
        {
            context.ReportDiagnostic(Diagnostic.Create(BadNamespace, Location.None, file, ns));
            return;
        }

        foreach (string problem in model.Problems)
        {
            context.ReportDiagnostic(Diagnostic.Create(Incomplete, Location.None, file, problem));
        }

        try
        {
            foreach (var source in new Emitter(model, ns).Emit())
            {
                context.AddSource(source.Key, SourceText.From(source.Value, Encoding.UTF8));
            }
        }
        catch (Exception e) when (e is not OperationCanceledException)
        {
            context.ReportDiagnostic(Diagnostic.Create(Failed, Location.None, file, e.Message));
        }
    }

    /// <summary>One dictionary file and the namespace asked for; equatable, so unchanged files are not generated again.</summary>
    private sealed record Input(string Path, string Text, string Namespace);
}
