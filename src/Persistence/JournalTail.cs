using System.Buffers.Binary;
using System.Numerics;
using System.Runtime.InteropServices;
using Microsoft.Win32.SafeHandles;

namespace RapidFix.Persistence;

/// <summary>One message record of a journal: its generation, its number in that generation and its payload.</summary>
public readonly record struct JournalRecord(long Generation, int Seq, ReadOnlyMemory<byte> Payload);

/// <summary>
/// A read-only tail of a RapidFix journal file (the engine's <c>JournalMessageStore</c> format, docs/store.md: the
/// magic <c>RFXJRN01</c>, then <c>[length u32][crc32c u32][type u8][payload]</c>). The engine's reader is internal
/// and opens the file exclusively, so this is a second reader of the same documented format: it opens the file
/// with <c>open(O_RDONLY)</c> (no lock, so the service that holds its exclusive lock is never blocked), reads what is
/// complete and passes its CRC, and stops before a record that is not yet whole: the writer may be in the middle of
/// it, so it is read again on the next poll. A file replaced by the service's compaction at startup (a new inode,
/// or a shorter file) is reopened and read from the start; records already delivered are skipped by position
/// (generation, number), which is what the persister commits, never a byte offset.
/// </summary>
public sealed partial class JournalTail : IDisposable
{
    private const int FileHeaderSize = 8;
    private const int RecordHeaderSize = 8;
    private const byte Generation = 1;
    private const byte Message = 2;

    private readonly string _path;
    private SafeFileHandle? _handle;
    private long _offset;
    private long _generation;
    private byte[] _buffer = new byte[64 * 1024];

    /// <summary>Tails <paramref name="path"/>, delivering only records after (<paramref name="generation"/>, <paramref name="seq"/>).</summary>
    public JournalTail(string path, long generation = 0, int seq = 0)
    {
        _path = path;
        Position = (generation, seq);
    }

    /// <summary>The journal file.</summary>
    public string Path => _path;

    /// <summary>The last record delivered (generation, number); (0, 0) before the first.</summary>
    public (long Generation, int Seq) Position { get; private set; }

    /// <summary>Times the file was found replaced (compaction at the service's restart) and reopened.</summary>
    public int Reopens { get; private set; }

    /// <summary>
    /// Reads up to <paramref name="max"/> new message records into <paramref name="into"/> (each payload a copy).
    /// Returns how many were added; 0 when nothing new is complete yet (or the file does not exist yet).
    /// </summary>
    public int Poll(List<JournalRecord> into, int max)
    {
        if (!EnsureOpen())
        {
            return 0;
        }

        int added = 0;
        Span<byte> header = stackalloc byte[RecordHeaderSize];
        while (added < max)
        {
            if (RandomAccess.Read(_handle!, header, _offset) < RecordHeaderSize)
            {
                break;
            }

            uint length = BinaryPrimitives.ReadUInt32LittleEndian(header);
            if (length < 1 || length > 512 * 1024 * 1024)
            {
                break; // zeros or a torn header: not (yet) a record
            }

            int size = RecordHeaderSize + (int)length;
            if (_buffer.Length < size)
            {
                _buffer = new byte[Math.Max(size, _buffer.Length * 2)];
            }

            var record = _buffer.AsSpan(0, size);
            if (RandomAccess.Read(_handle!, record, _offset) < size || !CrcMatches(record))
            {
                break; // still being written (or torn: the service cuts it at its next start, and this waits)
            }

            var body = record[RecordHeaderSize..];
            if (body[0] == Generation && body.Length >= 9)
            {
                _generation = BinaryPrimitives.ReadInt64LittleEndian(body[1..]);
            }
            else if (body[0] == Message && body.Length > 5)
            {
                int seq = BinaryPrimitives.ReadInt32LittleEndian(body[1..]);
                if ((_generation, seq).CompareTo(Position) > 0)
                {
                    into.Add(new JournalRecord(_generation, seq, body[5..].ToArray()));
                    Position = (_generation, seq);
                    added++;
                }
            }

            _offset += size;
        }

        return added;
    }

    private bool EnsureOpen()
    {
        if (_handle is not null && !Replaced())
        {
            return true;
        }

        if (_handle is not null)
        {
            Reopens++;
            _handle.Dispose();
            _handle = null;
        }

        if (!File.Exists(_path))
        {
            return false;
        }

        int fd = OpenReadOnly(_path, 0 /* O_RDONLY */);
        if (fd < 0)
        {
            return false;
        }

        var handle = new SafeFileHandle(fd, ownsHandle: true);
        Span<byte> magic = stackalloc byte[FileHeaderSize];
        if (RandomAccess.Read(handle, magic, 0) < FileHeaderSize)
        {
            handle.Dispose();
            return false; // being created
        }

        if (!magic.SequenceEqual("RFXJRN01"u8))
        {
            handle.Dispose();
            throw new InvalidDataException($"{_path} is not a RapidFix journal (its first bytes are not the journal header)");
        }

        _handle = handle;
        _generation = 0;
        _offset = FileHeaderSize;
        return true;
    }

    /// <summary>
    /// Whether the path now names another file than the open handle (the service's compaction renames a new file
    /// over the journal) or the file was cut below what was read (recovery cuts a torn tail). Journals only grow in
    /// place, so: a path shorter than the handle, or a path longer than the handle even after the handle's length is
    /// read again (a writer appending to the same file makes the handle at least as long), is another file.
    /// </summary>
    private bool Replaced()
    {
        long handleLength = RandomAccess.GetLength(_handle!);
        if (handleLength < _offset)
        {
            return true;
        }

        long pathLength;
        try
        {
            pathLength = new FileInfo(_path).Length;
        }
        catch (FileNotFoundException)
        {
            return true;
        }

        return pathLength < handleLength || pathLength > RandomAccess.GetLength(_handle!);
    }

    private static bool CrcMatches(ReadOnlySpan<byte> record)
    {
        uint crc = 0xFFFF_FFFFu;
        crc = Update(crc, record[..4]);
        crc = Update(crc, record[RecordHeaderSize..]);
        return BinaryPrimitives.ReadUInt32LittleEndian(record[4..]) == ~crc;
    }

    private static uint Update(uint crc, ReadOnlySpan<byte> data)
    {
        int i = 0;
        for (; i + sizeof(ulong) <= data.Length; i += sizeof(ulong))
        {
            crc = BitOperations.Crc32C(crc, BinaryPrimitives.ReadUInt64LittleEndian(data[i..]));
        }

        for (; i < data.Length; i++)
        {
            crc = BitOperations.Crc32C(crc, data[i]);
        }

        return crc;
    }

    public void Dispose() => _handle?.Dispose();

    [LibraryImport("libc", EntryPoint = "open", StringMarshalling = StringMarshalling.Utf8)]
    private static partial int OpenReadOnly(string path, int flags);
}
