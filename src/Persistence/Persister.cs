using System.Diagnostics;
using Npgsql;

namespace RapidFix.Persistence;

/// <summary>What the persister is told at startup.</summary>
public sealed class PersisterOptions
{
    /// <summary>The matching service's data directory (input journal and session stores), read only.</summary>
    public required string DataDirectory { get; init; }

    /// <summary>One connection string per database server; server i owns the trades with <c>TradePartition.Of(.., N) == i</c>.</summary>
    public required IReadOnlyList<string> Servers { get; init; }

    /// <summary>Journal records per transaction, at most.</summary>
    public int BatchRecords { get; init; } = 20_000;

    /// <summary>
    /// COPY streams per server: each its own connection, thread, tails and positions, and its own share of the
    /// journals (<see cref="JournalSource.StreamOf"/>), so the server works on several transactions at once. Each
    /// journal belongs to one stream, which commits that journal's position with its rows: exactly once holds per
    /// journal, whatever the other streams do. 2 by default: the input journal on one, the session stores on the other.
    /// </summary>
    public int Streams { get; init; } = 2;

    /// <summary>How long to sleep when every journal is read to its end.</summary>
    public TimeSpan PollInterval { get; init; } = TimeSpan.FromMilliseconds(20);

    /// <summary>First wait after a failed connection or transaction; doubled on each failure in a row up to <see cref="MaxBackoff"/>.</summary>
    public TimeSpan MinBackoff { get; init; } = TimeSpan.FromMilliseconds(100);

    public TimeSpan MaxBackoff { get; init; } = TimeSpan.FromSeconds(5);

    /// <summary>Where the persister says what it does (connections, failures, retries); never a password.</summary>
    public TextWriter Log { get; init; } = TextWriter.Null;
}

/// <summary>Counters of one server's worker (read from any thread; approximate while running).</summary>
public sealed class ServerCounters
{
    public long Records;
    public long Rows;
    public long Quarantined;
    public long Batches;
    public long Failures;
    public long ServerTicks;
    public long BusyTicks;

    /// <summary>Days the workers asked for (<c>ensure_day</c> calls: made, or found made by another stream) and the time those calls took (part of <see cref="ServerTicks"/>).</summary>
    public long Partitions;
    public long PartitionTicks;

    /// <summary>Share of the worker's busy time spent waiting on the server.</summary>
    public double ServerShare => BusyTicks == 0 ? 0 : (double)Interlocked.Read(ref ServerTicks) / Interlocked.Read(ref BusyTicks);
}

/// <summary>
/// The persister: per database server, <see cref="PersisterOptions.Streams"/> worker threads (COPY streams), each
/// with its own read-only tails of its share of the service's journals, its own connection and its own committed
/// positions; one index of inputs serves them all. A worker writes only the records its server owns
/// (<see cref="RowBuilder"/>) and commits its journals' positions with them, so a server that is down stalls only its
/// own partitions: the others keep flowing, and it catches up from its own positions when it returns.
/// docs/persistence.md.
/// </summary>
public sealed class Persister : IDisposable
{
    private readonly PersisterOptions _options;
    private readonly Thread[] _threads;
    private readonly ServerCounters[] _counters;
    private readonly CancellationTokenSource _stop = new();
    private readonly ManualResetEventSlim _fatal = new();
    private readonly InputIndex _index;
    private volatile bool _drain;

    public Persister(PersisterOptions options)
    {
        if (options.Servers.Count == 0)
        {
            throw new ArgumentException("at least one database server is needed", nameof(options));
        }

        if (options.Streams < 1)
        {
            // A setting the persister cannot honour is refused, never quietly changed.
            throw new ArgumentException($"streams per server must be at least 1 (was {options.Streams})", nameof(options));
        }

        _options = options;
        _counters = options.Servers.Select(_ => new ServerCounters()).ToArray();
        // One index of inputs for every worker: it is the same journal whatever the server, and it is the persister's
        // largest table (about 7 entries a trade).
        _index = new InputIndex(Path.Combine(options.DataDirectory, JournalSource.InputJournalFile));
        _threads = new Thread[options.Servers.Count * options.Streams];
        for (int i = 0; i < _threads.Length; i++)
        {
            int server = i / options.Streams, stream = i % options.Streams;
            _threads[i] = new Thread(() => RunWorker(server, stream)) { IsBackground = true, Name = $"persister-{server}.{stream}" };
        }
    }

