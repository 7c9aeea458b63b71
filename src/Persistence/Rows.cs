using System.Text;
using RapidFix.Engine.Store;
using RapidFix.Matching;

namespace RapidFix.Persistence;

/// <summary>A journal the persister reads: the matching service's input journal, or one participant's outbound store.</summary>
public sealed record JournalSource(string Name, string Path, bool IsInput)
{
    /// <summary>The file name of the service's input journal in its data directory.</summary>
    public const string InputJournalFile = "matching-input.journal";

    /// <summary>
    /// The journals of a service's data directory: the input journal and every session store (<c>*.journal</c>).
    /// A store that appears later (a participant's first logon) is found by calling this again.
    /// </summary>
    public static List<JournalSource> Discover(string dataDirectory) =>
        Directory.Exists(dataDirectory)
            ? Directory.GetFiles(dataDirectory, "*.journal")
                .Order(StringComparer.Ordinal)
                .Select(p => new JournalSource(System.IO.Path.GetFileNameWithoutExtension(p), p, System.IO.Path.GetFileName(p) == InputJournalFile))
                .ToList()
            : [];

    /// <summary>
    /// The COPY stream (0..<paramref name="streams"/>-1) that writes this journal: the input journal has stream 0 to
    /// itself (it holds 7 of a trade's 16 records), the session stores are spread over the others by a hash of their
    /// name that is the same in every process, so a journal's stream does not depend on the order the stores appear.
    /// </summary>
    public int StreamOf(int streams)
    {
        if (streams <= 1 || IsInput)
        {
            return 0;
        }

        uint hash = 2166136261; // FNV-1a
        foreach (char c in Name)
        {
            hash = (hash ^ c) * 16777619;
        }

        return 1 + (int)(hash % (uint)(streams - 1));
    }
}

/// <summary>Where a trade's messages belong: its parties (partition key), matching key and trade date.</summary>
internal readonly record struct TradeRef(string InvestmentManager, string ExecutingBroker, string? TradeKey, DateOnly? TradeDate);

/// <summary>Everything one journal record becomes: one message row, and an audit, CLS or exception row where it applies.</summary>
internal sealed class RecordRows
{
    public required string Source;
    public required long Generation;
    public required int Seq;
    public required ReadOnlyMemory<byte> Payload;

    /// <summary>Null for a record that holds no message (the input journal's business-date record): only the position moves.</summary>
    public MessageRow? Message;
    public AuditRow? Audit;
    public ClsRow? Cls;
    public ExceptionRow? Exception;

    /// <summary>The server (0..N-1) whose database gets these rows.</summary>
    public int Server;
}

internal sealed record MessageRow(DateOnly TradeDate, char Direction, string Participant, string MsgType, int MsgSeqNum, DateTime? SendingTime,
    int Partition, string? TradeKey, string? MessageId, string? RefId, ArraySegment<byte> Body);

internal sealed record AuditRow(DateTime? At, string Actor, string Counterparty, string Action, string MsgType, string? MessageId, string Outcome);

internal sealed record ClsRow(string ConfirmId, string InvestmentManager, string ExecutingBroker, string? Account, string? Isin, char? Side,
    decimal? Quantity, decimal? NetAmount, string? Currency, DateOnly? SettlDate, string? AllocId, DateTime? SentAt, string TradeKey);

internal sealed record ExceptionRow(string Participant, string Kind, string? RefMsgType, string? RefId, string? Code, string? Text, string? TradeKey, DateTime? SentAt);

/// <summary>
/// The inputs' trade references by (participant, the participant's message ID), so that an ack or an exception
/// notice (which carries only the message ID it answers) goes to the same server and day as its trade. Filled from
/// its own read-only tail of the input journal (read from the start at startup, so a restarted persister knows every
/// input again); an answer's input is always in the journal before the answer is sent (the service's rule), so a
/// miss first reads the input journal further. One index serves every worker of a persister (each stream, each
/// server), so its reads and its catching up take a lock.
/// </summary>
internal sealed class TradeIndex : IDisposable
{
    private readonly Dictionary<(string Participant, string Id), TradeRef> _byId = new();
    private readonly JournalTail? _tail;
    private readonly List<JournalRecord> _scratch = new();
    private readonly object _gate = new();
    private DateOnly? _businessDate;

