using System.Buffers.Binary;
using System.Text;
using RapidFix.Engine.Configuration;
using RapidFix.Engine.Fields;

namespace RapidFix.Engine.Diagnostics;

/// <summary>
/// The message log of FileLogPath, in QuickFIX's file-log layout: per session <c>&lt;prefix&gt;.messages.current.log</c>
/// (every message received and sent, one per line as "yyyyMMdd-HH:mm:ss.fff : message") and
/// <c>&lt;prefix&gt;.event.current.log</c> (the session's events as QuickFIX/n writes them there: logons, logouts,
/// resend requests, rejects, sequence resets, disconnections with their reason; and the log's own: opened, records
/// dropped, closed), prefix "BeginString-Sender-Target" as QuickFIX/n names it.
/// </summary>
/// <remarks>
/// The session's thread only copies each message into its session's ring (<see cref="SessionMessageLog"/>), sized
/// at startup; one writer thread drains every ring into its files through buffers allocated once. Neither side
/// allocates per message and the session never waits for the disk: a message that does not fit the ring is dropped
/// and counted, and the drop is written to the event log when the writer catches up. The session's events reach
/// its ring of <see cref="EngineLog"/> entries through the engine log (<see cref="EngineLog.RouteEvents"/>), from
/// whichever thread logs them, and are formatted by the same writer thread.
/// </remarks>
public sealed class MessageFileLog : IDisposable
{
    private readonly object _gate = new();
    private readonly Thread _writer;
    private SessionMessageLog[] _sessions = [];
    private volatile bool _stopping;

    /// <param name="directory">FileLogPath: created when missing.</param>
    public MessageFileLog(string directory)
    {
        ArgumentException.ThrowIfNullOrEmpty(directory);
        Directory = System.IO.Directory.CreateDirectory(directory).FullName;
        _writer = new Thread(WriteLoop) { IsBackground = true, Name = "rapidfix-message-log" };
        _writer.Start();
    }

    /// <summary>Tests: the writer thread leaves the rings alone while set (to fill one).</summary>
    internal volatile bool Paused;

    /// <summary>Where the files are.</summary>
    public string Directory { get; }

    /// <summary>
    /// Opens (appends to) the two files of <paramref name="id"/> and returns the ring its session copies into
    /// (connection set-up or startup: allocates). <paramref name="ringBytes"/> bounds what may wait for the writer.
    /// </summary>
    public SessionMessageLog Open(SessionId id, int ringBytes, int maxMessageSize)
    {
        ArgumentNullException.ThrowIfNull(id);
        string prefix = Path.Combine(Directory, Prefix(id));
        var log = new SessionMessageLog(id, prefix, ringBytes, maxMessageSize);
        lock (_gate)
        {
            _sessions = [.. _sessions, log];
        }

        log.Event("Session log opened"u8);
        return log;
    }

    /// <summary>Stops logging <paramref name="log"/> (a session removed): what is queued is written, the files closed.</summary>
    public void Close(SessionMessageLog log)
    {
        ArgumentNullException.ThrowIfNull(log);
        lock (_gate)
        {
            if (Array.IndexOf(_sessions, log) < 0)
            {
                return;
            }

            Drain(log);
            log.Event("Session log closed"u8);
            Drain(log);
            _sessions = Array.FindAll(_sessions, s => !ReferenceEquals(s, log));
            log.CloseFiles();
        }
    }

    /// <summary>Writes everything queued so far to the files (tests, shutdown).</summary>
    public void Flush()
    {
        lock (_gate)
        {
            foreach (var log in _sessions)
            {
                Drain(log);
                log.FlushFiles();
            }
        }
    }

    /// <summary>Writes what is queued, stops the writer and closes every file.</summary>
    public void Dispose()
    {
        if (_stopping)
        {
            return;
        }

        _stopping = true;
        _writer.Join(TimeSpan.FromSeconds(5));
        lock (_gate)
        {
            foreach (var log in _sessions)
            {
                Drain(log);
                log.Event("Session log closed"u8);
                Drain(log);
                log.CloseFiles();
            }

            _sessions = [];
        }
    }

    /// <summary>
    /// QuickFIX/n's file-log prefix: BeginString-SenderCompID[_SenderSubID][_SenderLocationID]-TargetCompID[_SubID][_LocationID][-Qualifier].
    /// Any character other than a letter, digit, '.' or '-' becomes '_': a CompID from the network (acceptor
    /// templates) never reaches outside the directory.
    /// </summary>
    public static string Prefix(SessionId id)
    {
        ArgumentNullException.ThrowIfNull(id);
        var text = new StringBuilder();
        Append(text, id.BeginString).Append('-');
        Append(text, id.SenderCompId);
        Optional(text, id.SenderSubId);
        Optional(text, id.SenderLocationId);
        text.Append('-');
        Append(text, id.TargetCompId);
        Optional(text, id.TargetSubId);
        Optional(text, id.TargetLocationId);
        if (id.SessionQualifier.Length > 0)
        {
            Append(text.Append('-'), id.SessionQualifier);
        }

        return text.ToString();

        static void Optional(StringBuilder text, string part)
        {
            if (part.Length > 0)
            {
                Append(text.Append('_'), part);
            }
        }

        static StringBuilder Append(StringBuilder text, string part)
        {
            foreach (char c in part)
            {
                text.Append(char.IsAsciiLetterOrDigit(c) || c is '.' or '-' ? c : '_');
            }

            return text;
        }
    }

