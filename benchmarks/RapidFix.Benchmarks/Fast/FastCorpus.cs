namespace RapidFix.Benchmarks.Fast;

/// <summary>Locates the complex30000 corpus in ../shared/fast beside the repository.</summary>
internal static class FastCorpus
{
    public const int MessageCount = 30_001;

    public static string PathOf(string file)
    {
        var env = Environment.GetEnvironmentVariable("RAPIDFIX_SHARED");
        if (!string.IsNullOrEmpty(env) && File.Exists(Path.Combine(env, "fast", file)))
        {
            return Path.Combine(env, "fast", file);
        }

        foreach (var start in new[] { AppContext.BaseDirectory, Directory.GetCurrentDirectory() })
        {
            for (var dir = start; !string.IsNullOrEmpty(dir); dir = Path.GetDirectoryName(dir))
            {
                if (File.Exists(Path.Combine(dir, "RapidFix.sln")))
                {
                    var candidate = Path.GetFullPath(Path.Combine(dir, "..", "shared", "fast", file));
                    if (File.Exists(candidate))
                    {
                        return candidate;
                    }
                }
            }
        }

        throw new FileNotFoundException($"FAST corpus file '{file}' not found: put ../shared beside the repository or set RAPIDFIX_SHARED.");
    }
}
