namespace RapidFix.Engine.Store;

/// <summary>Counters of a message store (a snapshot; reading them allocates nothing).</summary>
/// <param name="Appends">Messages stored.</param>
/// <param name="AppendedBytes">Bytes of messages stored.</param>
/// <param name="SequenceUpdates">Sequence number writes (sender and target).</param>
/// <param name="IndexFullRejections">Appends refused because the index was full.</param>
/// <param name="JournalFullRejections">Writes refused because the generation's journal space was used up.</param>
/// <param name="InvalidWrites">Writes refused for an invalid sequence number or an empty message.</param>
/// <param name="FaultedWrites">Writes refused because the store had faulted.</param>
/// <param name="Flushes">Disk writes made (one per batch under group commit).</param>
/// <param name="Fsyncs">fsync calls made.</param>
/// <param name="FlushedBytes">Bytes written to the journal file by flushes.</param>
/// <param name="LargestBatchBytes">Largest single flush, in bytes.</param>
/// <param name="FlusherAllocatedBytes">Bytes the flusher thread has allocated since its first batch (0 for a store without one).</param>
public readonly record struct StoreCounters(
    long Appends,
    long AppendedBytes,
    long SequenceUpdates,
    long IndexFullRejections,
    long JournalFullRejections,
    long InvalidWrites,
    long FaultedWrites,
    long Flushes,
    long Fsyncs,
    long FlushedBytes,
    long LargestBatchBytes,
    long FlusherAllocatedBytes);
