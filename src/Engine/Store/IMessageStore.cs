namespace RapidFix.Engine.Store;

/// <summary>Outcome of a store write. Anything but <see cref="Ok"/> means nothing was stored and it has been counted.</summary>
public enum StoreWriteStatus : byte
{
    /// <summary>Stored.</summary>
    Ok = 0,

    /// <summary>The index holds StoreMaxMessages messages in this generation (see <see cref="StoreCounters.IndexFullRejections"/>).</summary>
    IndexFull,

    /// <summary>The generation's StoreMaxBytes of journal space is used up (see <see cref="StoreCounters.JournalFullRejections"/>).</summary>
    JournalFull,

    /// <summary>A sequence number below 1.</summary>
    InvalidSequenceNumber,

    /// <summary>An empty message.</summary>
    EmptyMessage,

    /// <summary>An earlier disk write failed; the store accepts no more writes (see <see cref="IMessageStore.Fault"/>).</summary>
    Faulted,
}

/// <summary>Receives stored messages from <see cref="MessageStoreExtensions.ReadRange{THandler}"/>.</summary>
public interface IStoredMessageHandler
{
    /// <summary>
    /// Called once per stored message, in sequence order. The span is valid only during the call (it points into the
    /// store's buffer). Return false to stop the read.
    /// </summary>
    bool OnMessage(int seqNum, ReadOnlySpan<byte> message);
}

/// <summary>
/// What a FIX session keeps across messages: the next sender and target MsgSeqNum, when the current generation
/// began, and the messages it sent (by MsgSeqNum) so that a ResendRequest can be served.
/// </summary>
/// <remarks>
/// <para>One writer: the session's thread calls the write methods and <see cref="MessageStoreExtensions.ReadRange{THandler}"/>.
/// <see cref="DurablePosition"/>, <see cref="WaitForDurable"/> and <see cref="Counters"/> may be used from any
/// thread. In the continuous phase no method here allocates: capacity is fixed when the store is opened, and a full
/// store answers with a counted status rather than growing.</para>
/// <para>Every accepted write gets a position (<see cref="WrittenPosition"/> right after the call); once
/// <see cref="DurablePosition"/> has reached it, the write survives a crash of the process (and of the machine,
/// except under the OS-only flush policy).</para>
/// </remarks>
public interface IMessageStore : IDisposable
{
    /// <summary>MsgSeqNum of the next message we send.</summary>
    int NextSenderMsgSeqNum { get; }

    /// <summary>MsgSeqNum we expect on the next message we receive.</summary>
    int NextTargetMsgSeqNum { get; }

    /// <summary>When the current generation began (store creation or last <see cref="Reset"/>).</summary>
    DateTime CreationTimeUtc { get; }

    /// <summary>1 for a new store, incremented by every <see cref="Reset"/>.</summary>
    long Generation { get; }

    /// <summary>Sent messages held in this generation.</summary>
    int MessageCount { get; }

    /// <summary>Position just past the last accepted write.</summary>
    long WrittenPosition { get; }

    /// <summary>Every write at or before this position is durable.</summary>
    long DurablePosition { get; }

    /// <summary>The disk error that stopped the store, or null.</summary>
    Exception? Fault { get; }

    /// <summary>A snapshot of the store's counters.</summary>
    StoreCounters Counters { get; }

    /// <summary>
    /// Stores a sent message under <paramref name="seqNum"/> and makes NextSenderMsgSeqNum seqNum + 1, as one write.
    /// Storing a sequence number at or below one already stored replaces that message and drops the later ones
    /// (the latest write wins, on recovery too).
    /// </summary>
    StoreWriteStatus Append(int seqNum, ReadOnlySpan<byte> message);

    /// <summary>Sets the next sender MsgSeqNum without storing a message (gap fills, SequenceReset, PersistMessages=N).</summary>
    StoreWriteStatus SetNextSenderMsgSeqNum(int value);

    /// <summary>Sets the next expected target MsgSeqNum (called per received message).</summary>
    StoreWriteStatus SetNextTargetMsgSeqNum(int value);

    /// <summary>Starts a new generation (ResetSeqNumFlag, new session): both sequence numbers 1, no messages.</summary>
    StoreWriteStatus Reset(DateTime creationTimeUtc);

    /// <summary>
    /// The stored messages with <paramref name="beginSeqNum"/> &lt;= MsgSeqNum &lt;= <paramref name="endSeqNum"/>
    /// (0 for "through the last", as in ResendRequest), in order, to enumerate with foreach. Sequence numbers with
    /// no stored message (never sent, or not persisted) are absent: the caller gap-fills them. The range is valid
    /// until the next write to the store, and each message's bytes until the enumeration moves on (the journal store
    /// reads what its window no longer holds from the file, into one buffer).
    /// <see cref="MessageStoreExtensions.ReadRange{THandler}"/> hands the same messages to a struct handler.
    /// </summary>
    StoredMessageRange GetRange(int beginSeqNum, int endSeqNum);

    /// <summary>Blocks until <paramref name="position"/> is durable; false on timeout or when the store has faulted.</summary>
    bool WaitForDurable(long position, TimeSpan timeout);

    /// <summary>Makes every write so far durable before returning (false when the store has faulted).</summary>
    bool Flush();
}