    public IReadOnlyList<ServerCounters> Counters => _counters;

    /// <summary>
    /// Why a worker stopped for good (the first such error), or null. Set when a server refuses what a retry cannot
    /// change; the other servers' workers keep going, and the caller decides (the run command exits 2).
    /// </summary>
    public string? Fatal { get; private set; }

    /// <summary>Set when <see cref="Fatal"/> is.</summary>
    public WaitHandle FatalHandle => _fatal.WaitHandle;

    public void Start()
    {
        foreach (var t in _threads)
        {
            t.Start();
        }
    }

    /// <summary>Stops the workers after their current transaction (committed or rolled back, never half).</summary>
    public void Stop()
    {
        _stop.Cancel();
        foreach (var t in _threads)
        {
            t.Join();
        }
    }

    /// <summary>Lets the workers write everything the journals hold now, then stop (for a finished run).</summary>
    public void Drain()
    {
        _drain = true;
        foreach (var t in _threads)
        {
            t.Join();
        }
    }

    /// <summary>A safe description of a connection string (no password) for log lines.</summary>
    public static string Describe(string connectionString)
    {
        var b = new NpgsqlConnectionStringBuilder(connectionString);
        return $"{b.Host}:{b.Port}/{b.Database} as {b.Username}";
    }

    private void RunWorker(int server, int stream)
    {
        var counters = _counters[server];
        string name = _options.Streams == 1
            ? $"server {server} ({Describe(_options.Servers[server])})"
            : $"server {server} stream {stream} ({Describe(_options.Servers[server])})";
        var backoff = _options.MinBackoff;
        while (!_stop.IsCancellationRequested)
        {
            try
            {
                if (RunConnected(server, stream, counters, name))
                {
                    return; // drained
                }
            }
            catch (Exception e) when (IsFatal(e))
            {
                // Waiting would not help: a database without the schema, a refused password, a missing privilege.
                Fatal ??= $"{name}: {Reason(e)}";
                _options.Log.WriteLine($"persister: {Fatal}; this server's worker stops");
                _fatal.Set();
                return;
            }
            catch (Exception e) when (e is NpgsqlException or IOException or TimeoutException or InvalidOperationException)
            {
                Interlocked.Increment(ref counters.Failures);
                _options.Log.WriteLine($"persister: {name}: {Reason(e)}; retrying in {backoff.TotalMilliseconds:F0} ms");
                _stop.Token.WaitHandle.WaitOne(backoff);
                backoff = TimeSpan.FromTicks(Math.Min(backoff.Ticks * 2, _options.MaxBackoff.Ticks));
                continue;
            }

            backoff = _options.MinBackoff;
        }
    }

    /// <summary>
    /// Errors a retry cannot cure: the schema is not this persister's (<see cref="SchemaMismatchException"/>), the
    /// password or the role is refused (SQLSTATE class 28), a privilege is missing (42501), the database does not
    /// exist (3D000). Everything else (connection refused or lost, server shutting down) is retried with back-off.
    /// </summary>
    private static bool IsFatal(Exception e) =>
        e is SchemaMismatchException ||
        e is PostgresException p && (p.SqlState.StartsWith("28", StringComparison.Ordinal) || p.SqlState is "42501" or "3D000");

    private static string Reason(Exception e) => e switch
    {
        PostgresException p => $"{p.SqlState} {p.MessageText}",
        _ when e.InnerException is { } inner => $"{e.Message} ({inner.Message})",
        _ => e.Message,
    };

