using RapidFix.Engine.Store;

namespace RapidFix.MatchingService;

/// <summary>
/// The matching input journal: every inbound application message the service accepted, in the order the matcher
/// takes them, with its sender. Built on the engine's <see cref="JournalAppender"/> (the journal format: CRC per
/// record, group commit, torn tails cut at recovery), one "message" per input, numbered 1, 2, 3... It keeps only a
/// fixed write window in memory, committed at startup, and reuses it once durable: nothing reads the journal's
/// memory while the service runs (the matcher takes its inputs from the ring, the persister reads the file), so
/// resident memory stays flat however long the run; recovery reads the file. The matcher is deterministic, so
/// replaying this journal through a fresh matcher at startup rebuilds its state exactly.
/// </summary>
/// <remarks>
/// Record payload: [participant CompID length u8][participant CompID][session store generation i64][FIX message].
/// The CompID (not the participant's index) names the sender, so reordering the settings file does not reassign
/// inputs; the generation ties the sender's MsgSeqNum to one sequence of its session. Record 1 is a control record
/// (empty CompID, no message) whose number is the business date the matcher runs in: a replay must use the same.
/// </remarks>
internal sealed class InputJournal : IDisposable
{
    private static class JournalFormatSizes
    {
        // A message record's framing: [length u32][crc u32][type u8][MsgSeqNum i32] (docs/store.md "Journal format").
        public static int MessageRecordSize(int payload) => 13 + payload;
    }

    private readonly JournalAppender _store;
    private readonly byte[] _record;
    private int _next;

    private InputJournal(JournalAppender store, int maxMessageSize)
    {
        _store = store;
        _record = new byte[SenderRecord.SizeOf(SenderRecord.MaxSenderLength, maxMessageSize)];
        _next = store.NextSeqNum;
    }

    /// <summary>
    /// Opens (or creates) the journal; a torn tail is cut here (startup). <paramref name="windowBytes"/> of memory
    /// hold what is appended and not yet durable; <paramref name="maxInputs"/> bounds the records (control records
    /// included) the day's journal takes, the file the disk.
    /// </summary>
    public static InputJournal Open(string path, FlushPolicy policy, int maxInputs, int windowBytes, int maxMessageSize)
    {
        int largest = JournalFormatSizes.MessageRecordSize(SenderRecord.SizeOf(SenderRecord.MaxSenderLength, maxMessageSize));
        if (windowBytes < largest)
        {
            throw new RapidFix.Engine.Configuration.ConfigurationException(
                $"the input journal's write window ({windowBytes} bytes, --journal-bytes) is smaller than one input of MaxMessageSize={maxMessageSize} ({largest} bytes)");
        }

        var store = JournalAppender.Open(new JournalAppenderOptions
        {
            FilePath = path,
            FlushPolicy = policy,
            MaxMessages = maxInputs,
            WindowBytes = windowBytes,
            MaxMessageBytes = SenderRecord.SizeOf(SenderRecord.MaxSenderLength, maxMessageSize),
            // The matcher thread asks for each batch's flush (RequestFlush, WaitForDurable): one fsync a batch, not
            // one after another for as long as inputs arrive.
            FlushOnDemand = true,
        }, DateTime.UtcNow);
        return new InputJournal(store, maxMessageSize);
    }

    public RecoveryReport Recovery => _store.Recovery;

    /// <summary>Bytes of the in-memory write window.</summary>
    public int WindowBytes => _store.WindowBytes;

    /// <summary>Inputs journalled so far (recovered ones included; the control record is not one).</summary>
    public int Count => Math.Max(0, _next - 2);

    /// <summary>
    /// The business date of this journal: the one recorded in it, or, for a new journal, <paramref name="requested"/>
    /// (0: today, UTC), recorded now and made durable. A recorded date that differs from a non-zero request is an
    /// error: the replay would not rebuild the same state.
    /// </summary>
    public int BusinessDate(int requested)
    {
        using (var reader = _store.OpenRecoveryReader())
        {
            while (reader.TryRead(out var record) == JournalReadStatus.Record)
            {
                if (!record.IsMessage)
                {
                    continue;
                }

                if (record.SeqNum != 1 || !TryDecode(record.Message, out var sender, out long recorded, out _) || !sender.IsEmpty)
                {
                    throw new StoreException($"the input journal {_store.FilePath} does not start with its business date record");
                }

                if (requested != 0 && requested != recorded)
                {
                    throw new RapidFix.Engine.Configuration.ConfigurationException(
                        $"the input journal {_store.FilePath} is for business date {recorded}, not {requested}: use a new data directory for a new day");
                }

                return (int)recorded;
            }
        }

        int date = requested != 0 ? requested : int.Parse(DateTime.UtcNow.ToString("yyyyMMdd", System.Globalization.CultureInfo.InvariantCulture),
            System.Globalization.CultureInfo.InvariantCulture);
        if (Append(default, date, default) != StoreWriteStatus.Ok || !_store.Flush())
        {
            throw new StoreException($"cannot record the business date in {_store.FilePath}");
        }

        return date;
    }

    /// <summary>Position just past the last append.</summary>
    public long WrittenPosition => _store.WrittenPosition;

    public long DurablePosition => _store.DurablePosition;

    public Exception? Fault => _store.Fault;

    public StoreCounters Counters => _store.Counters;

    /// <summary>Appends one input (one writer at a time: the caller's lock). Anything but Ok stored nothing.</summary>
    public StoreWriteStatus Append(ReadOnlySpan<byte> participant, long generation, ReadOnlySpan<byte> message)
    {
        int length = SenderRecord.Write(_record, participant, generation, message);
        if (length == 0)
        {
            return StoreWriteStatus.EmptyMessage;
        }

        var status = _store.Append(_next, _record.AsSpan(0, length));
        if (status == StoreWriteStatus.Ok)
        {
            _next++;
        }

        return status;
    }

    /// <summary>Blocks until <paramref name="position"/> is durable; false on timeout or a faulted journal.</summary>
    public bool WaitForDurable(long position, TimeSpan timeout) => _store.WaitForDurable(position, timeout);

    /// <summary>
    /// Any thread: asks for a flush of everything appended so far without waiting (appends start none of their own);
    /// returns the position it covers.
    /// </summary>
    public long RequestFlush() => _store.RequestFlush();

    /// <summary>Makes everything appended durable (blocks); false on a faulted journal.</summary>
    public bool Flush() => _store.Flush();

    /// <summary>
    /// A reader of every recovered record from the file, the control record included (startup: the caller skips
    /// records below 2 and disposes it before the journal). Everything it reads was recovered or made durable.
    /// </summary>
    public JournalReader OpenRecovered() => _store.OpenRecoveryReader();

    /// <summary>Splits a record into its parts (the layout is the engine's <see cref="SenderRecord"/>, which the persister reads too).</summary>
    public static bool TryDecode(ReadOnlySpan<byte> record, out ReadOnlySpan<byte> participant, out long generation, out ReadOnlySpan<byte> message) =>
        SenderRecord.TryDecode(record, out participant, out generation, out message);

    public void Dispose() => _store.Dispose();
}
