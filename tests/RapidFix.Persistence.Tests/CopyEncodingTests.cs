using System.Globalization;
using Npgsql;
using RapidFix.Persister;
using RapidFix.Tests.Shared;

namespace RapidFix.Persistence.Tests;

/// <summary>
/// The batch writer encodes its binary COPY rows itself (<see cref="BinaryCopyWriter"/>), not through Npgsql's
/// importer: every column type, NULLs, non-ASCII text, dates and timestamps either side of PostgreSQL's 2000-01-01
/// epoch, numerics of every shape (zero with a scale, negative, tiny, the largest decimal) and a body larger than the
/// writer's buffer must read back equal to what was written.
/// </summary>
[Collection(nameof(PersisterProcesses))]
public sealed class CopyEncodingTests
{
    private static readonly DateOnly Day = new(2026, 11, 23);

    private static readonly decimal[] Numbers =
    [
        12525.00m, 5000m, -0.5m, 0m, 0.00m, 10000m, 9999.9999m, 0.0001m, 1.00010m, -123456789012345678.9012345678m,
        0.0000000000000000000000000001m, decimal.MaxValue, decimal.MinValue,
    ];

    [PostgresFact]
    public void Rows_encoded_by_the_writer_read_back_equal()
    {
        using var rig = Rig.Create(1);
        var body = new byte[300_000]; // larger than the writer's buffer: the buffer is handed over, then grown
        new Random(11).NextBytes(body);
        var records = new List<RecordRows>();
        var sent = new DateTime(2026, 11, 23, 10, 0, 0, DateTimeKind.Unspecified).AddTicks(1_234_560);
        var beforeEpoch = new DateTime(1999, 12, 31, 23, 59, 59, DateTimeKind.Unspecified).AddTicks(9_999_990);

        // Record 1: every column filled, non-ASCII text, the large body.
        records.Add(new RecordRows
        {
            Source = "src-Zürich", Generation = long.MaxValue, Seq = 1, Payload = body,
            Message = new MessageRow(Day, 'I', "Zürich-β", "AE", int.MaxValue, sent, 3, "IM1|EB1|1|SG1|20261123", "NOE-1", "REF-ü", body),
            Audit = new AuditRow(sent, "Zürich-β", "MATCH-ü", "sent", "AE", "NOE-1", "received"), // the audit trail: columns of the message row (migration 6)
            Exception = new ExceptionRow("IM1", "rejected", "AE", "REF-1", "7", "text with 'quotes', \"doubles\", tabs\tand €", "KEY", sent),
        });

        // Record 2: every nullable column NULL, empty text, an empty body.
        records.Add(new RecordRows
        {
            Source = "s", Generation = -1, Seq = int.MinValue, Payload = Array.Empty<byte>(),
            Message = new MessageRow(Day, 'O', "", "", 0, null, -1, null, null, null, new ArraySegment<byte>(Array.Empty<byte>())),
            Audit = new AuditRow(null, "", "", "answered", "", null, ""),
            Exception = new ExceptionRow("p", "notice", null, null, null, null, null, null),
            Cls = new ClsRow("CLS-null", "IM1", "EB1", null, null, null, null, null, null, null, null, null, "K"),
        });

        // Then one CLS a numeric shape (quantity the number, net amount its negation).
        for (int i = 0; i < Numbers.Length; i++)
        {
            records.Add(new RecordRows
            {
                Source = "cls", Generation = 1, Seq = 10 + i, Payload = body.AsMemory(0, 10),
                Message = new MessageRow(Day, 'O', "IM1", "AK", i, sent, 0, "K", "CLS-" + i, null, new ArraySegment<byte>(body, i, 7)),
                Cls = new ClsRow("CLS-" + i, "IM1", "EB1", "ACC-" + i, "SG" + i, '1', Numbers[i], -Numbers[i], "SGD",
                    new DateOnly(1999, 12, 31).AddDays(i), "ALC-" + i, beforeEpoch.AddTicks(i * 10), "K" + i),
            });
        }

        using (var connection = new NpgsqlConnection(rig.Writers[0]))
        {
            connection.Open();
            using var writer = new BatchWriter(connection);
            writer.Write(records, new Dictionary<string, (long, int)> { ["cls"] = (1, 10 + Numbers.Length - 1) });
            Assert.Equal(0, writer.Quarantined);
            Assert.Equal(2 + Numbers.Length + 2 + 1 + Numbers.Length, writer.RowsWritten); // messages, exceptions, CLS: no audit row of its own
        }

        using var c = new NpgsqlConnection(rig.Admins[0]);
        c.Open();
        foreach (var r in records)
        {
            var m = r.Message!;
            using (var q = Query(c, "SELECT trade_date, direction, participant, msg_type, msg_seq_num, sending_time, trade_partition, trade_key, message_id, ref_id, body " +
                                    "FROM rapidfix.fix_message WHERE source = $1 AND generation = $2 AND seq = $3", r))
            {
                Assert.True(q.Read());
                Assert.Equal(m.TradeDate, q.GetFieldValue<DateOnly>(0));
                Assert.Equal(m.Direction, q.GetChar(1));
                Assert.Equal(m.Participant, q.GetString(2));
                Assert.Equal(m.MsgType, q.GetString(3));
                Assert.Equal(m.MsgSeqNum, q.GetInt32(4));
                Assert.Equal(m.SendingTime, q.IsDBNull(5) ? null : q.GetDateTime(5));
                Assert.Equal(m.Partition, q.GetInt32(6));
                Assert.Equal(m.TradeKey, Text(q, 7));
                Assert.Equal(m.MessageId, Text(q, 8));
                Assert.Equal(m.RefId, Text(q, 9));
                Assert.Equal(m.Body.ToArray(), (byte[])q[10]);
                Assert.False(q.Read());
            }

            using (var q = Query(c, "SELECT trade_date, at, actor, counterparty, action, msg_type, message_id, outcome FROM rapidfix.audit_trail " +
                                    "WHERE source = $1 AND generation = $2 AND seq = $3", r))
            {
                if (r.Audit is { } a)
                {
                    Assert.True(q.Read());
                    Assert.Equal(m.TradeDate, q.GetFieldValue<DateOnly>(0));
                    Assert.Equal(a.At, q.IsDBNull(1) ? null : q.GetDateTime(1));
                    Assert.Equal(new[] { a.Actor, a.Counterparty, a.Action, a.MsgType, a.MessageId, a.Outcome }, new[] { Text(q, 2), Text(q, 3), Text(q, 4), Text(q, 5), Text(q, 6), Text(q, 7) });
                }

                Assert.False(q.Read()); // one audit entry for a record that has one, none for one that has none
            }

            if (r.Exception is { } x)
            {
                using var q = Query(c, "SELECT participant, kind, ref_msg_type, ref_id, code, text, trade_key, trade_partition, sent_at FROM rapidfix.match_exception " +
                                       "WHERE source = $1 AND generation = $2 AND seq = $3", r);
                Assert.True(q.Read());
                Assert.Equal(new[] { x.Participant, x.Kind, x.RefMsgType, x.RefId, x.Code, x.Text, x.TradeKey }, new[] { Text(q, 0), Text(q, 1), Text(q, 2), Text(q, 3), Text(q, 4), Text(q, 5), Text(q, 6) });
                Assert.Equal(m.Partition, q.GetInt32(7));
                Assert.Equal(x.SentAt, q.IsDBNull(8) ? null : q.GetDateTime(8));
            }

            if (r.Cls is { } k)
            {
                using var command = new NpgsqlCommand(
                    "SELECT trade_date, investment_manager, executing_broker, account, isin, side, quantity::text, net_amount::text, currency, settl_date, alloc_id, " +
                    "sent_at, trade_partition, trade_key, quantity FROM rapidfix.cls WHERE confirm_id = $1", c);
                command.Parameters.Add(new NpgsqlParameter { Value = k.ConfirmId });
                using var q = command.ExecuteReader();
                Assert.True(q.Read());
                Assert.Equal(m.TradeDate, q.GetFieldValue<DateOnly>(0));
                Assert.Equal(new[] { k.InvestmentManager, k.ExecutingBroker, k.Account, k.Isin }, new[] { Text(q, 1), Text(q, 2), Text(q, 3), Text(q, 4) });
                Assert.Equal(k.Side, q.IsDBNull(5) ? null : q.GetChar(5));
                // The text form shows the scale too (12525.00 stays 12525.00, 0.00 stays 0.00).
                Assert.Equal(k.Quantity?.ToString(CultureInfo.InvariantCulture), Text(q, 6));
                Assert.Equal(k.NetAmount?.ToString(CultureInfo.InvariantCulture), Text(q, 7));
                Assert.Equal(k.Quantity, q.IsDBNull(14) ? null : q.GetDecimal(14));
                Assert.Equal(k.Currency, Text(q, 8));
                Assert.Equal(k.SettlDate, q.IsDBNull(9) ? null : q.GetFieldValue<DateOnly>(9));
                Assert.Equal(k.AllocId, Text(q, 10));
                Assert.Equal(k.SentAt, q.IsDBNull(11) ? null : q.GetDateTime(11));
                Assert.Equal(m.Partition, q.GetInt32(12));
                Assert.Equal(k.TradeKey, Text(q, 13));
            }
        }

        Assert.Equal(1 + Numbers.Length, TestJournals.Count(c, "SELECT count(*) FROM rapidfix.cls"));
        Assert.Equal(10 + Numbers.Length - 1, TestJournals.Count(c, "SELECT seq FROM rapidfix.journal_position WHERE source = 'cls'"));
    }

