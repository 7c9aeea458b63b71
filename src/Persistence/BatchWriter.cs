using System.Diagnostics;
using Npgsql;
using NpgsqlTypes;

namespace RapidFix.Persistence;

/// <summary>
/// Writes batches of journal records into one database, exactly once: first the day partitions the batch needs (each
/// day its own short transaction, <see cref="EnsureDays"/>), then in one transaction the rows (binary COPY, one per
/// table) and the journal positions the batch reaches; commit. A row
/// PostgreSQL refuses (a data or constraint error) does not poison the batch: the COPY runs under a savepoint, and on
/// such an error the batch is split in halves, each under its own savepoint, down to the one record that fails,
/// which goes to <c>rapidfix.quarantine</c> with PostgreSQL's reason and its raw payload; the rest go in, and the
/// position still moves past it, in the same transaction. Any other error (connection lost, server shut down)
/// is thrown to the caller, which reconnects and re-reads the committed positions.
/// </summary>
internal sealed class BatchWriter : IDisposable
{
    private readonly NpgsqlConnection _connection;
    private readonly HashSet<DateOnly> _days = new();
    private readonly Stopwatch _serverTime = new();
    private readonly HashSet<DateOnly> _missing = new();
    private readonly Stopwatch _partitionTime = new();
    private bool _asyncCommit;

    public BatchWriter(NpgsqlConnection connection)
    {
        _connection = connection;
    }

    /// <summary>Time spent in calls to the server (COPY, statements, commit).</summary>
    public TimeSpan ServerTime => _serverTime.Elapsed;

    public long RowsWritten { get; private set; }

    public long Quarantined { get; private set; }

    /// <summary>The committed positions of this database (source → generation, seq).</summary>
    public Dictionary<string, (long Generation, int Seq)> LoadPositions()
    {
        var positions = new Dictionary<string, (long, int)>();
        using var command = new NpgsqlCommand("SELECT source, generation, seq FROM rapidfix.journal_position", _connection);
        using var reader = command.ExecuteReader();
        while (reader.Read())
        {
            positions[reader.GetString(0)] = (reader.GetInt64(1), reader.GetInt32(2));
        }

        return positions;
    }

    /// <summary>
    /// Writes <paramref name="records"/> (row objects, encoded here: the tests' way of writing chosen values) and
    /// moves the positions to <paramref name="positions"/>, in one transaction.
    /// </summary>
    public void Write(List<RecordRows> records, Dictionary<string, (long Generation, int Seq)> positions)
    {
        var batch = new EncodedBatch(records.Count);
        foreach (var r in records)
        {
            Encode(batch, r);
        }

        foreach (var (source, position) in positions)
        {
            batch.Positions[source] = position;
        }

        Write(batch);
    }

    /// <summary>Encodes one record's row objects into <paramref name="batch"/> (<see cref="RowBuilder"/>'s output: the reference of <see cref="RowEncoder"/>).</summary>
    internal static void Encode(EncodedBatch batch, RecordRows r)
    {
        if (r.Message is { } m)
        {
            batch.Days.Add(m.TradeDate);
            for (int t = 0; t < EncodedBatch.Tables; t++)
            {
                if (Has(r, (Table)t))
                {
                    WriteRow(batch.Rows[t], r, (Table)t);
                }
            }
        }

        batch.EndRecord(r.Source, r.Generation, r.Seq, r.Payload.Span);
    }

    /// <summary>Writes <paramref name="batch"/> (this server's records, encoded) and moves the positions to the batch's, in one transaction.</summary>
    public void Write(EncodedBatch batch)
    {
        _serverTime.Start();
        try
        {
            // The day partitions first, each day its own short transaction (it takes the day's advisory lock, which the
            // batch's transaction would otherwise hold for the whole batch). A partition made for a batch that then fails
            // is empty and harmless.
            EnsureDays(batch.Days);
            using var tx = _connection.BeginTransaction();
            // No wait for the WAL flush at commit: the rows and the positions still commit atomically, so a server
            // crash that loses the last commits loses them together, and the worker, which reads its positions from
            // the database at every (re)connection, writes them again: exactly once holds, and the commit does not
            // wait for a disk flush per batch (the service's journals, not the database, are the durable record).
            Schema.Execute(_connection, "SET LOCAL synchronous_commit = off", tx);

            long rows = WriteSplitting(batch, 0, batch.Count, tx);
            foreach (var (source, position) in batch.Positions)
            {
                using var command = new NpgsqlCommand(
                    "INSERT INTO rapidfix.journal_position (source, generation, seq, updated_at) VALUES ($1, $2, $3, now()) " +
                    "ON CONFLICT (source) DO UPDATE SET generation = excluded.generation, seq = excluded.seq, updated_at = excluded.updated_at",
                    _connection, tx);
                command.Parameters.Add(new NpgsqlParameter { Value = source });
                command.Parameters.Add(new NpgsqlParameter { Value = position.Generation });
                command.Parameters.Add(new NpgsqlParameter { Value = position.Seq });
                command.ExecuteNonQuery();
            }

            tx.Commit();
            RowsWritten += rows;
        }
        finally
        {
            _serverTime.Stop();
        }
    }