    public TradeIndex(string? inputJournal)
    {
        _tail = inputJournal is null ? null : new JournalTail(inputJournal);
    }

    /// <summary>The business date recorded in the input journal (its first record), once read.</summary>
    public DateOnly? BusinessDate
    {
        get
        {
            lock (_gate)
            {
                return _businessDate;
            }
        }
    }

    public int Count
    {
        get
        {
            lock (_gate)
            {
                return _byId.Count;
            }
        }
    }

    /// <summary>Reads what the input journal has now.</summary>
    public void CatchUp()
    {
        lock (_gate)
        {
            CatchUpLocked();
        }
    }

    private void CatchUpLocked()
    {
        if (_tail is null)
        {
            return;
        }

        while (true)
        {
            _scratch.Clear();
            if (_tail.Poll(_scratch, 10_000) == 0)
            {
                return;
            }

            foreach (var record in _scratch)
            {
                if (!SenderRecord.TryDecode(record.Payload.Span, out var participant, out long generationOrDate, out var message))
                {
                    continue;
                }

                if (record.Seq == 1 && participant.Length == 0)
                {
                    _businessDate = FixFields.Date(generationOrDate.ToString(System.Globalization.CultureInfo.InvariantCulture));
                    continue;
                }

                var f = FixFields.Parse(message);
                if (f.InputId is { } id && f.InvestmentManager is not null && f.ExecutingBroker is not null)
                {
                    _byId[(Strings.Get(participant), id)] =
                        new TradeRef(f.InvestmentManager, f.ExecutingBroker, f.TradeKey, FixFields.Date(f.TradeDate));
                }
            }
        }
    }

    public bool TryResolve(string participant, string? id, out TradeRef trade)
    {
        trade = default;
        if (id is null)
        {
            return false;
        }

        lock (_gate)
        {
            if (_byId.TryGetValue((participant, id), out trade))
            {
                return true;
            }

            CatchUpLocked();
            return _byId.TryGetValue((participant, id), out trade);
        }
    }

    public void Dispose()
    {
        lock (_gate)
        {
            _tail?.Dispose();
        }
    }
}

