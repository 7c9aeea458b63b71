using System.Collections.Immutable;
using System.Reflection;
using System.Runtime.Loader;
using System.Text;
using Microsoft.CodeAnalysis;
using Microsoft.CodeAnalysis.CSharp;
using Microsoft.CodeAnalysis.Diagnostics;
using Microsoft.CodeAnalysis.Text;
using RapidFix.Engine.Codec;

namespace RapidFix.Generators.Tests;

/// <summary>Runs <see cref="FixDictionaryGenerator"/> over in-memory dictionaries and user code, as a build would.</summary>
internal static class GeneratorHarness
{
    private static readonly Lazy<MetadataReference[]> References = new(() =>
    {
        var paths = ((string)AppContext.GetData("TRUSTED_PLATFORM_ASSEMBLIES")!).Split(Path.PathSeparator).ToList();
        paths.Add(typeof(FixMessage).Assembly.Location);
        paths.Add(typeof(RapidFix.Pools.Objects.ObjectPool<>).Assembly.Location);
        return paths.Distinct().Select(p => (MetadataReference)MetadataReference.CreateFromFile(p)).ToArray();
    });

    /// <summary>The generator's output and the compilation of it with <paramref name="userCode"/>.</summary>
    public static GeneratorRun Run(string userCode, params (string Path, string Text)[] files) =>
        RunWith(userCode, [], bind: true, files);

    /// <param name="userCode">Code compiled with the generated code.</param>
    /// <param name="options">Build properties ("build_property.X") and, as "path|build_metadata.AdditionalFiles.X", file metadata.</param>
    /// <param name="bind">False: only the generated code's syntax is checked (binding megabytes of it takes minutes).</param>
    /// <param name="files">The AdditionalFiles.</param>
    public static GeneratorRun RunWith(string userCode, Dictionary<string, string> options, bool bind, params (string Path, string Text)[] files)
    {
        var compilation = CSharpCompilation.Create(
            "Generated" + Guid.NewGuid().ToString("N"),
            [CSharpSyntaxTree.ParseText(userCode, new CSharpParseOptions(LanguageVersion.Preview))],
            References.Value,
            new CSharpCompilationOptions(OutputKind.DynamicallyLinkedLibrary, nullableContextOptions: NullableContextOptions.Enable));
        var driver = CSharpGeneratorDriver.Create(
            [new FixDictionaryGenerator().AsSourceGenerator()],
            files.Select(f => (AdditionalText)new InMemoryText(f.Path, f.Text)),
            new CSharpParseOptions(LanguageVersion.Preview),
            new Options(options));
        var ran = driver.RunGeneratorsAndUpdateCompilation(compilation, out var output, out var generatorDiagnostics);
        var result = ran.GetRunResult();
        return new GeneratorRun(
            output,
            generatorDiagnostics,
            (bind ? output.GetDiagnostics() : output.SyntaxTrees.SelectMany(t => t.GetDiagnostics()))
                .Where(d => d.Severity == DiagnosticSeverity.Error).ToImmutableArray(),
            result.Results.SelectMany(r => r.GeneratedSources).ToDictionary(s => s.HintName, s => s.SourceText.ToString()),
            result.Results.Select(r => r.Exception).FirstOrDefault(e => e is not null));
    }

    private sealed class InMemoryText(string path, string text) : AdditionalText
    {
        public override string Path => path;

        public override SourceText GetText(CancellationToken cancellationToken = default) => SourceText.From(text, Encoding.UTF8);
    }

    private sealed class Options(Dictionary<string, string> global) : AnalyzerConfigOptionsProvider
    {
        public override AnalyzerConfigOptions GlobalOptions { get; } = new Values(global);

        public override AnalyzerConfigOptions GetOptions(SyntaxTree tree) => new Values([]);

        public override AnalyzerConfigOptions GetOptions(AdditionalText textFile) =>
            new Values(global.Where(p => p.Key.StartsWith(textFile.Path + "|", StringComparison.Ordinal))
                .ToDictionary(p => p.Key[(textFile.Path.Length + 1)..], p => p.Value));
    }

    private sealed class Values(Dictionary<string, string> values) : AnalyzerConfigOptions
    {
        public override bool TryGetValue(string key, [System.Diagnostics.CodeAnalysis.NotNullWhen(true)] out string? value) =>
            values.TryGetValue(key, out value);
    }
}

/// <summary>What one generator run produced.</summary>
internal sealed record GeneratorRun(
    Compilation Compilation,
    ImmutableArray<Diagnostic> GeneratorDiagnostics,
    ImmutableArray<Diagnostic> CompileErrors,
    Dictionary<string, string> Sources,
    Exception? GeneratorException)
{
    /// <summary>Emits the compilation and loads it (collectible) so the generated code can run.</summary>
    public Assembly Load()
    {
        using var pe = new MemoryStream();
        var emit = Compilation.Emit(pe);
        Assert.True(emit.Success, string.Join(Environment.NewLine, emit.Diagnostics));
        pe.Position = 0;
        return new AssemblyLoadContext(Compilation.AssemblyName, isCollectible: true).LoadFromStream(pe);
    }
}
