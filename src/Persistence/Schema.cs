using Npgsql;

namespace RapidFix.Persistence;

/// <summary>
/// The database schema (<c>rapidfix</c>), created and migrated by the tool: numbered migrations, each applied once in
/// its own transaction and recorded in <c>rapidfix.schema_version</c>, under an advisory lock so two migrators never
/// interleave. Running it again changes nothing. It also creates the two login roles (<c>rapidfix_writer</c>: may only
/// insert into its tables, move its journal positions and create day partitions through
/// <c>rapidfix.ensure_day</c>; <c>rapidfix_reader</c>: may only read) and grants them exactly that. docs/persistence.md.
/// </summary>
public static class Schema
{
    /// <summary>The writer role the persister connects as.</summary>
    public const string WriterRole = "rapidfix_writer";

    /// <summary>The read-only role of the query command.</summary>
    public const string ReaderRole = "rapidfix_reader";

    /// <summary>
    /// The tables partitioned by trade date that the persister writes (one partition a day, made by <c>ensure_day</c>).
    /// Since migration 6 the audit trail is columns of <c>fix_message</c> (the view <c>audit_trail</c>); the
    /// <c>audit</c> table keeps the days written before it (<see cref="DetachedTables"/>).
    /// </summary>
    public static readonly string[] DailyTables = ["fix_message", "cls", "match_exception"];

    /// <summary>Every table partitioned by trade date, whose old days <see cref="DetachBefore"/> detaches: the written ones and <c>audit</c> (days before migration 6).</summary>
    public static readonly string[] DetachedTables = ["fix_message", "audit", "cls", "match_exception"];