    // One call for the thread's life: compiled optimized at once, never moved by on-stack replacement (which allocates).
    [System.Runtime.CompilerServices.MethodImpl(System.Runtime.CompilerServices.MethodImplOptions.AggressiveOptimization)]
    private void WriteLoop()
    {
        while (!_stopping)
        {
            bool wrote = false;
            if (Paused)
            {
                Thread.Sleep(1);
                continue;
            }

            lock (_gate)
            {
                var sessions = _sessions;
                for (int i = 0; i < sessions.Length; i++)
                {
                    if (Drain(sessions[i]))
                    {
                        sessions[i].FlushFiles();
                        wrote = true;
                    }
                }
            }

            if (!wrote)
            {
                Thread.Sleep(1);
            }
        }
    }

    private static bool Drain(SessionMessageLog log)
    {
        bool any = false;
        while (log.WriteNext())
        {
            any = true;
        }

        return log.ReportDrops() || any;
    }
}

/// <summary>
/// One session's side of the <see cref="MessageFileLog"/>: a byte ring the session copies each message into (single
/// producer: the session calls it under its lock) and a ring of engine-log entries for the session's events (any
/// thread, under a lock: events are rare), both drained by the writer thread (single consumer) in time order.
/// </summary>
public sealed class SessionMessageLog
{
    private const int RecordHeader = 13; // time (8), direction (1), length (4)
    private const byte In = (byte)'<';
    private const byte Out = (byte)'>';
    private const byte EventRecord = (byte)'E';

    // Events are per logon, reject or disconnection, not per message: 512 waiting for the writer is ample; beyond
    // that they are dropped and counted like messages (a flood of rejects must not grow memory nor block).
    private const int EngineEventCapacity = 512;

    private readonly byte[] _ring;
    private readonly byte[] _line;
    private readonly byte[] _header = new byte[RecordHeader];
    private readonly EngineLog.Entry[] _engineEvents = new EngineLog.Entry[EngineEventCapacity];
    private readonly object _engineEventGate = new();
    private readonly byte[] _eventLine = new byte[2048];
    private readonly char[] _address = new char[64];
    private long _engineEventHead; // under _engineEventGate
    private long _engineEventTail; // under _engineEventGate
    private readonly FileStream _messages;
    private readonly FileStream _events;
    private long _head; // written by the producer
    private long _tail; // written by the consumer
    private long _dropped;
    private long _droppedReported;

    internal SessionMessageLog(SessionId id, string prefix, int ringBytes, int maxMessageSize)
    {
        ArgumentOutOfRangeException.ThrowIfLessThan(ringBytes, 4096);
        Id = id;
        MessagesPath = prefix + ".messages.current.log";
        EventsPath = prefix + ".event.current.log";
        _ring = GC.AllocateUninitializedArray<byte>(ringBytes, pinned: true);
        _line = new byte[Math.Max(maxMessageSize, 256) + 64];
        _messages = new FileStream(MessagesPath, FileMode.Append, FileAccess.Write, FileShare.ReadWrite, 1 << 16);
        try
        {
            _events = new FileStream(EventsPath, FileMode.Append, FileAccess.Write, FileShare.ReadWrite, 4096);
        }
        catch
        {
            _messages.Dispose();
            throw;
        }
    }

    /// <summary>The session logged.</summary>
    public SessionId Id { get; }

    /// <summary>The messages file.</summary>
    public string MessagesPath { get; }

    /// <summary>The event file.</summary>
    public string EventsPath { get; }

    /// <summary>Messages (and events) dropped because the ring was full.</summary>
    public long Dropped => Interlocked.Read(ref _dropped);

    /// <summary>Bytes waiting for the writer.</summary>
    public long Pending => Volatile.Read(ref _head) - Volatile.Read(ref _tail);

    /// <summary>A message received (the session's thread; allocation-free, never blocks).</summary>
    public bool Incoming(ReadOnlySpan<byte> message) => Append(In, message);

    /// <summary>A message sent (the session's thread; allocation-free, never blocks).</summary>
    public bool Outgoing(ReadOnlySpan<byte> message) => Append(Out, message);

    /// <summary>A line for the event file.</summary>
    public bool Event(ReadOnlySpan<byte> text) => Append(EventRecord, text);

    /// <summary>
    /// One of the session's engine-log events for the event file (any thread; allocation-free, never blocks on I/O):
    /// false when the ring is full (dropped and counted).
    /// </summary>
    internal bool EngineEvent(in EngineLog.Entry entry)
    {
        lock (_engineEventGate)
        {
            if (_engineEventHead - _engineEventTail >= _engineEvents.Length)
            {
                Interlocked.Increment(ref _dropped);
                return false;
            }

            _engineEvents[_engineEventHead % _engineEvents.Length] = entry;
            _engineEventHead++;
            return true;
        }
    }

