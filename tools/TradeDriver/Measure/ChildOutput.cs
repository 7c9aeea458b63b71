using System.Diagnostics;
using System.Runtime.CompilerServices;
using System.Text;

namespace RapidFix.TradeDriver.Measure;

/// <summary>
/// A child process's standard output and error, read without allocating (issue 13): one dedicated thread per stream
/// reads its bytes into buffers allocated at startup, keeps the first <see cref="HeadBytes"/> and the last
/// <see cref="TailBytes"/> of them, and hands every complete line to a callback as a span (the service's "ready:" is
/// found that way). Text is decoded only when <see cref="Lines"/> is read: at startup (an error message) or after the
/// run. <see cref="Process.OutputDataReceived"/>, used before, makes a string (and its thread-pool work) for every
/// line a child prints: a child printing in the driver's measured phase allocated in the driver's process.
/// </summary>
internal sealed class ChildOutput
{
    /// <summary>Bytes kept from the start of the output (both streams, in arrival order).</summary>
    public const int HeadBytes = 64 * 1024;

    /// <summary>Bytes kept from the end of the output (the last lines: a service's report).</summary>
    public const int TailBytes = 64 * 1024;

    /// <summary>Bytes of a line handed to the callback; a longer line is cut there (it is kept whole in the text).</summary>
    public const int MaxLineBytes = 1024;

    private readonly object _gate = new();
    private readonly byte[] _head = new byte[HeadBytes];
    private readonly byte[] _tail = new byte[TailBytes];
    private readonly LineHandler? _onLine;
    private readonly Thread[] _threads;
    private readonly Stream[] _streams;
    private readonly long[] _lineCounts;
    private readonly long[] _allocated;
    private int _headCount;
    private long _total;
    private int _open;

    /// <summary>A complete line (without its end of line) from one of the streams, on that stream's reading thread.</summary>
    public delegate void LineHandler(ReadOnlySpan<byte> line);

    /// <summary>Starts reading <paramref name="streams"/> (a process's standard output and error), each on its own thread.</summary>
    /// <param name="name">The threads' names.</param>
    /// <param name="onLine">Called with every line (must not allocate once the run measures); null: none.</param>
    /// <param name="onEnd">Called once when every stream has ended (the child exited or closed them).</param>
    public ChildOutput(string name, LineHandler? onLine, Action? onEnd, Stream[] streams)
    {
        _onLine = onLine;
        _streams = streams;
        _open = streams.Length;
        _threads = new Thread[streams.Length];
        _lineCounts = new long[streams.Length];
        _allocated = new long[streams.Length];
        for (int i = 0; i < streams.Length; i++)
        {
            var stream = streams[i];
            int index = i;
            _threads[i] = new Thread(() => Read(stream, index, onEnd)) { IsBackground = true, Name = $"{name}-output-{i}" };
        }

        foreach (var thread in _threads)
        {
            thread.Start();
        }
    }

    /// <summary>Reads <paramref name="process"/>'s redirected standard output and error.</summary>
    public static ChildOutput Of(Process process, string name, LineHandler? onLine = null, Action? onEnd = null) =>
        new(name, onLine, onEnd, [process.StandardOutput.BaseStream, process.StandardError.BaseStream]);

    /// <summary>Complete lines read so far from stream <paramref name="stream"/> (0: standard output, 1: standard error).</summary>
    public long LinesOf(int stream) => Interlocked.Read(ref _lineCounts[stream]);

    /// <summary>
    /// Bytes the reading threads have allocated since they started, as each last published it (after every read it
    /// handled): the driver's verdict counts these threads too (a difference of two readings is what they allocated in
    /// between, but for a read still in progress). Allocation-free.
    /// </summary>
    public long ThreadsAllocatedBytes
    {
        get
        {
            long sum = 0;
            for (int i = 0; i < _allocated.Length; i++)
            {
                sum += Volatile.Read(ref _allocated[i]);
            }

            return sum;
        }
    }

    /// <summary>Bytes the child printed so far.</summary>
    public long TotalBytes => Interlocked.Read(ref _total);