    // Append only: a released migration is never edited, a change is a new one.
    private static readonly string[] Migrations =
    [
        // 1: the tables, their indexes, the partition function.
        """
        CREATE TABLE rapidfix.fix_message (
            trade_date date NOT NULL, source text NOT NULL, generation bigint NOT NULL, seq integer NOT NULL,
            direction "char" NOT NULL, participant text NOT NULL, msg_type text NOT NULL, msg_seq_num integer,
            sending_time timestamp, trade_partition integer NOT NULL, trade_key text, message_id text, ref_id text,
            body bytea NOT NULL,
            PRIMARY KEY (trade_date, source, generation, seq)
        ) PARTITION BY RANGE (trade_date);
        CREATE INDEX fix_message_trade_key ON rapidfix.fix_message (trade_key, trade_date);
        CREATE INDEX fix_message_message_id ON rapidfix.fix_message (message_id, participant);
        CREATE INDEX fix_message_ref_id ON rapidfix.fix_message (ref_id, participant);

        CREATE TABLE rapidfix.audit (
            trade_date date NOT NULL, source text NOT NULL, generation bigint NOT NULL, seq integer NOT NULL,
            at timestamp, actor text NOT NULL, counterparty text NOT NULL, action text NOT NULL, msg_type text NOT NULL,
            message_id text, outcome text NOT NULL,
            PRIMARY KEY (trade_date, source, generation, seq)
        ) PARTITION BY RANGE (trade_date);
        CREATE INDEX audit_actor ON rapidfix.audit (actor, at);

        CREATE TABLE rapidfix.cls (
            trade_date date NOT NULL, confirm_id text NOT NULL, investment_manager text NOT NULL,
            executing_broker text NOT NULL, account text, isin text, side "char", quantity numeric, net_amount numeric,
            currency text, settl_date date, alloc_id text, sent_at timestamp, trade_partition integer NOT NULL,
            trade_key text NOT NULL,
            PRIMARY KEY (trade_date, confirm_id)
        ) PARTITION BY RANGE (trade_date);
        CREATE INDEX cls_manager ON rapidfix.cls (investment_manager, trade_date);
        CREATE INDEX cls_broker ON rapidfix.cls (executing_broker, trade_date);
        CREATE INDEX cls_trade_key ON rapidfix.cls (trade_key);
        CREATE INDEX cls_alloc_id ON rapidfix.cls (alloc_id);

        CREATE TABLE rapidfix.match_exception (
            trade_date date NOT NULL, source text NOT NULL, generation bigint NOT NULL, seq integer NOT NULL,
            participant text NOT NULL, kind text NOT NULL, ref_msg_type text, ref_id text, code text, text text,
            trade_key text, trade_partition integer NOT NULL, sent_at timestamp,
            PRIMARY KEY (trade_date, source, generation, seq)
        ) PARTITION BY RANGE (trade_date);
        CREATE INDEX match_exception_trade_key ON rapidfix.match_exception (trade_key);
        CREATE INDEX match_exception_participant ON rapidfix.match_exception (participant, trade_date);

        CREATE TABLE rapidfix.quarantine (
            id bigserial PRIMARY KEY, source text NOT NULL, generation bigint NOT NULL, seq integer NOT NULL,
            reason text NOT NULL, sql_state text, payload bytea NOT NULL, quarantined_at timestamptz NOT NULL DEFAULT now()
        );

        CREATE TABLE rapidfix.journal_position (
            source text PRIMARY KEY, generation bigint NOT NULL, seq integer NOT NULL, updated_at timestamptz NOT NULL
        );

        CREATE FUNCTION rapidfix.ensure_day(d date) RETURNS void
        LANGUAGE plpgsql SECURITY DEFINER SET search_path = rapidfix, pg_temp AS $$
        DECLARE
            t text;
            child text;
        BEGIN
            PERFORM pg_advisory_xact_lock(hashtext('rapidfix.ensure_day'));
            FOREACH t IN ARRAY ARRAY['fix_message', 'audit', 'cls', 'match_exception'] LOOP
                child := t || '_' || to_char(d, 'YYYYMMDD');
                -- A detached day keeps its name: it is not recreated, and rows for it are refused (quarantined).
                IF to_regclass('rapidfix.' || quote_ident(child)) IS NULL THEN
                    EXECUTE format('CREATE TABLE rapidfix.%I PARTITION OF rapidfix.%I FOR VALUES FROM (%L) TO (%L)', child, t, d, d + 1);
                END IF;
            END LOOP;
        END $$;
        REVOKE ALL ON FUNCTION rapidfix.ensure_day(date) FROM PUBLIC;
        """,

        // 2: fewer index entries per row for the same questions (the persister's speed: every entry is a page write
        // and its WAL). A NULL is never looked up, so the lookup columns that are often NULL get partial indexes (a
        // lookup "= $1" implies NOT NULL, so the planner still uses them). audit's primary key goes: it guarded nothing
        // the fix_message key does not, as a record's audit row is copied under the same savepoint as its message row,
        // so a record written twice is refused (and quarantined) by fix_message's key, audit row included.
        """
        ALTER TABLE rapidfix.audit DROP CONSTRAINT audit_pkey;
        DROP INDEX rapidfix.fix_message_trade_key, rapidfix.fix_message_message_id, rapidfix.fix_message_ref_id,
            rapidfix.cls_alloc_id, rapidfix.match_exception_trade_key;
        CREATE INDEX fix_message_trade_key ON rapidfix.fix_message (trade_key, trade_date) WHERE trade_key IS NOT NULL;
        CREATE INDEX fix_message_message_id ON rapidfix.fix_message (message_id, participant) WHERE message_id IS NOT NULL;
        CREATE INDEX fix_message_ref_id ON rapidfix.fix_message (ref_id, participant) WHERE ref_id IS NOT NULL;
        CREATE INDEX cls_alloc_id ON rapidfix.cls (alloc_id) WHERE alloc_id IS NOT NULL;
        CREATE INDEX match_exception_trade_key ON rapidfix.match_exception (trade_key) WHERE trade_key IS NOT NULL;
        """,

        // 3: audit keeps no index. No back-office question of the issue reads it by actor (a trade by key or by any
        // participant's ID, open exceptions, CLS by participant and date: fix_message, match_exception and cls answer
        // them), and its (actor, at) entry was one in five of the index entries written per trade. An auditor reads a
        // day (one partition, detached and archived when old); a reporting copy can index it as it likes.
        """
        DROP INDEX rapidfix.audit_actor;
        """,

        // 4: day partitions made beside the writers, two days at once. In the whole path (a new trade date every ~24
        // trades of the generated sets) making days was most of the persister's time, one day after another: one
        // advisory lock for every day, and CREATE TABLE .. PARTITION OF locks its parent ACCESS EXCLUSIVE until commit,
        // so it waited for the other stream's COPY transaction into the table and held its next one. A day now has its
        // own advisory lock (two streams make two days at once: most of a day's cost is its index builds, each waiting
        // for the disk), and its tables are made LIKE their parents, indexes included, then attached: ATTACH takes
        // SHARE UPDATE EXCLUSIVE on the parent, which a COPY (ROW EXCLUSIVE) does not conflict with. A day already
        // made returns at once, without a lock. docs/persistence.md, "Partitioning by trade date".
        """
        CREATE OR REPLACE FUNCTION rapidfix.ensure_day(d date) RETURNS void
        LANGUAGE plpgsql SECURITY DEFINER SET search_path = rapidfix, pg_temp AS $$
        DECLARE
            t text;
            child text;
        BEGIN
            IF NOT EXISTS (SELECT 1 FROM unnest(ARRAY['fix_message', 'audit', 'cls', 'match_exception']) AS x(t)
                           WHERE to_regclass('rapidfix.' || quote_ident(x.t || '_' || to_char(d, 'YYYYMMDD'))) IS NULL) THEN
                RETURN; -- made
            END IF;
            PERFORM pg_advisory_xact_lock(hashtext('rapidfix.ensure_day'), d - date '2000-01-01');
            -- A relation lock takes in the catalog changes committed since this session last looked (an advisory lock
            -- does not): without it, the look-up above could still miss the tables another stream made of this day
            -- while this one waited, and the CREATE below fail on them. ACCESS SHARE of the parents alone waits only
            -- for a DETACH.
            LOCK TABLE ONLY rapidfix.fix_message, rapidfix.audit, rapidfix.cls, rapidfix.match_exception IN ACCESS SHARE MODE;
            FOREACH t IN ARRAY ARRAY['fix_message', 'audit', 'cls', 'match_exception'] LOOP
                child := t || '_' || to_char(d, 'YYYYMMDD');
                -- A detached day keeps its name: it is not recreated, and rows for it are refused (quarantined).
                IF to_regclass('rapidfix.' || quote_ident(child)) IS NULL THEN
                    EXECUTE format('CREATE TABLE rapidfix.%I (LIKE rapidfix.%I INCLUDING DEFAULTS INCLUDING CONSTRAINTS INCLUDING INDEXES INCLUDING STORAGE)', child, t);
                    EXECUTE format('ALTER TABLE rapidfix.%I ATTACH PARTITION rapidfix.%I FOR VALUES FROM (%L) TO (%L)', t, child, d, d + 1);
                END IF;
            END LOOP;
        END $$;
        """,

        // 5: fewer and narrower index entries a row (in the persister's bench, index inserts were 59 % of the COPY
        // backend's CPU; docs/persistence.md, "What each index serves"). A trade by key: a btree of the key's 64-bit
        // hash (hashtextextended) instead of the key's text and the date, eight bytes a key compared as an integer; the
        // query rechecks the text. A trade by a participant's ID: the inputs' IDs only (and an output's that has no
        // key): a CLS ID is found through cls, whose primary key now leads with the CLS ID, and an answer is found
        // through its trade's key, so an answer's ref_id is indexed only when it has no key (an answer to a SET or to an
        // unknown ID). cls.alloc_id goes: an AllocID is found through the ALC input. From 46 to 37 index entries of
        // fix_message and from 10 to 8 of cls a trade.
        """
        DROP INDEX rapidfix.fix_message_trade_key, rapidfix.fix_message_message_id, rapidfix.fix_message_ref_id, rapidfix.cls_alloc_id;
        CREATE INDEX fix_message_key_hash ON rapidfix.fix_message (hashtextextended(trade_key, 0)) WHERE trade_key IS NOT NULL;
        CREATE INDEX fix_message_input_id ON rapidfix.fix_message (message_id, participant)
            WHERE message_id IS NOT NULL AND (direction = 'I' OR trade_key IS NULL);
        CREATE INDEX fix_message_keyless_ref_id ON rapidfix.fix_message (ref_id, participant) WHERE ref_id IS NOT NULL AND trade_key IS NULL;
        ALTER TABLE rapidfix.cls DROP CONSTRAINT cls_pkey;
        ALTER TABLE rapidfix.cls ADD PRIMARY KEY (confirm_id, trade_date);
        """,

        // 6: the audit trail as two columns of fix_message instead of a row of its own: 18 rows a cleared trade instead
        // of 34 (16 audit rows, each a COPY row parsed, a heap tuple and its WAL, about 2 us of PostgreSQL's CPU a row).
        // Every column of an audit row was its message row's or the message's: at = sending_time, action = 'sent' for an
        // input and 'answered' for an output, actor and counterparty = the message's sender and target (participant is
        // one, the new counterparty column the other), message_id = an input's ID or an answer's ref_id (else its own
        // ID), and outcome, the new column (NULL for a record that had no audit row: session messages). The view
        // audit_trail gives the audit rows of before, those of the audit table (days written before this migration)
        // and those of fix_message (after it), one query for the auditor. A record written twice is still refused whole
        // by fix_message's key. ensure_day no longer makes audit's days; detach still detaches the old ones.
        """
        ALTER TABLE rapidfix.fix_message ADD COLUMN counterparty text, ADD COLUMN outcome text;
        CREATE VIEW rapidfix.audit_trail AS
            SELECT trade_date, source, generation, seq, at, actor, counterparty, action, msg_type, message_id, outcome
            FROM rapidfix.audit
            UNION ALL
            SELECT trade_date, source, generation, seq, sending_time,
                CASE WHEN direction = 'I' THEN participant ELSE counterparty END,
                CASE WHEN direction = 'I' THEN counterparty ELSE participant END,
                CASE WHEN direction = 'I' THEN 'sent' ELSE 'answered' END,
                msg_type,
                CASE WHEN direction = 'I' THEN message_id ELSE coalesce(ref_id, message_id) END,
                outcome
            FROM rapidfix.fix_message WHERE outcome IS NOT NULL;
        CREATE OR REPLACE FUNCTION rapidfix.ensure_day(d date) RETURNS void
        LANGUAGE plpgsql SECURITY DEFINER SET search_path = rapidfix, pg_temp AS $$
        DECLARE
            t text;
            child text;
        BEGIN
            IF NOT EXISTS (SELECT 1 FROM unnest(ARRAY['fix_message', 'cls', 'match_exception']) AS x(t)
                           WHERE to_regclass('rapidfix.' || quote_ident(x.t || '_' || to_char(d, 'YYYYMMDD'))) IS NULL) THEN
                RETURN; -- made
            END IF;
            PERFORM pg_advisory_xact_lock(hashtext('rapidfix.ensure_day'), d - date '2000-01-01');
            -- See migration 4: the relation lock takes in the catalog changes committed while this session waited.
            LOCK TABLE ONLY rapidfix.fix_message, rapidfix.cls, rapidfix.match_exception IN ACCESS SHARE MODE;
            FOREACH t IN ARRAY ARRAY['fix_message', 'cls', 'match_exception'] LOOP
                child := t || '_' || to_char(d, 'YYYYMMDD');
                -- A detached day keeps its name: it is not recreated, and rows for it are refused (quarantined).
                IF to_regclass('rapidfix.' || quote_ident(child)) IS NULL THEN
                    EXECUTE format('CREATE TABLE rapidfix.%I (LIKE rapidfix.%I INCLUDING DEFAULTS INCLUDING CONSTRAINTS INCLUDING INDEXES INCLUDING STORAGE)', child, t);
                    EXECUTE format('ALTER TABLE rapidfix.%I ATTACH PARTITION rapidfix.%I FOR VALUES FROM (%L) TO (%L)', t, child, d, d + 1);
                END IF;
            END LOOP;
        END $$;
        """,
    ];

