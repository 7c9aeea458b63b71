using System.Runtime.CompilerServices;

namespace RapidFix.Tests.Shared;

/// <summary>
/// Locates the read-only peer data (FIX dictionaries, acceptance scripts, FAST vectors) in <c>../shared</c>
/// beside the repository. Tests that need it use <see cref="SharedDataFactAttribute"/>, which skips them with a
/// message that names the missing path.
/// </summary>
public static class SharedData
{
    private static readonly Lazy<string?> Root = new(Find);

    /// <summary>The shared directory, or null when it is absent.</summary>
    public static string? Directory => Root.Value;

    /// <summary>Why shared-data tests are skipped, or null when the data is present.</summary>
    public static string? MissingReason => Root.Value is null
        ? $"../shared not found (looked beside the repository root {RepositoryRoot() ?? "(unknown)"} and in RAPIDFIX_SHARED): " +
          "the FIX dictionaries, acceptance scripts and FAST vectors are needed for this test."
        : null;

    /// <summary>Path of a file or folder under the shared directory; throws with a clear message when absent.</summary>
    public static string PathOf(params string[] parts)
    {
        var root = Root.Value ?? throw new InvalidOperationException(MissingReason);
        var path = System.IO.Path.Combine([root, .. parts]);
        if (!File.Exists(path) && !System.IO.Directory.Exists(path))
        {
            throw new FileNotFoundException($"Shared test data missing: {path}", path);
        }

        return path;
    }

    /// <summary>A FIX dictionary from shared/fix/spec, e.g. "FIX44.xml".</summary>
    public static string FixSpec(string fileName) => PathOf("fix", "spec", fileName);

    /// <summary>The repository root (the folder holding RapidFix.sln), found from this source file's location or the working directory.</summary>
    public static string? RepositoryRoot([CallerFilePath] string sourcePath = "")
    {
        foreach (var start in new[] { AppContext.BaseDirectory, System.IO.Path.GetDirectoryName(sourcePath) ?? "", System.IO.Directory.GetCurrentDirectory() })
        {
            for (var dir = start; !string.IsNullOrEmpty(dir); dir = System.IO.Path.GetDirectoryName(dir))
            {
                if (File.Exists(System.IO.Path.Combine(dir, "RapidFix.sln")))
                {
                    return dir;
                }
            }
        }

        return null;
    }

    private static string? Find()
    {
        var env = Environment.GetEnvironmentVariable("RAPIDFIX_SHARED");
        if (!string.IsNullOrEmpty(env) && System.IO.Directory.Exists(env))
        {
            return env;
        }

        var repo = RepositoryRoot();
        if (repo is null)
        {
            return null;
        }

        var candidate = System.IO.Path.GetFullPath(System.IO.Path.Combine(repo, "..", "shared"));
        return System.IO.Directory.Exists(candidate) ? candidate : null;
    }
}

/// <summary>A fact that needs ../shared; skipped, saying what is missing, when it is absent.</summary>
public sealed class SharedDataFactAttribute : FactAttribute
{
    public SharedDataFactAttribute()
    {
        if (SharedData.MissingReason is { } reason)
        {
            Skip = reason;
        }
    }
}

/// <summary>A theory that needs ../shared; skipped, saying what is missing, when it is absent.</summary>
public sealed class SharedDataTheoryAttribute : TheoryAttribute
{
    public SharedDataTheoryAttribute()
    {
        if (SharedData.MissingReason is { } reason)
        {
            Skip = reason;
        }
    }
}