    /// <summary>Every line kept: the first <see cref="HeadBytes"/> and the last <see cref="TailBytes"/> (decoded now: allocates).</summary>
    public IReadOnlyList<string> Lines
    {
        get
        {
            string text;
            lock (_gate)
            {
                text = Encoding.UTF8.GetString(_head, 0, _headCount);
                if (_total > HeadBytes)
                {
                    long after = _total - HeadBytes; // bytes past the head, of which the tail holds the last
                    int kept = (int)Math.Min(after, TailBytes);
                    var tail = new byte[kept];
                    long start = _total - kept;
                    for (int i = 0; i < kept; i++)
                    {
                        tail[i] = _tail[(start + i) % TailBytes];
                    }

                    string rest = Encoding.UTF8.GetString(tail);
                    if (after > kept)
                    {
                        // Cut mid-line: start the tail at its first whole line.
                        int newline = rest.IndexOf('\n', StringComparison.Ordinal);
                        rest = $"\n[{after - kept + (newline + 1)} bytes of output not kept]\n" + rest[(newline + 1)..];
                    }

                    text += rest;
                }
            }

            var lines = text.Split('\n');
            var list = new List<string>(lines.Length);
            foreach (var line in lines)
            {
                list.Add(line.TrimEnd('\r'));
            }

            if (list.Count > 0 && list[^1].Length == 0)
            {
                list.RemoveAt(list.Count - 1);
            }

            return list;
        }
    }

    /// <summary>Waits for both streams to end (the child has exited), up to <paramref name="timeout"/>.</summary>
    public bool WaitForEnd(TimeSpan timeout)
    {
        var deadline = Stopwatch.StartNew();
        foreach (var thread in _threads)
        {
            var left = timeout - deadline.Elapsed;
            if (left <= TimeSpan.Zero || !thread.Join(left))
            {
                return false;
            }
        }

        return true;
    }

    // One call for the thread's life: compiled optimized at once, never moved by on-stack replacement (which allocates).
    [MethodImpl(MethodImplOptions.AggressiveOptimization)]
    private void Read(Stream stream, int index, Action? onEnd)
    {
        var buffer = new byte[4096];
        var line = new byte[MaxLineBytes];
        int lineLength = 0;
        bool cut = false;
        long startedWith = GC.GetAllocatedBytesForCurrentThread();
        while (true)
        {
            Volatile.Write(ref _allocated[index], GC.GetAllocatedBytesForCurrentThread() - startedWith);
            int n;
            try
            {
                n = stream.Read(buffer, 0, buffer.Length);
            }
            catch (IOException)
            {
                n = 0;
            }
            catch (ObjectDisposedException)
            {
                n = 0;
            }

            if (n <= 0)
            {
                break;
            }

            Keep(buffer.AsSpan(0, n));
            for (int i = 0; i < n; i++)
            {
                byte b = buffer[i];
                if (b == (byte)'\n')
                {
                    int length = lineLength > 0 && line[lineLength - 1] == (byte)'\r' && !cut ? lineLength - 1 : lineLength;
                    _onLine?.Invoke(line.AsSpan(0, length));
                    Interlocked.Increment(ref _lineCounts[index]);
                    lineLength = 0;
                    cut = false;
                }
                else if (lineLength < line.Length)
                {
                    line[lineLength++] = b;
                }
                else
                {
                    cut = true;
                }
            }
        }

        if (lineLength > 0)
        {
            _onLine?.Invoke(line.AsSpan(0, lineLength));
        }

        if (Interlocked.Decrement(ref _open) == 0)
        {
            onEnd?.Invoke();
        }
    }

    // Both streams into one record, in arrival order: the head until it is full, and always the tail ring.
    private void Keep(ReadOnlySpan<byte> bytes)
    {
        lock (_gate)
        {
            int toHead = Math.Min(bytes.Length, HeadBytes - _headCount);
            if (toHead > 0)
            {
                bytes[..toHead].CopyTo(_head.AsSpan(_headCount));
                _headCount += toHead;
            }

            foreach (byte b in bytes[toHead..])
            {
                _tail[(int)((_total + toHead) % TailBytes)] = b;
                _total++;
            }

            _total += toHead;
        }
    }
}