/// <summary>
/// Turns journal records into rows and picks each record's server. The rule (docs/persistence.md): a message that
/// names its trade's manager and broker (the seven inputs, the CLS) goes to server <c>TradePartition.Of(manager,
/// broker, N)</c>; an answer that names only the message it answers (acks, rejections, exception notices) goes where
/// that message went; anything that cannot be keyed (session messages: Logon, Heartbeat...; an input without both
/// parties; an answer to one) goes to server 0, the home server.
/// </summary>
internal sealed class RowBuilder(TradeIndex index, int servers)
{
    public RecordRows Build(JournalSource source, JournalRecord record)
    {
        var rows = new RecordRows { Source = source.Name, Generation = record.Generation, Seq = record.Seq, Payload = record.Payload };
        var payload = record.Payload.Span;
        ReadOnlySpan<byte> message;
        string participant;
        if (source.IsInput)
        {
            if (!SenderRecord.TryDecode(payload, out var sender, out _, out message) || sender.Length == 0)
            {
                return rows; // the business-date record (or nothing we know): no message
            }

            participant = Strings.Get(sender);
        }
        else
        {
            message = payload;
            participant = "";
        }

        var f = FixFields.Parse(message);
        if (!source.IsInput)
        {
            participant = f.TargetCompId ?? source.Name;
        }

        string msgType = f.MsgType ?? "";
        TradeRef? trade = null;
        string? refId = null;
        if (f.InvestmentManager is not null && f.ExecutingBroker is not null)
        {
            trade = new TradeRef(f.InvestmentManager, f.ExecutingBroker, f.TradeKey, FixFields.Date(f.TradeDate));
        }
        else if (!source.IsInput)
        {
            refId = AnsweredId(f);
            if (index.TryResolve(participant, refId, out var answered))
            {
                trade = answered;
            }
        }

        int partition = trade is { } t ? Partition(t, servers) : -1;
        rows.Server = Math.Max(partition, 0);
        var sent = f.SendingTime;
        DateOnly tradeDate = FixFields.Date(f.TradeDate) ?? trade?.TradeDate ?? index.BusinessDate
            ?? (sent is { } s ? DateOnly.FromDateTime(s) : DateOnly.FromDateTime(DateTime.UtcNow));
        string? tradeKey = f.TradeKey ?? trade?.TradeKey;
        string? messageId = source.IsInput ? f.InputId : msgType == "AK" ? f.ConfirmId : null;
        rows.Message = new MessageRow(tradeDate, source.IsInput ? 'I' : 'O', participant, msgType, f.MsgSeqNum, sent, partition, tradeKey,
            messageId, refId, Segment(record.Payload, payload.Length - message.Length));

        if (source.IsInput)
        {
            rows.Audit = new AuditRow(sent, participant, f.TargetCompId ?? "", "sent", msgType, messageId, "received");
            return rows;
        }

        string? outcome = null;
        switch (msgType)
        {
            case "AR" or "P" or "AU":
                bool rejected = (msgType, f.Status) is ("AR", "1") or ("P", "1") or ("AU", "2");
                outcome = rejected ? "rejected " + f.RejectCode : "accepted";
                if (rejected)
                {
                    rows.Exception = new ExceptionRow(participant, "rejected", msgType switch { "AR" => "AE", "P" => "J", _ => "AK" }, refId,
                        f.RejectCode, f.Text, tradeKey, sent);
                }

                break;
            case "j":
                // With RefSeqNum (45) it rejects the participant's own SET; without, it notifies a counterparty.
                bool notice = f.RefSeqNum is null;
                outcome = notice ? "exception notice" : "rejected " + f.RejectCode;
                rows.Exception = new ExceptionRow(participant, notice ? "notice" : "rejected", f.RefMsgType, refId, f.RejectCode, f.Text, tradeKey, sent);
                break;
            case "AK" when f.ConfirmType == "1":
                outcome = "cleared";
                // The CLS goes to the manager and to the broker: one CLS row, from the manager's copy.
                if (trade is { } cleared && participant == cleared.InvestmentManager && tradeKey is not null && f.ConfirmId is not null)
                {
                    rows.Cls = new ClsRow(f.ConfirmId, cleared.InvestmentManager, cleared.ExecutingBroker, f.Account, f.Isin,
                        f.Side is { Length: 1 } side ? side[0] : null, f.Quantity, f.NetAmount, f.Currency,
                        FixFields.Date(f.SettlDate), f.AllocId, sent, tradeKey);
                }

                break;
        }

        if (outcome is not null)
        {
            rows.Audit = new AuditRow(sent, f.SenderCompId ?? "", participant, "answered", msgType, refId ?? messageId, outcome);
        }

        return rows;
    }

    /// <summary>The trade's server: the parties' UTF-8 bytes encoded on the stack (no arrays a record), longer ones aside.</summary>
    private static int Partition(TradeRef t, int servers)
    {
        int im = Encoding.UTF8.GetMaxByteCount(t.InvestmentManager.Length), eb = Encoding.UTF8.GetMaxByteCount(t.ExecutingBroker.Length);
        if (im + eb > 512)
        {
            return TradePartition.Of(Encoding.UTF8.GetBytes(t.InvestmentManager), Encoding.UTF8.GetBytes(t.ExecutingBroker), servers);
        }

        Span<byte> bytes = stackalloc byte[512];
        int imLength = Encoding.UTF8.GetBytes(t.InvestmentManager, bytes);
        int ebLength = Encoding.UTF8.GetBytes(t.ExecutingBroker, bytes[imLength..]);
        return TradePartition.Of(bytes[..imLength], bytes.Slice(imLength, ebLength), servers);
    }

    /// <summary>The message inside a record's payload, without a copy (the tail gives each record its own array).</summary>
    private static ArraySegment<byte> Segment(ReadOnlyMemory<byte> payload, int offset) =>
        System.Runtime.InteropServices.MemoryMarshal.TryGetArray(payload, out var whole)
            ? whole.Slice(offset)
            : new ArraySegment<byte>(payload[offset..].ToArray());

    /// <summary>The participant's message ID an answer refers to (AR 571, P 70, AU 664, j 379).</summary>
    private static string? AnsweredId(FixFields f) => f.MsgType switch
    {
        "AR" => f.TradeReportId,
        "P" => f.AllocId,
        "AU" => f.ConfirmId,
        "j" => f.RefId,
        _ => null,
    };
}
