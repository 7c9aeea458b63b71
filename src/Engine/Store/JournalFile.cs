using System.Buffers.Binary;
using System.Runtime.InteropServices;

namespace RapidFix.Engine.Store;

/// <summary>
/// Opening, scanning, repairing and compacting a journal file: the startup half of <see cref="JournalMessageStore"/>.
/// </summary>
internal static partial class JournalFile
{
    /// <summary>What a scan of the file found.</summary>
    internal readonly record struct ScanResult(long ValidEnd, long LastGenerationOffset, long Records, string? StopReason,
        long LastGeneration = 0, int LastSeqNum = 0, long MessagesInLastGeneration = 0);

    /// <summary>Opens (creating if needed) the journal with an exclusive lock, so two processes never share it.</summary>
    public static FileStream OpenExclusive(string path)
    {
        try
        {
            return new FileStream(path, FileMode.OpenOrCreate, FileAccess.ReadWrite, FileShare.None, bufferSize: 0, FileOptions.None);
        }
        catch (IOException e)
        {
            throw new StoreException($"cannot open the journal {path}: it is in use by another process or not accessible ({e.Message})", e);
        }
        catch (UnauthorizedAccessException e)
        {
            throw new StoreException($"cannot open the journal {path}: access denied ({e.Message})", e);
        }
    }

    /// <summary>
    /// Walks the records from the start and stops at the first one that is incomplete, has an impossible length or
    /// type, or fails its CRC: everything before it is valid, everything from it on is a torn write.
    /// </summary>
    public static ScanResult Scan(FileStream file, string path)
    {
        long length = file.Length;
        var handle = file.SafeFileHandle;
        if (length == 0)
        {
            return new ScanResult(0, -1, 0, null);
        }

        Span<byte> magic = stackalloc byte[JournalFormat.FileHeaderSize];
        int magicRead = RandomAccess.Read(handle, magic, 0);
        if (magicRead < JournalFormat.FileHeaderSize)
        {
            // A crash while the file was being created leaves a prefix of the magic; anything else is not ours.
            if (JournalFormat.FileMagic.StartsWith(magic[..magicRead]))
            {
                return new ScanResult(0, -1, 0, "the file header is incomplete");
            }

            throw NotAJournal(path);
        }

        if (!magic.SequenceEqual(JournalFormat.FileMagic))
        {
            throw NotAJournal(path);
        }

        long offset = JournalFormat.FileHeaderSize;
        long lastGeneration = -1;
        long records = 0;
        string? reason = null;
        long generation = 0, messages = 0;
        int lastSeqNum = 0;
        byte[] buffer = new byte[64 * 1024];
        while (true)
        {
            // The same record check as every other reader of the format (JournalReader).
            var status = JournalReader.ReadAt(handle, offset, length, ref buffer, out int recordSize);
            if (status != JournalReadStatus.Record)
            {
                long remaining = length - offset;
                reason = status switch
                {
                    JournalReadStatus.End => null,
                    JournalReadStatus.BadLength => $"the record at offset {offset} has length 0",
                    JournalReadStatus.BadCrc => $"the record at offset {offset} fails its CRC",
                    _ when remaining < JournalFormat.RecordHeaderSize => $"a record header at offset {offset} is incomplete",
                    _ => $"the record at offset {offset} claims {recordSize - JournalFormat.RecordHeaderSize} bytes but only {remaining - JournalFormat.RecordHeaderSize} follow",
                };
                break;
            }

            var record = buffer.AsSpan(0, recordSize);
            if (InvalidBody(record[JournalFormat.RecordHeaderSize..], isFirst: offset == JournalFormat.FileHeaderSize) is { } invalid)
            {
                reason = $"the record at offset {offset} {invalid}";
                break;
            }

            var body = record[JournalFormat.RecordHeaderSize..];
            if (body[0] == (byte)RecordType.Generation)
            {
                lastGeneration = offset;
                generation = BinaryPrimitives.ReadInt64LittleEndian(body[1..]);
                lastSeqNum = 0;
                messages = 0;
            }
            else if (body[0] == (byte)RecordType.Message)
            {
                lastSeqNum = BinaryPrimitives.ReadInt32LittleEndian(body[1..]);
                messages++;
            }

            records++;
            offset += recordSize;
        }

        return new ScanResult(offset, lastGeneration, records, reason, generation, lastSeqNum, messages);
    }

    private static string? InvalidBody(ReadOnlySpan<byte> body, bool isFirst)
    {
        var type = (RecordType)body[0];
        var payload = body[1..];
        if (isFirst && type != RecordType.Generation)
        {
            return "should start a generation but does not";
        }

        return type switch
        {
            RecordType.Generation => payload.Length == JournalFormat.GenerationPayloadSize ? null : "is a generation record of the wrong size",
            RecordType.NextSender or RecordType.NextTarget => payload.Length == JournalFormat.SequencePayloadSize && BinaryPrimitives.ReadInt32LittleEndian(payload) >= 1
                ? null
                : "is an invalid sequence record",
            RecordType.Message => payload.Length > JournalFormat.MessagePrefixSize && BinaryPrimitives.ReadInt32LittleEndian(payload) >= 1
                ? null
                : "is an invalid message record",
            _ => $"has unknown type {(byte)type}",
        };
    }

    /// <summary>
    /// Writes the file header and the bytes [<paramref name="from"/>, <paramref name="to"/>) of <paramref name="source"/>
    /// to a new file that atomically replaces <paramref name="path"/>, a MiB at a time (startup: a generation may be
    /// far larger than memory).
    /// </summary>
    public static void RewriteTail(string path, Microsoft.Win32.SafeHandles.SafeFileHandle source, long from, long to)
    {
        string temporary = path + ".rewrite";
        var buffer = new byte[1 << 20];
        using (var rewrite = new FileStream(temporary, FileMode.Create, FileAccess.Write, FileShare.None, bufferSize: 0))
        {
            RandomAccess.Write(rewrite.SafeFileHandle, JournalFormat.FileMagic, 0);
            long at = from;
            while (at < to)
            {
                int read = RandomAccess.Read(source, buffer.AsSpan(0, (int)Math.Min(buffer.Length, to - at)), at);
                if (read <= 0)
                {
                    throw new StoreException($"the journal {path} shrank while it was being compacted");
                }

                RandomAccess.Write(rewrite.SafeFileHandle, buffer.AsSpan(0, read), JournalFormat.FileHeaderSize + (at - from));
                at += read;
            }

            rewrite.Flush(flushToDisk: true);
        }

        File.Move(temporary, path, overwrite: true);
        SyncDirectory(Path.GetDirectoryName(Path.GetFullPath(path))!);
    }

    /// <summary>Makes a file's creation or renaming durable by fsyncing its directory (POSIX only; a no-op on Windows).</summary>
    public static void SyncDirectory(string directory)
    {
        if (OperatingSystem.IsWindows())
        {
            return;
        }

        int fd = Open(directory, 0 /* O_RDONLY */);
        if (fd >= 0)
        {
            _ = FSync(fd);
            _ = Close(fd);
        }
    }

    private static StoreException NotAJournal(string path) =>
        new($"{path} is not a RapidFix journal (its first bytes are not the journal header); it was left untouched");

    [LibraryImport("libc", EntryPoint = "open", StringMarshalling = StringMarshalling.Utf8)]
    private static partial int Open(string path, int flags);

    [LibraryImport("libc", EntryPoint = "fsync")]
    private static partial int FSync(int fd);

    [LibraryImport("libc", EntryPoint = "close")]
    private static partial int Close(int fd);
}