    /// <summary>The version a fully migrated database has.</summary>
    public static int LatestVersion => Migrations.Length;

    /// <summary>
    /// Creates or migrates the schema and the roles through <paramref name="adminConnectionString"/> (a role that may
    /// create schemas and roles). Passwords of the two roles are set when given (from the environment, never logged).
    /// Returns the migrations applied now (0 when the database was already current).
    /// </summary>
    public static int Migrate(string adminConnectionString, string? writerPassword, string? readerPassword)
    {
        using var connection = new NpgsqlConnection(adminConnectionString);
        connection.Open();
        Execute(connection, "SELECT pg_advisory_lock(hashtext('rapidfix.migrate'))");
        try
        {
            Execute(connection, "CREATE SCHEMA IF NOT EXISTS rapidfix");
            Execute(connection, "CREATE TABLE IF NOT EXISTS rapidfix.schema_version (version integer PRIMARY KEY, applied_at timestamptz NOT NULL DEFAULT now())");
            int current = Convert.ToInt32(Scalar(connection, "SELECT coalesce(max(version), 0) FROM rapidfix.schema_version"), System.Globalization.CultureInfo.InvariantCulture);
            int applied = 0;
            for (int v = current + 1; v <= Migrations.Length; v++)
            {
                using var tx = connection.BeginTransaction();
                Execute(connection, Migrations[v - 1], tx);
                using (var record = new NpgsqlCommand("INSERT INTO rapidfix.schema_version (version) VALUES ($1)", connection, tx))
                {
                    record.Parameters.Add(new NpgsqlParameter { Value = v });
                    record.ExecuteNonQuery();
                }

                tx.Commit();
                applied++;
            }

            EnsureRole(connection, WriterRole, writerPassword);
            EnsureRole(connection, ReaderRole, readerPassword);
            Execute(connection, $"""
                GRANT USAGE ON SCHEMA rapidfix TO {WriterRole}, {ReaderRole};
                GRANT SELECT ON ALL TABLES IN SCHEMA rapidfix TO {ReaderRole};
                GRANT INSERT ON rapidfix.fix_message, rapidfix.cls, rapidfix.match_exception, rapidfix.quarantine TO {WriterRole};
                REVOKE ALL ON rapidfix.audit FROM {WriterRole};
                GRANT USAGE ON SEQUENCE rapidfix.quarantine_id_seq TO {WriterRole};
                GRANT SELECT, INSERT, UPDATE ON rapidfix.journal_position TO {WriterRole};
                GRANT SELECT ON rapidfix.schema_version TO {WriterRole};
                GRANT EXECUTE ON FUNCTION rapidfix.ensure_day(date) TO {WriterRole};
                """);
            return applied;
        }
        finally
        {
            Execute(connection, "SELECT pg_advisory_unlock(hashtext('rapidfix.migrate'))");
        }
    }