    /// <summary>Days this writer had made or found made by <c>ensure_day</c> (one call each), and the time those calls took.</summary>
    public long DaysEnsured { get; private set; }

    /// <summary>Make a batch's new days latest first (every other stream: <see cref="EnsureDays"/>).</summary>
    public bool LatestDayFirst { get; init; }

    public TimeSpan PartitionTime => _partitionTime.Elapsed;

    /// <summary>
    /// Makes every day the records need that this writer has not seen yet (each record's trade date and the day after
    /// it), each day its own short transaction, earliest first or, with <see cref="LatestDayFirst"/> (every other
    /// stream), latest first: two streams needing the same new days make two at once and meet in the middle, where
    /// <c>ensure_day</c> finds the other's days made. The commits do not wait for the WAL flush: a server crash that
    /// loses one also loses every later commit (the log is replayed in order) and the connection, and the worker
    /// reconnects with a new writer that knows no day, so a day is never taken for made when it was lost.
    /// </summary>
    private void EnsureDays(HashSet<DateOnly> batchDays)
    {
        _missing.Clear();
        foreach (var day in batchDays)
        {
            if (!_days.Contains(day))
            {
                _missing.Add(day);
                _missing.Add(day.AddDays(1)); // one day ahead
            }
        }

        if (_missing.Count == 0)
        {
            return;
        }

        _partitionTime.Start();
        try
        {
            if (!_asyncCommit)
            {
                Schema.Execute(_connection, "SET synchronous_commit = off"); // this connection's batches SET LOCAL it too
                _asyncCommit = true;
            }

            var days = _missing.Order().ToList();
            if (LatestDayFirst)
            {
                days.Reverse();
            }

            foreach (var day in days)
            {
                if (_days.Contains(day))
                {
                    continue;
                }

                using var command = new NpgsqlCommand("SELECT rapidfix.ensure_day($1)", _connection);
                command.Parameters.Add(new NpgsqlParameter { Value = day, NpgsqlDbType = NpgsqlDbType.Date });
                command.ExecuteNonQuery();
                _days.Add(day);
                DaysEnsured++;
            }
        }
        finally
        {
            _partitionTime.Stop();
        }
    }

    private long WriteSplitting(EncodedBatch batch, int from, int count, NpgsqlTransaction tx)
    {
        if (count == 0)
        {
            return 0;
        }

        tx.Save("batch");
        try
        {
            long rows = Copy(batch, from, count);
            tx.Release("batch");
            return rows;
        }
        catch (PostgresException e) when (IsRowError(e))
        {
            tx.Rollback("batch");
            if (count == 1)
            {
                Quarantine(batch, from, e, tx);
                return 1;
            }

            int half = count / 2;
            return WriteSplitting(batch, from, half, tx) + WriteSplitting(batch, from + half, count - half, tx);
        }
    }

    /// <summary>Errors that belong to the data of a row (class 22 data exception, 23 integrity constraint), not to the connection or the server.</summary>
    internal static bool IsRowError(PostgresException e) => e.SqlState.StartsWith("22", StringComparison.Ordinal) || e.SqlState.StartsWith("23", StringComparison.Ordinal);

    private void Quarantine(EncodedBatch batch, int record, PostgresException e, NpgsqlTransaction tx)
    {
        using var command = new NpgsqlCommand(
            "INSERT INTO rapidfix.quarantine (source, generation, seq, reason, sql_state, payload) VALUES ($1, $2, $3, $4, $5, $6)", _connection, tx);
        command.Parameters.Add(new NpgsqlParameter { Value = batch.Source(record) });
        command.Parameters.Add(new NpgsqlParameter { Value = batch.Generation(record) });
        command.Parameters.Add(new NpgsqlParameter { Value = batch.Seq(record) });
        command.Parameters.Add(new NpgsqlParameter { Value = e.MessageText + (e.Detail is { } d ? " (" + d + ")" : "") });
        command.Parameters.Add(new NpgsqlParameter { Value = e.SqlState });
        command.Parameters.Add(new NpgsqlParameter { Value = batch.Payload(record).ToArray() });
        command.ExecuteNonQuery();
        Quarantined++;
    }

    private long Copy(EncodedBatch batch, int from, int count) =>
        CopyTable(batch, from, count, Table.Message) + CopyTable(batch, from, count, Table.Cls) + CopyTable(batch, from, count, Table.Exception);

