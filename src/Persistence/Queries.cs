using Npgsql;

namespace RapidFix.Persistence;

/// <summary>
/// Back-office reports across the federation: each query runs on every server (the read-only role is enough) and the
/// answers are merged. A trade's rows all sit on one server, but which one needs its parties: a report by key or ID
/// asks them all rather than guess.
/// </summary>
public static class Queries
{
    /// <summary>An exception with no CLS for its trade key (yet), oldest first.</summary>
    public sealed record OpenException(int Server, DateOnly TradeDate, string Participant, string Kind, string? RefMsgType, string? RefId, string? Code, string? Text, string? TradeKey);

    /// <summary>A trade's row of history: every message in and out, in the order the service handled them.</summary>
    public sealed record HistoryRow(int Server, DateOnly TradeDate, string Source, int Seq, char Direction, string Participant, string MsgType, DateTime? SendingTime,
        string? MessageId, string? RefId);

    public static List<OpenException> OpenExceptions(IReadOnlyList<string> servers, int limit = 1000)
    {
        const string sql = """
            SELECT e.trade_date, e.participant, e.kind, e.ref_msg_type, e.ref_id, e.code, e.text, e.trade_key
            FROM rapidfix.match_exception e
            WHERE e.trade_key IS NULL OR NOT EXISTS (SELECT 1 FROM rapidfix.cls c WHERE c.trade_key = e.trade_key)
            ORDER BY e.trade_date, e.sent_at LIMIT $1
            """;
        return FanOut(servers, sql, [limit], (server, r) => new OpenException(server, r.GetFieldValue<DateOnly>(0), r.GetString(1), r.GetString(2),
            Text(r, 3), Text(r, 4), Text(r, 5), Text(r, 6), Text(r, 7)));
    }

    /// <summary>CLS per trade date (and per investment manager when <paramref name="byParticipant"/>), summed across servers.</summary>
    public static SortedDictionary<(DateOnly Day, string Participant), long> ClsPerDay(IReadOnlyList<string> servers, bool byParticipant)
    {
        string sql = byParticipant
            ? "SELECT trade_date, investment_manager, count(*) FROM rapidfix.cls GROUP BY 1, 2"
            : "SELECT trade_date, '', count(*) FROM rapidfix.cls GROUP BY 1";
        var totals = new SortedDictionary<(DateOnly, string), long>();
        foreach (var (day, participant, count) in FanOut(servers, sql, [], (_, r) => (r.GetFieldValue<DateOnly>(0), r.GetString(1), r.GetInt64(2))))
        {
            totals[(day, participant)] = totals.GetValueOrDefault((day, participant)) + count;
        }

        return totals;
    }

    /// <summary>
    /// The history of the trade a key or any participant's message ID names: the matching key itself
    /// (<c>IM|EB|side|ISIN|YYYYMMDD</c>), or a TradeReportID, AllocID, ConfirmID, SettlInstMsgID or CLS ID.
    /// </summary>
    public static List<HistoryRow> TradeHistory(IReadOnlyList<string> servers, string keyOrId)
    {
        return FanOut(servers, TradeHistorySql, [keyOrId], (server, r) => new HistoryRow(server, r.GetFieldValue<DateOnly>(0), r.GetString(1), r.GetInt32(2),
            r.GetChar(3), r.GetString(4), r.GetString(5), r.IsDBNull(6) ? null : r.GetDateTime(6), Text(r, 7), Text(r, 8)))
            .OrderBy(h => h.SendingTime ?? DateTime.MaxValue).ToList();
    }

    /// <summary>The history query (<see cref="TradeHistory"/>): <c>$1</c> the key or ID.</summary>
    // Each part served by an index (migration 5): the trade keys the ID names (an input's ID, a CLS ID through cls),
    // then the trade's rows by the key's hash (the text rechecked), the inputs and key-less outputs with that ID,
    // and the key-less answers to it. QueryTests checks the plans.
    internal const string TradeHistorySql = """
        WITH k AS (
            SELECT $1::text AS trade_key
            UNION SELECT trade_key FROM rapidfix.fix_message
                WHERE message_id = $1 AND (direction = 'I' OR trade_key IS NULL) AND message_id IS NOT NULL AND trade_key IS NOT NULL
            UNION SELECT trade_key FROM rapidfix.cls WHERE confirm_id = $1
        ), found AS (
            SELECT m.trade_date, m.source, m.generation, m.seq, m.direction, m.participant, m.msg_type, m.sending_time, m.message_id, m.ref_id
            FROM k JOIN rapidfix.fix_message m
                ON hashtextextended(m.trade_key, 0) = hashtextextended(k.trade_key, 0) AND m.trade_key = k.trade_key
            WHERE m.trade_key IS NOT NULL
            UNION
            SELECT m.trade_date, m.source, m.generation, m.seq, m.direction, m.participant, m.msg_type, m.sending_time, m.message_id, m.ref_id
            FROM rapidfix.fix_message m
            WHERE m.message_id = $1 AND (m.direction = 'I' OR m.trade_key IS NULL) AND m.message_id IS NOT NULL
            UNION
            SELECT m.trade_date, m.source, m.generation, m.seq, m.direction, m.participant, m.msg_type, m.sending_time, m.message_id, m.ref_id
            FROM rapidfix.fix_message m
            WHERE m.ref_id = $1 AND m.trade_key IS NULL AND m.ref_id IS NOT NULL
        )
        SELECT trade_date, source, seq, direction, participant, msg_type, sending_time, message_id, ref_id
        FROM found
        ORDER BY sending_time NULLS LAST, source, seq
        """;

    private static string? Text(NpgsqlDataReader r, int i) => r.IsDBNull(i) ? null : r.GetString(i);

    /// <summary>Runs one parameterised query on every server, in parallel, and concatenates the rows (server order).</summary>
    private static List<T> FanOut<T>(IReadOnlyList<string> servers, string sql, object[] parameters, Func<int, NpgsqlDataReader, T> row)
    {
        var results = new List<T>[servers.Count];
        Parallel.For(0, servers.Count, server =>
        {
            var rows = new List<T>();
            using var connection = new NpgsqlConnection(servers[server]);
            connection.Open();
            using var command = new NpgsqlCommand(sql, connection);
            foreach (var p in parameters)
            {
                command.Parameters.Add(new NpgsqlParameter { Value = p });
            }

            using var reader = command.ExecuteReader();
            while (reader.Read())
            {
                rows.Add(row(server, reader));
            }

            results[server] = rows;
        });
        return results.SelectMany(r => r).ToList();
    }
}
