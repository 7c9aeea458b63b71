using System.CommandLine;
using System.Diagnostics;
using System.Globalization;
using System.IO.MemoryMappedFiles;
using Npgsql;

namespace RapidFix.TradeDriver.Measure;

/// <summary>
/// The persister lag's reading, shared between processes: the <c>persister-lag</c> child (<see cref="PersisterLag"/>)
/// writes its last reading (the service's journalled inputs, then PostgreSQL's persisted position, and when) into
/// a small memory-mapped file; the driver's poller reads it. Layout: 64-bit little-endian slots, a seqlock version
/// (odd while the writer writes), as the service's stats file. Reading allocates nothing.
/// </summary>
internal sealed class LagFile : IDisposable
{
    /// <summary>"RPFXLAG1": the file's first slot.</summary>
    public const long Magic = 0x3147_414C_5846_5052;

    private const int Bytes = 64;
    private const int MagicSlot = 0, VersionSlot = 8, CountSlot = 16, TimestampSlot = 24, JournalledSlot = 32, PersistedSlot = 40;
    private readonly MemoryMappedFile _file;
    private readonly MemoryMappedViewAccessor _view;

    private LagFile(MemoryMappedFile file, MemoryMappedViewAccessor view)
    {
        _file = file;
        _view = view;
    }

    /// <summary>Creates (or empties) the file and maps it: the driver, before it starts the child (startup).</summary>
    public static LagFile Create(string path)
    {
        using (var stream = new FileStream(path, FileMode.Create, FileAccess.ReadWrite, FileShare.ReadWrite | FileShare.Delete))
        {
            stream.SetLength(Bytes);
        }

        return Open(path);
    }

    /// <summary>Maps a file <see cref="Create"/> made (the child).</summary>
    public static LagFile Open(string path)
    {
        var stream = new FileStream(path, FileMode.Open, FileAccess.ReadWrite, FileShare.ReadWrite | FileShare.Delete);
        var file = MemoryMappedFile.CreateFromFile(stream, null, Bytes, MemoryMappedFileAccess.ReadWrite, HandleInheritability.None, leaveOpen: false);
        var view = file.CreateViewAccessor(0, Bytes, MemoryMappedFileAccess.ReadWrite);
        if (view.ReadInt64(MagicSlot) == 0)
        {
            view.Write(MagicSlot, Magic);
        }

        return new LagFile(file, view);
    }

    /// <summary>Publishes one reading (the child's only writer).</summary>
    public void Write(long timestamp, long journalled, long persisted)
    {
        long version = _view.ReadInt64(VersionSlot);
        _view.Write(VersionSlot, version + 1);
        Thread.MemoryBarrier();
        _view.Write(TimestampSlot, timestamp);
        _view.Write(JournalledSlot, journalled);
        _view.Write(PersistedSlot, persisted);
        _view.Write(CountSlot, _view.ReadInt64(CountSlot) + 1);
        Thread.MemoryBarrier();
        _view.Write(VersionSlot, version + 2);
    }

    /// <summary>
    /// The last reading: <paramref name="count"/> is how many the writer published (0: none yet); false when the
    /// writer kept changing it under the reader. Allocates nothing.
    /// </summary>
    public bool TryRead(out long count, out long timestamp, out long journalled, out long persisted)
    {
        for (int attempt = 0; attempt < 100; attempt++)
        {
            long before = _view.ReadInt64(VersionSlot);
            if ((before & 1) == 0)
            {
                Thread.MemoryBarrier();
                count = _view.ReadInt64(CountSlot);
                timestamp = _view.ReadInt64(TimestampSlot);
                journalled = _view.ReadInt64(JournalledSlot);
                persisted = _view.ReadInt64(PersistedSlot);
                Thread.MemoryBarrier();
                if (_view.ReadInt64(VersionSlot) == before)
                {
                    return true;
                }
            }

            Thread.SpinWait(20);
        }

        count = timestamp = journalled = persisted = 0;
        return false;
    }

    public void Dispose()
    {
        _view.Dispose();
        _file.Dispose();
    }
}

/// <summary>
/// <c>persister-lag</c>: the persister lag's reader in its own process, started by <see cref="PersisterRun"/>. The
/// SQL query (Npgsql) allocates, so it does not run in the driver's process, whose measured phase allocates nothing
/// (a GC there would pause the driver's sending and receiving threads and distort what it measures): every
/// interval this child reads the service's journalled inputs from its stats file, then PostgreSQL's persisted
/// position of the input journal, and publishes both in a <see cref="LagFile"/>. It ends when its standard input
/// closes (the driver stopped it, or the driver died).
/// </summary>
internal static class PersisterLag
{
    /// <summary>The query: the input journal's highest persisted record.</summary>
    public const string Query = "SELECT coalesce(max(seq), 0) FROM rapidfix.journal_position WHERE source = 'matching-input'";

    /// <summary>The hidden subcommand.</summary>
    public static Command Command()
    {
        var db = new Option<string>("--db") { Description = "the connection string (the password in PGPASSWORD)", Required = true };
        var stats = new Option<string>("--stats") { Description = "the service's stats file", Required = true };
        var output = new Option<string>("--lag-file") { Description = "the file to publish the readings in (made by the driver)", Required = true };
        var interval = new Option<int>("--interval-ms") { Description = "milliseconds between readings", DefaultValueFactory = _ => 1000 };
        var command = new Command("persister-lag", "the persister lag's reader of a measured run (started by the driver; ends when its standard input closes)")
        {
            db, stats, output, interval,
        };
        command.Hidden = true;
        command.SetAction(parse => MeasureCommands.Guarded(() => Run(parse.GetValue(db)!, parse.GetValue(stats)!, parse.GetValue(output)!,
            TimeSpan.FromMilliseconds(Math.Max(10, parse.GetValue(interval))), Console.In)));
        return command;
    }

    /// <summary>Reads and publishes until <paramref name="input"/> ends.</summary>
    public static int Run(string connectionString, string statsPath, string lagPath, TimeSpan interval, TextReader input)
    {
        using var stop = new ManualResetEventSlim();
        var watcher = new Thread(() =>
        {
            try
            {
                while (input.ReadLine() is not null)
                {
                }
            }
            catch (IOException)
            {
            }

            stop.Set();
        }) { IsBackground = true, Name = "persister-lag-stdin" };
        watcher.Start();
        using var lag = LagFile.Open(lagPath);
        ServiceStatsReader? stats = null;
        using var connection = new NpgsqlConnection(connectionString);
        using var query = new NpgsqlCommand(Query, connection);
        try
        {
            do
            {
                stats ??= ServiceStatsReader.TryOpen(statsPath);
                if (stats is null || !stats.TryRead(out var service))
                {
                    continue;
                }

                try
                {
                    if (connection.State != System.Data.ConnectionState.Open)
                    {
                        connection.Open();
                    }

                    // The journalled count first, then the query: PostgreSQL can only be at or past it by then, as
                    // the driver's poller did in its own process before. Record 1 of the input journal is its
                    // control record (the business date), not an input.
                    long persisted = Math.Max(0, Convert.ToInt64(query.ExecuteScalar(), CultureInfo.InvariantCulture) - 1);
                    lag.Write(Stopwatch.GetTimestamp(), service.Journalled, persisted);
                }
                catch (Exception e) when (e is NpgsqlException or InvalidOperationException or TimeoutException)
                {
                    connection.Close(); // the next interval opens it again
                }
            }
            while (!stop.Wait(interval));
        }
        finally
        {
            stats?.Dispose();
        }

        return 0;
    }
}
