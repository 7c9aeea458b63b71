using System.Text;
using RapidFix.Engine.Store;
using RapidFix.Persistence;
using RapidFix.Persister;

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

/// <summary>Journals for the tests: the engine's own store writing numbered messages, and a persisted bench set.</summary>
internal static class TestJournals
{
    /// <summary>Opens (or recovers) a store on <paramref name="path"/> that makes every message durable at once.</summary>
    public static JournalMessageStore OpenStore(string path) => JournalMessageStore.Open(new JournalOptions
    {
        FilePath = path,
        FlushPolicy = FlushPolicy.EveryMessage,
        MaxMessages = 1000,
        MaxBytes = 1 << 20,
    }, DateTime.UtcNow);

    /// <summary>The one number a SQL statement answers (count(*) and the like).</summary>
    public static long Count(Npgsql.NpgsqlConnection c, string sql)
    {
        using var command = new Npgsql.NpgsqlCommand(sql, c);
        return Convert.ToInt64(command.ExecuteScalar(), System.Globalization.CultureInfo.InvariantCulture);
    }

    /// <summary>The bytes of message <paramref name="i"/>: "message i".</summary>
    public static byte[] M(int i) => Encoding.ASCII.GetBytes($"message {i}");

    /// <summary>Writes the bench's journals of <paramref name="trades"/> trades into <paramref name="dir"/> and persists them all; returns the records.</summary>
    public static int Persist(Rig rig, string dir, int trades)
    {
        int records = Bench.WriteJournals(dir, trades);
        using var persister = new Persistence.Persister(new PersisterOptions { DataDirectory = dir, Servers = rig.Writers });
        persister.Start();
        persister.Drain();
        return records;
    }
}