    [Fact]
    public void The_writer_allocates_nothing_per_row_after_warm_up()
    {
        var body = new byte[200];
        var row = new RecordRows
        {
            Source = "FIX.4.4-MATCH-IM1", Generation = 1, Seq = 1, Payload = body,
            Message = new MessageRow(Day, 'O', "IM1", "AK", 7, new DateTime(2026, 11, 23, 10, 0, 0), 0, "IM1|EB1|1|SG1|20261123", "CLS-1-1", null, new ArraySegment<byte>(body)),
            Cls = new ClsRow("CLS-1-1", "IM1", "EB1", "ACC-1", "SG1", '1', 5000m, 12525.00m, "SGD", Day, "ALC-1", null, "K"),
        };
        var state = (Writer: new BinaryCopyWriter(4096), Sink: new CountingStream(), Row: row);

        // One COPY of 100 rows an iteration: the buffer (4 KB) is handed to the stream many times over.
        long bytes = Allocations.Measure(state, static s =>
        {
            var (w, sink, r) = s;
            w.Begin(sink);
            for (int i = 0; i < 100; i++)
            {
                w.StartRow(10);
                w.Date(r.Message!.TradeDate);
                w.Text(r.Source);
                w.Int64(r.Generation);
                w.Int32(r.Seq);
                w.Char(r.Message.Direction);
                w.Timestamp(r.Message.SendingTime);
                w.Text(r.Cls!.TradeKey);
                w.Numeric(r.Cls.NetAmount);
                w.Bytes(r.Message.Body);
                w.Null();
            }

            w.End();
        }, iterations: 2_000, warmup: 200);
        Assert.Equal(0, bytes);
        Assert.True(state.Sink.Written > 2_400L * 100 * 250);
    }

    private static NpgsqlDataReader Query(NpgsqlConnection c, string sql, RecordRows r)
    {
        var command = new NpgsqlCommand(sql, c);
        command.Parameters.Add(new NpgsqlParameter { Value = r.Source });
        command.Parameters.Add(new NpgsqlParameter { Value = r.Generation });
        command.Parameters.Add(new NpgsqlParameter { Value = r.Seq });
        return command.ExecuteReader(System.Data.CommandBehavior.Default);
    }

    private static string? Text(NpgsqlDataReader q, int column) => q.IsDBNull(column) ? null : q.GetString(column);

    /// <summary>A stream that only counts what it is given.</summary>
    private sealed class CountingStream : Stream
    {
        public long Written;

        public override bool CanRead => false;
        public override bool CanSeek => false;
        public override bool CanWrite => true;
        public override long Length => Written;
        public override long Position { get => Written; set => throw new NotSupportedException(); }
        public override void Flush() { }
        public override int Read(byte[] buffer, int offset, int count) => throw new NotSupportedException();
        public override long Seek(long offset, SeekOrigin origin) => throw new NotSupportedException();
        public override void SetLength(long value) => throw new NotSupportedException();
        public override void Write(byte[] buffer, int offset, int count) => Written += count;
    }
}
