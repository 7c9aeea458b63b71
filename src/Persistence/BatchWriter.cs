using System.Diagnostics;
using Npgsql;
using NpgsqlTypes;

namespace RapidFix.Persistence;

/// <summary>
/// Writes batches of journal records into one database, exactly once: in one transaction, the day partitions the
/// batch needs, the rows (binary COPY, one per table), and the journal positions the batch reaches; commit. A row
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

    /// <summary>Writes <paramref name="records"/> (this server's) and moves the positions to <paramref name="positions"/>, in one transaction.</summary>
    public void Write(List<RecordRows> records, Dictionary<string, (long Generation, int Seq)> positions)
    {
        _serverTime.Start();
        try
        {
            // The day partitions first, each in its own short transaction: creating one locks its parent table
            // exclusively until commit, so inside the batch's transaction it would hold every other stream's COPY
            // into that table for the whole batch (and the advisory lock of ensure_day with it), and the streams
            // would take turns. A partition created for a batch that then fails is empty and harmless.
            foreach (var r in records)
            {
                if (r.Message is { } m && !_days.Contains(m.TradeDate))
                {
                    EnsureDay(m.TradeDate);
                    EnsureDay(m.TradeDate.AddDays(1)); // one day ahead
                }
            }

            using var tx = _connection.BeginTransaction();
            // No wait for the WAL flush at commit: the rows and the positions still commit atomically, so a server
            // crash that loses the last commits loses them together, and the worker, which reads its positions from
            // the database at every (re)connection, writes them again: exactly once holds, and the commit does not
            // wait for a disk flush per batch (the service's journals, not the database, are the durable record).
            Schema.Execute(_connection, "SET LOCAL synchronous_commit = off", tx);

            long rows = WriteSplitting(records, 0, records.Count, tx);
            foreach (var (source, position) in positions)
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

    private void EnsureDay(DateOnly day)
    {
        if (_days.Contains(day))
        {
            return;
        }

        using var command = new NpgsqlCommand("SELECT rapidfix.ensure_day($1)", _connection);
        command.Parameters.Add(new NpgsqlParameter { Value = day, NpgsqlDbType = NpgsqlDbType.Date });
        command.ExecuteNonQuery();
        _days.Add(day);
    }

    private long WriteSplitting(List<RecordRows> records, int from, int count, NpgsqlTransaction tx)
    {
        if (count == 0)
        {
            return 0;
        }

        tx.Save("batch");
        try
        {
            long rows = Copy(records, from, count);
            tx.Release("batch");
            return rows;
        }
        catch (PostgresException e) when (IsRowError(e))
        {
            tx.Rollback("batch");
            if (count == 1)
            {
                Quarantine(records[from], e, tx);
                return 1;
            }

            int half = count / 2;
            return WriteSplitting(records, from, half, tx) + WriteSplitting(records, from + half, count - half, tx);
        }
    }

    /// <summary>Errors that belong to the data of a row (class 22 data exception, 23 integrity constraint), not to the connection or the server.</summary>
    internal static bool IsRowError(PostgresException e) => e.SqlState.StartsWith("22", StringComparison.Ordinal) || e.SqlState.StartsWith("23", StringComparison.Ordinal);

    private void Quarantine(RecordRows record, PostgresException e, NpgsqlTransaction tx)
    {
        using var command = new NpgsqlCommand(
            "INSERT INTO rapidfix.quarantine (source, generation, seq, reason, sql_state, payload) VALUES ($1, $2, $3, $4, $5, $6)", _connection, tx);
        command.Parameters.Add(new NpgsqlParameter { Value = record.Source });
        command.Parameters.Add(new NpgsqlParameter { Value = record.Generation });
        command.Parameters.Add(new NpgsqlParameter { Value = record.Seq });
        command.Parameters.Add(new NpgsqlParameter { Value = e.MessageText + (e.Detail is { } d ? " (" + d + ")" : "") });
        command.Parameters.Add(new NpgsqlParameter { Value = e.SqlState });
        command.Parameters.Add(new NpgsqlParameter { Value = record.Payload.ToArray() });
        command.ExecuteNonQuery();
        Quarantined++;
    }

    private long Copy(List<RecordRows> records, int from, int count) =>
        CopyTable(records, from, count,
            "fix_message (trade_date, source, generation, seq, direction, participant, msg_type, msg_seq_num, sending_time, trade_partition, trade_key, " +
            "message_id, ref_id, body)",
            r => r.Message is not null,
            (copy, r) =>
            {
                var m = r.Message!;
                copy.Write(m.Direction, NpgsqlDbType.InternalChar);
                copy.Write(m.Participant, NpgsqlDbType.Text);
                copy.Write(m.MsgType, NpgsqlDbType.Text);
                copy.Write(m.MsgSeqNum, NpgsqlDbType.Integer);
                WriteNullable(copy, m.SendingTime, NpgsqlDbType.Timestamp);
                copy.Write(m.Partition, NpgsqlDbType.Integer);
                WriteNullable(copy, m.TradeKey, NpgsqlDbType.Text);
                WriteNullable(copy, m.MessageId, NpgsqlDbType.Text);
                WriteNullable(copy, m.RefId, NpgsqlDbType.Text);
                copy.Write(m.Body, NpgsqlDbType.Bytea);
            })
        + CopyTable(records, from, count,
            "audit (trade_date, source, generation, seq, at, actor, counterparty, action, msg_type, message_id, outcome)",
            r => r.Audit is not null,
            (copy, r) =>
            {
                var a = r.Audit!;
                WriteNullable(copy, a.At, NpgsqlDbType.Timestamp);
                copy.Write(a.Actor, NpgsqlDbType.Text);
                copy.Write(a.Counterparty, NpgsqlDbType.Text);
                copy.Write(a.Action, NpgsqlDbType.Text);
                copy.Write(a.MsgType, NpgsqlDbType.Text);
                WriteNullable(copy, a.MessageId, NpgsqlDbType.Text);
                copy.Write(a.Outcome, NpgsqlDbType.Text);
            })
        + CopyTable(records, from, count,
            "cls (trade_date, confirm_id, investment_manager, executing_broker, account, isin, side, quantity, net_amount, currency, settl_date, " +
            "alloc_id, sent_at, trade_partition, trade_key)",
            r => r.Cls is not null,
            (copy, r) =>
            {
                var c = r.Cls!;
                copy.Write(c.InvestmentManager, NpgsqlDbType.Text);
                copy.Write(c.ExecutingBroker, NpgsqlDbType.Text);
                WriteNullable(copy, c.Account, NpgsqlDbType.Text);
                WriteNullable(copy, c.Isin, NpgsqlDbType.Text);
                WriteNullable(copy, c.Side, NpgsqlDbType.InternalChar);
                WriteNullable(copy, c.Quantity, NpgsqlDbType.Numeric);
                WriteNullable(copy, c.NetAmount, NpgsqlDbType.Numeric);
                WriteNullable(copy, c.Currency, NpgsqlDbType.Text);
                WriteNullable(copy, c.SettlDate, NpgsqlDbType.Date);
                WriteNullable(copy, c.AllocId, NpgsqlDbType.Text);
                WriteNullable(copy, c.SentAt, NpgsqlDbType.Timestamp);
                copy.Write(r.Message!.Partition, NpgsqlDbType.Integer);
                copy.Write(c.TradeKey, NpgsqlDbType.Text);
            },
            keyedByConfirmId: true)
        + CopyTable(records, from, count,
            "match_exception (trade_date, source, generation, seq, participant, kind, ref_msg_type, ref_id, code, text, trade_key, trade_partition, sent_at)",
            r => r.Exception is not null,
            (copy, r) =>
            {
                var x = r.Exception!;
                copy.Write(x.Participant, NpgsqlDbType.Text);
                copy.Write(x.Kind, NpgsqlDbType.Text);
                WriteNullable(copy, x.RefMsgType, NpgsqlDbType.Text);
                WriteNullable(copy, x.RefId, NpgsqlDbType.Text);
                WriteNullable(copy, x.Code, NpgsqlDbType.Text);
                WriteNullable(copy, x.Text, NpgsqlDbType.Text);
                WriteNullable(copy, x.TradeKey, NpgsqlDbType.Text);
                copy.Write(r.Message!.Partition, NpgsqlDbType.Integer);
                WriteNullable(copy, x.SentAt, NpgsqlDbType.Timestamp);
            });

    /// <summary>
    /// One binary COPY into <c>rapidfix.&lt;columns&gt;</c> of the records that have such a row. Every table starts with
    /// the trade date and the record's key (source, generation, seq), except <c>cls</c>, keyed by trade date and CLS ID.
    /// </summary>
    private long CopyTable(List<RecordRows> records, int from, int count, string columns, Func<RecordRows, bool> has,
        Action<NpgsqlBinaryImporter, RecordRows> write, bool keyedByConfirmId = false)
    {
        long rows = 0;
        using var copy = _connection.BeginBinaryImport($"COPY rapidfix.{columns} FROM STDIN (FORMAT BINARY)");
        for (int i = from; i < from + count; i++)
        {
            var r = records[i];
            if (!has(r))
            {
                continue;
            }

            copy.StartRow();
            copy.Write(r.Message!.TradeDate, NpgsqlDbType.Date);
            if (keyedByConfirmId)
            {
                copy.Write(r.Cls!.ConfirmId, NpgsqlDbType.Text);
            }
            else
            {
                copy.Write(r.Source, NpgsqlDbType.Text);
                copy.Write(r.Generation, NpgsqlDbType.Bigint);
                copy.Write(r.Seq, NpgsqlDbType.Integer);
            }

            write(copy, r);
            rows++;
        }

        copy.Complete();
        return rows;
    }

    private static void WriteNullable<T>(NpgsqlBinaryImporter copy, T? value, NpgsqlDbType type)
        where T : class
    {
        if (value is null)
        {
            copy.WriteNull();
        }
        else
        {
            copy.Write(value, type);
        }
    }

    private static void WriteNullable<T>(NpgsqlBinaryImporter copy, T? value, NpgsqlDbType type)
        where T : struct
    {
        if (value is { } v)
        {
            copy.Write(v, type);
        }
        else
        {
            copy.WriteNull();
        }
    }

    public void Dispose() => _connection.Dispose();
}