    /// <summary>The schema version of a database (0: none), read by the persister at connection to refuse a stale one.</summary>
    public static int Version(NpgsqlConnection connection) =>
        Scalar(connection, "SELECT to_regclass('rapidfix.schema_version') IS NOT NULL") is true
            ? Convert.ToInt32(Scalar(connection, "SELECT coalesce(max(version), 0) FROM rapidfix.schema_version"), System.Globalization.CultureInfo.InvariantCulture)
            : 0;

    /// <summary>
    /// Detaches every day partition of the daily tables older than <paramref name="before"/> (the tables stay, as
    /// plain tables named <c>&lt;table&gt;_YYYYMMDD</c>, for archiving or dropping). Returns the partitions detached.
    /// </summary>
    public static List<string> DetachBefore(string adminConnectionString, DateOnly before)
    {
        using var connection = new NpgsqlConnection(adminConnectionString);
        connection.Open();
        var detached = new List<string>();
        foreach (var table in DetachedTables)
        {
            var children = new List<string>();
            using (var list = new NpgsqlCommand(
                "SELECT c.relname FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid WHERE i.inhparent = to_regclass('rapidfix.' || $1)", connection))
            {
                list.Parameters.Add(new NpgsqlParameter { Value = table });
                using var reader = list.ExecuteReader();
                while (reader.Read())
                {
                    children.Add(reader.GetString(0));
                }
            }

            foreach (var child in children)
            {
                string suffix = child[(table.Length + 1)..];
                if (DateOnly.TryParseExact(suffix, "yyyyMMdd", out var day) && day < before)
                {
                    Execute(connection, $"ALTER TABLE rapidfix.{Sql.Identifier(table)} DETACH PARTITION rapidfix.{Sql.Identifier(child)}");
                    detached.Add(child);
                }
            }
        }

        return detached;
    }

