using System.Buffers.Binary;
using System.Runtime.InteropServices;
using Microsoft.Win32.SafeHandles;

namespace RapidFix.Engine.Store;

/// <summary>What reading the record at a journal offset found.</summary>
public enum JournalReadStatus
{
    /// <summary>A whole record whose CRC matches.</summary>
    Record,

    /// <summary>The file ends exactly here: no record yet.</summary>
    End,

    /// <summary>The header or the body is not all in the file (a writer may be in the middle of it, or it is torn).</summary>
    Incomplete,

    /// <summary>The length field is 0: zeros, not a record.</summary>
    BadLength,

    /// <summary>The record is whole but its CRC-32C does not match (a torn or damaged write).</summary>
    BadCrc,
}

/// <summary>
/// One record of a journal as read: its type, its payload and, for the two kinds a reader cares about, their fields.
/// A view over the reader's buffer, valid until its next read.
/// </summary>
public readonly ref struct JournalRecordView
{
    private readonly ReadOnlySpan<byte> _body;

    internal JournalRecordView(ReadOnlySpan<byte> body) => _body = body;

    /// <summary>The record's body: its type byte, then its payload.</summary>
    internal ReadOnlySpan<byte> Body => _body;

    /// <summary>Whether this record starts a generation (<see cref="GenerationNumber"/>).</summary>
    public bool IsGeneration => _body[0] == (byte)RecordType.Generation;

    /// <summary>Whether this record is a stored message (<see cref="SeqNum"/>, <see cref="Message"/>).</summary>
    public bool IsMessage => _body[0] == (byte)RecordType.Message && _body.Length > 1 + JournalFormat.MessagePrefixSize;

    /// <summary>The generation a generation record starts; 0 for any other record.</summary>
    public long GenerationNumber => IsGeneration && _body.Length >= 1 + sizeof(long) ? BinaryPrimitives.ReadInt64LittleEndian(_body[1..]) : 0;

    /// <summary>The MsgSeqNum a message record stores; 0 for any other record.</summary>
    public int SeqNum => IsMessage ? BinaryPrimitives.ReadInt32LittleEndian(_body[1..]) : 0;

    /// <summary>The bytes a message record stores; empty for any other record.</summary>
    public ReadOnlySpan<byte> Message => IsMessage ? _body[(1 + JournalFormat.MessagePrefixSize)..] : default;
}

/// <summary>
/// The one reader of the engine's journal format (docs/store.md: the magic <c>RFXJRN01</c>, then records
/// <c>[length u32][crc32c u32][type u8][payload]</c>). The store's recovery, the matching service and the persister
/// all read through it. It reads what is whole and passes its CRC and stops before a record that is not: a writer
/// may be in the middle of it (read it again later), or it is a torn write (recovery cuts it).
/// </summary>
/// <remarks>
/// <see cref="OpenShared"/> is for a second process: on POSIX it opens the file with <c>open(O_RDONLY)</c> and
/// takes no lock, so the process that holds the store's exclusive lock is never blocked or refused. Reading
/// allocates only when a record is larger than any before it (startup, tools), so it is not for the zero-GC phase.
/// </remarks>
public sealed partial class JournalReader : IDisposable
{
    private readonly SafeFileHandle _handle;
    // A window of the file at _windowStart: one read brings many records (a tail that made three system calls a record
    // spent most of its time in them), grown only for a record larger than it.
    private byte[] _window = new byte[256 * 1024];
    private long _windowStart;
    private int _windowLength;

    private readonly bool _ownsHandle = true;

    private JournalReader(string path, SafeFileHandle handle)
    {
        Path = path;
        _handle = handle;
        Offset = JournalFormat.FileHeaderSize;
    }

    private JournalReader(string path, SafeFileHandle handle, long offset, bool ownsHandle)
        : this(path, handle)
    {
        Offset = offset;
        _ownsHandle = ownsHandle;
    }

    /// <summary>A reader over a handle the caller keeps open (the writer's own, at startup), from <paramref name="offset"/>.</summary>
    internal static JournalReader Over(string path, SafeFileHandle handle, long offset) => new(path, handle, offset, ownsHandle: false);

    /// <summary>The journal file.</summary>
    public string Path { get; }

    /// <summary>Where the next record starts.</summary>
    public long Offset { get; private set; }

    /// <summary>The generation the last generation record read started; 0 before one is read.</summary>
    public long Generation { get; private set; }

    /// <summary>The open file's length now (it grows while a writer appends).</summary>
    public long Length => RandomAccess.GetLength(_handle);

    /// <summary>
    /// Opens <paramref name="path"/> read-only without taking a lock. Null when there is no such file or its header
    /// is not all written yet (being created); throws <see cref="InvalidDataException"/> when it is not a journal.
    /// </summary>
    public static JournalReader? OpenShared(string path)
    {
        if (!File.Exists(path))
        {
            return null;
        }

        SafeFileHandle handle;
        if (OperatingSystem.IsWindows())
        {
            try
            {
                handle = File.OpenHandle(path, FileMode.Open, FileAccess.Read, FileShare.ReadWrite | FileShare.Delete);
            }
            catch (IOException)
            {
                return null;
            }
        }
        else
        {
            int fd = OpenReadOnly(path, 0 /* O_RDONLY */);
            if (fd < 0)
            {
                return null;
            }

            handle = new SafeFileHandle(fd, ownsHandle: true);
        }

        Span<byte> magic = stackalloc byte[JournalFormat.FileHeaderSize];
        int read = RandomAccess.Read(handle, magic, 0);
        if (read < JournalFormat.FileHeaderSize && JournalFormat.FileMagic.StartsWith(magic[..read]))
        {
            handle.Dispose();
            return null;
        }

        if (!magic.SequenceEqual(JournalFormat.FileMagic))
        {
            handle.Dispose();
            throw new InvalidDataException($"{path} is not a RapidFix journal (its first bytes are not the journal header)");
        }

        return new JournalReader(path, handle);
    }