    private bool Append(byte kind, ReadOnlySpan<byte> payload)
    {
        long head = _head;
        long free = _ring.Length - (head - Volatile.Read(ref _tail));
        if (payload.Length > _line.Length - 64 || RecordHeader + payload.Length > free)
        {
            Interlocked.Increment(ref _dropped);
            return false;
        }

        Span<byte> header = stackalloc byte[RecordHeader];
        BinaryPrimitives.WriteInt64LittleEndian(header, Time.EngineClock.Shared.UtcNowNanos);
        header[8] = kind;
        BinaryPrimitives.WriteInt32LittleEndian(header.Slice(9), payload.Length);
        Copy(head, header);
        Copy(head + RecordHeader, payload);
        Volatile.Write(ref _head, head + RecordHeader + payload.Length);
        return true;
    }

    private void Copy(long position, ReadOnlySpan<byte> source)
    {
        int at = (int)(position % _ring.Length);
        int first = Math.Min(source.Length, _ring.Length - at);
        source.Slice(0, first).CopyTo(_ring.AsSpan(at));
        source.Slice(first).CopyTo(_ring);
    }

    private void Read(long position, Span<byte> destination)
    {
        int at = (int)(position % _ring.Length);
        int first = Math.Min(destination.Length, _ring.Length - at);
        _ring.AsSpan(at, first).CopyTo(destination);
        _ring.AsSpan(0, destination.Length - first).CopyTo(destination.Slice(first));
    }

    /// <summary>The writer: the older of the next record and the next engine event to its file; false when both rings are empty.</summary>
    internal bool WriteNext()
    {
        long tail = _tail;
        bool record = Volatile.Read(ref _head) != tail;
        if (record)
        {
            Read(tail, _header);
        }

        EngineLog.Entry engineEvent;
        lock (_engineEventGate)
        {
            if (_engineEventTail == _engineEventHead)
            {
                return record && WriteRecord(tail);
            }

            engineEvent = _engineEvents[_engineEventTail % _engineEvents.Length];
        }

        if (record && BinaryPrimitives.ReadInt64LittleEndian(_header) <= engineEvent.TimeNanos)
        {
            return WriteRecord(tail);
        }

        // "yyyyMMdd-HH:mm:ss.fff : " and what the engine log says of the event, without the session's name: the
        // file is the session's.
        int n = FixTimeFormat.FormatTimestamp(engineEvent.TimeNanos, FixTimePrecision.Milliseconds, _eventLine);
        n += Text(_eventLine, " : "u8, n);
        n = EngineLog.FormatEvent(engineEvent, _eventLine, n, _address);
        lock (_engineEventGate)
        {
            _engineEvents[_engineEventTail % _engineEvents.Length] = default; // let go of the peer and detail it held
            _engineEventTail++;
        }

        _events.Write(_eventLine, 0, n);
        return true;
    }

    /// <summary>The writer: the record at <paramref name="tail"/>, whose header is read, to its file.</summary>
    private bool WriteRecord(long tail)
    {
        long nanos = BinaryPrimitives.ReadInt64LittleEndian(_header);
        byte kind = _header[8];
        int length = BinaryPrimitives.ReadInt32LittleEndian(_header.AsSpan(9));
        int n = FixTimeFormat.FormatTimestamp(nanos, FixTimePrecision.Milliseconds, _line);
        " : "u8.CopyTo(_line.AsSpan(n));
        n += 3;
        Read(tail + RecordHeader, _line.AsSpan(n, length));
        n += length;
        _line[n++] = (byte)'\n';
        Volatile.Write(ref _tail, tail + RecordHeader + length);
        (kind == EventRecord ? _events : _messages).Write(_line, 0, n);
        return true;
    }

    /// <summary>The writer: a line in the event file for drops since the last report; true when it wrote one.</summary>
    internal bool ReportDrops()
    {
        long dropped = Interlocked.Read(ref _dropped);
        if (dropped == _droppedReported)
        {
            return false;
        }

        int n = FixTimeFormat.FormatTimestamp(Time.EngineClock.Shared.UtcNowNanos, FixTimePrecision.Milliseconds, _line);
        n += Text(" : Message log ring full: "u8, n);
        n += FixValue.FormatLong(dropped - _droppedReported, _line.AsSpan(n));
        n += Text(" record(s) dropped ("u8, n);
        n += FixValue.FormatLong(dropped, _line.AsSpan(n));
        n += Text(" in all)\n"u8, n);
        _droppedReported = dropped;
        _events.Write(_line, 0, n);
        return true;
    }

    private int Text(ReadOnlySpan<byte> text, int at) => Text(_line, text, at);

    private static int Text(byte[] line, ReadOnlySpan<byte> text, int at)
    {
        text.CopyTo(line.AsSpan(at));
        return text.Length;
    }

    internal void FlushFiles()
    {
        _messages.Flush();
        _events.Flush();
    }

    internal void CloseFiles()
    {
        _messages.Dispose();
        _events.Dispose();
    }
}
