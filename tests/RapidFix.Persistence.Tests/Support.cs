using System.Text;
using RapidFix.Persistence;

namespace RapidFix.Persistence.Tests;

/// <summary>A fact that needs a PostgreSQL server (a throwaway cluster of its own); skipped, saying why, without the binaries.</summary>
public sealed class PostgresFactAttribute : FactAttribute
{
    public PostgresFactAttribute()
    {
        if (PgCluster.Unavailable() is { } reason)
        {
            Skip = "PostgreSQL: " + reason;
        }
    }
}

/// <summary>Tests that run the service, the trade driver and PostgreSQL clusters as child processes: one at a time.</summary>
[CollectionDefinition(nameof(PersisterProcesses), DisableParallelization = true)]
public sealed class PersisterProcesses;

/// <summary>A temporary folder, deleted on dispose.</summary>
internal sealed class TempDir : IDisposable
{
    public string Path { get; } = System.IO.Path.Combine(System.IO.Path.GetTempPath(), "rapidfix-persist-test-" + Guid.NewGuid().ToString("N")[..10]);

    public TempDir() => Directory.CreateDirectory(Path);

    public void Dispose()
    {
        try
        {
            Directory.Delete(Path, recursive: true);
        }
        catch (IOException)
        {
        }
    }
}

/// <summary>Collects log lines from the code under test (thread-safe) for failure messages.</summary>
internal sealed class LogBuffer : StringWriter
{
    private readonly object _gate = new();

    public override void WriteLine(string? value)
    {
        lock (_gate)
        {
            base.WriteLine(value);
        }
    }

    public override string ToString()
    {
        lock (_gate)
        {
            return base.ToString();
        }
    }

    public override Encoding Encoding => Encoding.UTF8;
}