    private enum Table
    {
        Message,
        Cls,
        Exception,
    }

    private const string MessageCopy =
        "COPY rapidfix.fix_message (trade_date, source, generation, seq, direction, participant, msg_type, msg_seq_num, sending_time, trade_partition, " +
        "trade_key, message_id, ref_id, body, counterparty, outcome) FROM STDIN (FORMAT BINARY)";

    private const string ClsCopy =
        "COPY rapidfix.cls (trade_date, confirm_id, investment_manager, executing_broker, account, isin, side, quantity, net_amount, currency, settl_date, " +
        "alloc_id, sent_at, trade_partition, trade_key) FROM STDIN (FORMAT BINARY)";

    private const string ExceptionCopy =
        "COPY rapidfix.match_exception (trade_date, source, generation, seq, participant, kind, ref_msg_type, ref_id, code, text, trade_key, " +
        "trade_partition, sent_at) FROM STDIN (FORMAT BINARY)";

    /// <summary>
    /// One binary COPY into one table of the records [<paramref name="from"/>, +<paramref name="count"/>): their rows
    /// were encoded once into the batch's arena for the table (<see cref="RowEncoder"/>), so the COPY's data is the
    /// header, one contiguous range of the arena, the trailer, handed to Npgsql's raw COPY stream in one write. A
    /// table with no row in the range is not copied at all (one round trip less). Should anything but the server fail
    /// while the data is handed over, the COPY is cancelled, never completed (disposing a raw COPY stream completes it).
    /// </summary>
    private long CopyTable(EncodedBatch batch, int from, int count, Table table)
    {
        batch.Range((int)table, from, count, out int rows);
        if (rows == 0)
        {
            return 0;
        }

        string command = table switch
        {
            Table.Message => MessageCopy,
            Table.Cls => ClsCopy,
            _ => ExceptionCopy,
        };
        using var stream = _connection.BeginRawBinaryCopy(command);
        try
        {
            stream.Write(BinaryCopyWriter.CopyHeader);
            stream.Write(batch.Range((int)table, from, count, out _));
            stream.Write(BinaryCopyWriter.CopyTrailer);
        }
        catch (Exception e) when (e is not PostgresException and not NpgsqlException)
        {
            stream.Cancel();
            throw;
        }

        return rows;
    }

    private static bool Has(RecordRows r, Table table) => table switch
    {
        Table.Message => r.Message is not null,
        Table.Cls => r.Cls is not null,
        _ => r.Exception is not null,
    };

    /// <summary>One row, its fields in the order of the table's COPY column list.</summary>
    private static void WriteRow(BinaryCopyWriter w, RecordRows r, Table table)
    {
        var m = r.Message!;
        switch (table)
        {
            case Table.Message:
                w.StartRow(16);
                WriteKey(w, r);
                w.Char(m.Direction);
                w.Text(m.Participant);
                w.Text(m.MsgType);
                w.Int32(m.MsgSeqNum);
                w.Timestamp(m.SendingTime);
                w.Int32(m.Partition);
                w.Text(m.TradeKey);
                w.Text(m.MessageId);
                w.Text(m.RefId);
                w.Bytes(m.Body);
                // The audit row of before as two columns (migration 6): the party that is not `participant`, and the outcome.
                var a = r.Audit;
                w.Text(a is null ? null : m.Direction == 'I' ? a.Counterparty : a.Actor);
                w.Text(a?.Outcome);
                break;
            case Table.Cls:
                var c = r.Cls!;
                w.StartRow(15);
                w.Date(m.TradeDate);
                w.Text(c.ConfirmId);
                w.Text(c.InvestmentManager);
                w.Text(c.ExecutingBroker);
                w.Text(c.Account);
                w.Text(c.Isin);
                w.Char(c.Side);
                w.Numeric(c.Quantity);
                w.Numeric(c.NetAmount);
                w.Text(c.Currency);
                w.Date(c.SettlDate);
                w.Text(c.AllocId);
                w.Timestamp(c.SentAt);
                w.Int32(m.Partition);
                w.Text(c.TradeKey);
                break;
            default:
                var x = r.Exception!;
                w.StartRow(13);
                WriteKey(w, r);
                w.Text(x.Participant);
                w.Text(x.Kind);
                w.Text(x.RefMsgType);
                w.Text(x.RefId);
                w.Text(x.Code);
                w.Text(x.Text);
                w.Text(x.TradeKey);
                w.Int32(m.Partition);
                w.Timestamp(x.SentAt);
                break;
        }
    }

    private static void WriteKey(BinaryCopyWriter w, RecordRows r)
    {
        w.Date(r.Message!.TradeDate);
        w.Text(r.Source);
        w.Int64(r.Generation);
        w.Int32(r.Seq);
    }

    public void Dispose() => _connection.Dispose();
}