    /// <summary>
    /// Reads the record at <see cref="Offset"/>. On <see cref="JournalReadStatus.Record"/> the view holds it and the
    /// offset moves past it (and past a generation record, <see cref="Generation"/> changes); on anything else
    /// nothing moves, so the same record is tried again by the next call.
    /// </summary>
    public JournalReadStatus TryRead(out JournalRecordView record)
    {
        record = default;
        // What the window holds may predate the writer's last bytes: a whole record there (its CRC matches) is the
        // record, anything else is decided on the file as it is now, read again from the offset.
        var status = Decode(out int size);
        if (status != JournalReadStatus.Record)
        {
            Fill();
            status = Decode(out size);
            if (status == JournalReadStatus.Incomplete && size > _window.Length)
            {
                _window = new byte[Math.Max(size, _window.Length * 2)];
                Fill();
                status = Decode(out size);
            }

            if (status != JournalReadStatus.Record)
            {
                return status;
            }
        }

        int at = (int)(Offset - _windowStart);
        record = new JournalRecordView(_window.AsSpan(at + JournalFormat.RecordHeaderSize, size - JournalFormat.RecordHeaderSize));
        if (record.IsGeneration)
        {
            Generation = record.GenerationNumber;
        }

        Offset += size;
        return status;
    }

    /// <summary>Reads the file from <see cref="Offset"/> into the window (as much as it holds, up to the file's end).</summary>
    private void Fill()
    {
        _windowStart = Offset;
        _windowLength = 0;
        int read;
        while (_windowLength < _window.Length && (read = RandomAccess.Read(_handle, _window.AsSpan(_windowLength), Offset + _windowLength)) > 0)
        {
            _windowLength += read;
        }
    }

    /// <summary>The record at <see cref="Offset"/> as the window holds it: the checks of <see cref="ReadAt"/> on the window's bytes.</summary>
    private JournalReadStatus Decode(out int size)
    {
        size = 0;
        long at = Offset - _windowStart;
        var bytes = at >= 0 && at <= _windowLength ? _window.AsSpan((int)at, _windowLength - (int)at) : default;
        if (bytes.IsEmpty)
        {
            return JournalReadStatus.End;
        }

        if (bytes.Length < JournalFormat.RecordHeaderSize)
        {
            return JournalReadStatus.Incomplete;
        }

        long bodyLength = BinaryPrimitives.ReadUInt32LittleEndian(bytes);
        if (bodyLength < 1)
        {
            return JournalReadStatus.BadLength;
        }

        size = JournalFormat.RecordHeaderSize + (int)Math.Min(bodyLength, int.MaxValue - JournalFormat.RecordHeaderSize);
        if (size > bytes.Length)
        {
            return JournalReadStatus.Incomplete;
        }

        return JournalFormat.CrcMatches(bytes[..size]) ? JournalReadStatus.Record : JournalReadStatus.BadCrc;
    }

    /// <summary>
    /// Reads the record at <paramref name="offset"/> of a file <paramref name="length"/> bytes long into
    /// <paramref name="buffer"/> (grown when too small) and checks its length and CRC; <paramref name="size"/> is the
    /// record's whole size (header included) once its header is read, else 0.
    /// </summary>
    internal static JournalReadStatus ReadAt(SafeFileHandle handle, long offset, long length, ref byte[] buffer, out int size)
    {
        size = 0;
        long remaining = length - offset;
        if (remaining <= 0)
        {
            return JournalReadStatus.End;
        }

        if (remaining < JournalFormat.RecordHeaderSize
            || RandomAccess.Read(handle, buffer.AsSpan(0, JournalFormat.RecordHeaderSize), offset) < JournalFormat.RecordHeaderSize)
        {
            return JournalReadStatus.Incomplete;
        }

        long bodyLength = BinaryPrimitives.ReadUInt32LittleEndian(buffer);
        if (bodyLength < 1)
        {
            return JournalReadStatus.BadLength;
        }

        if (bodyLength > remaining - JournalFormat.RecordHeaderSize)
        {
            size = JournalFormat.RecordHeaderSize + (int)Math.Min(bodyLength, int.MaxValue - JournalFormat.RecordHeaderSize);
            return JournalReadStatus.Incomplete;
        }

        size = JournalFormat.RecordHeaderSize + (int)bodyLength;
        if (buffer.Length < size)
        {
            var larger = new byte[Math.Max(size, buffer.Length * 2)];
            buffer.AsSpan(0, JournalFormat.RecordHeaderSize).CopyTo(larger);
            buffer = larger;
        }

        var whole = buffer.AsSpan(0, size);
        if (RandomAccess.Read(handle, whole[JournalFormat.RecordHeaderSize..], offset + JournalFormat.RecordHeaderSize) < size - JournalFormat.RecordHeaderSize)
        {
            return JournalReadStatus.Incomplete;
        }

        return JournalFormat.CrcMatches(whole) ? JournalReadStatus.Record : JournalReadStatus.BadCrc;
    }

    /// <summary>Closes the file.</summary>
    public void Dispose()
    {
        if (_ownsHandle)
        {
            _handle.Dispose();
        }
    }

    [LibraryImport("libc", EntryPoint = "open", StringMarshalling = StringMarshalling.Utf8)]
    private static partial int OpenReadOnly(string path, int flags);
}