    private static void EnsureRole(NpgsqlConnection connection, string role, string? password)
    {
        using (var exists = new NpgsqlCommand("SELECT 1 FROM pg_roles WHERE rolname = $1", connection))
        {
            exists.Parameters.Add(new NpgsqlParameter { Value = role });
            if (exists.ExecuteScalar() is null)
            {
                Execute(connection, $"CREATE ROLE {role} LOGIN NOSUPERUSER NOCREATEDB NOCREATEROLE NOINHERIT");
            }
        }

        if (password is not null)
        {
            // DDL takes no parameters: the server quotes the password (format %L) from a bound parameter.
            string statement;
            using (var build = new NpgsqlCommand("SELECT format('ALTER ROLE %I PASSWORD %L', $1::text, $2::text)", connection))
            {
                build.Parameters.Add(new NpgsqlParameter { Value = role });
                build.Parameters.Add(new NpgsqlParameter { Value = password });
                statement = (string)build.ExecuteScalar()!;
            }

            Execute(connection, statement);
        }
    }

    internal static void Execute(NpgsqlConnection connection, string sql, NpgsqlTransaction? tx = null)
    {
        using var command = new NpgsqlCommand(sql, connection, tx);
        command.ExecuteNonQuery();
    }

    internal static object? Scalar(NpgsqlConnection connection, string sql)
    {
        using var command = new NpgsqlCommand(sql, connection);
        return command.ExecuteScalar();
    }
}

/// <summary>SQL text helpers for the few statements that cannot take parameters (DDL).</summary>
internal static class Sql
{
    /// <summary>A quoted identifier; only letters, digits and underscores are accepted (names the tool makes).</summary>
    public static string Identifier(string name)
    {
        if (name.Length == 0 || !name.All(c => char.IsAsciiLetterOrDigit(c) || c == '_'))
        {
            throw new ArgumentException($"not a plain identifier: {name}", nameof(name));
        }

        return "\"" + name + "\"";
    }
}