    /// <summary>One connected life of a worker: reads committed positions, then writes batches until stopped or drained.</summary>
    private bool RunConnected(int server, int stream, ServerCounters counters, string name)
    {
        var connection = new NpgsqlConnection(_options.Servers[server]);
        connection.Open();
        using var writer = new BatchWriter(connection) { LatestDayFirst = stream % 2 == 1 };
        int version = Schema.Version(connection);
        if (version != Schema.LatestVersion)
        {
            throw new SchemaMismatchException($"the database is at schema version {version}, this persister needs {Schema.LatestVersion}: run the migrate command");
        }

        var committed = writer.LoadPositions();
        _options.Log.WriteLine($"persister: {name}: connected, {committed.Count} journal positions");
        var tails = new Dictionary<string, (JournalSource Source, JournalTail Tail)>();
        var encoder = new RowEncoder(_index, _options.Servers.Count);
        // Two batches made once: one is written while the next is read and encoded into the other.
        EncodedBatch[] batches = [new EncodedBatch(_options.BatchRecords), new EncodedBatch(_options.BatchRecords)];
        int turn = 0;
        long rowsBefore = 0, quarantinedBefore = 0, serverBefore = 0, partitionsBefore = 0, partitionTicksBefore = 0;
        Task<EncodedBatch>? next = null;
        try
        {
            while (!_stop.IsCancellationRequested)
            {
                var busy = Stopwatch.StartNew();
                var batch = next is null ? Gather(server, stream, committed, tails, encoder, batches[turn ^= 1]) : next.GetAwaiter().GetResult();
                next = null;
                if (batch.Positions.Count == 0)
                {
                    if (_drain)
                    {
                        return true;
                    }

                    _stop.Token.WaitHandle.WaitOne(_options.PollInterval);
                    continue;
                }

                // Read and build the next batch while this one is written: the tails and the builder are used by one
                // thread at a time (this one again only after the task's result is taken); the shared index locks.
                var other = batches[turn ^= 1];
                next = Task.Run(() => Gather(server, stream, committed, tails, encoder, other));
                writer.Write(batch);
                Interlocked.Add(ref counters.Records, batch.Count);
                Interlocked.Add(ref counters.Rows, writer.RowsWritten - rowsBefore);
                Interlocked.Add(ref counters.Quarantined, writer.Quarantined - quarantinedBefore);
                Interlocked.Increment(ref counters.Batches);
                rowsBefore = writer.RowsWritten;
                quarantinedBefore = writer.Quarantined;
                Interlocked.Add(ref counters.ServerTicks, writer.ServerTime.Ticks - serverBefore);
                serverBefore = writer.ServerTime.Ticks;
                Interlocked.Add(ref counters.Partitions, writer.DaysEnsured - partitionsBefore);
                partitionsBefore = writer.DaysEnsured;
                Interlocked.Add(ref counters.PartitionTicks, writer.PartitionTime.Ticks - partitionTicksBefore);
                partitionTicksBefore = writer.PartitionTime.Ticks;
                Interlocked.Add(ref counters.BusyTicks, busy.Elapsed.Ticks);
            }

            return false;
        }
        finally
        {
            // A batch read ahead is dropped with the connection: the next one starts again from the committed positions.
            try
            {
                next?.Wait();
            }
            catch (AggregateException)
            {
            }

            foreach (var (_, tail) in tails.Values)
            {
                tail.Dispose();
            }
        }
    }

    /// <summary>The records of one transaction, encoded into <paramref name="batch"/>: this server's rows, and the position every journal read reaches.</summary>
    private EncodedBatch Gather(int server, int stream, Dictionary<string, (long Generation, int Seq)> committed,
        Dictionary<string, (JournalSource Source, JournalTail Tail)> tails, RowEncoder encoder, EncodedBatch batch)
    {
        foreach (var source in JournalSource.Discover(_options.DataDirectory))
        {
            if (source.StreamOf(_options.Streams) == stream && !tails.ContainsKey(source.Name))
            {
                var (generation, seq) = committed.GetValueOrDefault(source.Name);
                tails[source.Name] = (source, new JournalTail(source.Path, generation, seq));
            }
        }

        _index.CatchUp();
        batch.Clear();
        int room = _options.BatchRecords;
        // Inputs first: an answer's input is then indexed before the answer is encoded.
        foreach (var (source, tail) in tails.Values.OrderByDescending(t => t.Source.IsInput))
        {
            if (room <= 0)
            {
                continue;
            }

            encoder.Begin(batch, source, server);
            int read = tail.Poll(encoder, room);
            if (read == 0)
            {
                continue;
            }

            room -= read;
            batch.Positions[source.Name] = tail.Position;
        }

        return batch;
    }

    public void Dispose()
    {
        if (!_stop.IsCancellationRequested)
        {
            Stop();
        }

        _stop.Dispose();
        _fatal.Dispose();
        _index.Dispose();
    }
}

/// <summary>The database's schema version is not the one this persister writes.</summary>
public sealed class SchemaMismatchException(string message) : Exception(message);
