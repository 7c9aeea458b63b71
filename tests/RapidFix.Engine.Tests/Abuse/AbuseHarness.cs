using System.Diagnostics;
using System.Net;
using System.Net.Sockets;
using System.Text;
using RapidFix.Engine.Diagnostics;
using RapidFix.Engine.Hosting;
using RapidFix.Engine.Tests.Sessions;

namespace RapidFix.Engine.Tests.Abuse;

/// <summary>Network-abuse tests run alone: they measure memory and logon times of a real acceptor.</summary>
[CollectionDefinition(nameof(NetworkAbuse), DisableParallelization = true)]
public sealed class NetworkAbuse
{
}

/// <summary>An EngineLog whose lines the test reads back.</summary>
internal sealed class CapturedLog : IDisposable
{
    private readonly MemoryStream _output = new();

    public CapturedLog() => Log = new EngineLog(_output, 65536, LogLevel.Info);

    public EngineLog Log { get; }

    /// <summary>Everything written so far (waits for the writer).</summary>
    public string Text()
    {
        Log.Flush();
        lock (_output)
        {
            return Encoding.UTF8.GetString(_output.ToArray());
        }
    }

    /// <summary>Lines naming <paramref name="peer"/> ("peer 127.0.0.1:port").</summary>
    public string[] LinesOf(EndPoint peer) =>
        Text().Split('\n').Where(l => l.Contains($"peer {peer}: ", StringComparison.Ordinal)).ToArray();

    /// <summary>Waits until a line names <paramref name="peer"/> and contains <paramref name="text"/>.</summary>
    public string WaitForLine(EndPoint peer, string text, int seconds = 15)
    {
        var deadline = DateTime.UtcNow.AddSeconds(seconds);
        while (true)
        {
            var line = LinesOf(peer).FirstOrDefault(l => l.Contains(text, StringComparison.Ordinal));
            if (line is not null)
            {
                return line;
            }

            if (DateTime.UtcNow > deadline)
            {
                throw new TimeoutException($"no log line for {peer} containing '{text}'; the log:\n{Text()}");
            }

            Thread.Sleep(10);
        }
    }

    public void Dispose() => Log.Dispose();
}

internal static class AbuseHarness
{
    /// <summary>A second loopback address (Linux routes all of 127/8 to lo): "another counterparty's" address.</summary>
    public static readonly IPAddress OtherAddress = IPAddress.Parse("127.0.0.2");

    public static int Port(FixEngine acceptor) => acceptor.Acceptors[0].LocalEndPoint.Port;

    /// <summary>A client socket connected to the acceptor from <paramref name="from"/> (127.0.0.1 when null).</summary>
    public static Socket Connect(FixEngine acceptor, IPAddress? from = null)
    {
        var socket = new Socket(AddressFamily.InterNetwork, SocketType.Stream, ProtocolType.Tcp) { NoDelay = true };
        if (from is not null)
        {
            socket.Bind(new IPEndPoint(from, 0));
        }

        socket.Connect(IPAddress.Loopback, Port(acceptor));
        return socket;
    }

    /// <summary>
    /// Connects from 127.0.0.1, sends a valid Logon and waits for the answer: the time from the start of the
    /// connect to the acceptor's Logon read back. The socket stays open (the caller disposes it).
    /// </summary>
    public static TimeSpan TimeLogon(FixEngine acceptor, out Socket socket, int seq = 1)
    {
        var started = Stopwatch.StartNew();
        socket = Connect(acceptor);
        socket.Send(SessionHarness.RawLogon(seq, "CLIENT", "EXEC"));
        socket.ReceiveTimeout = 20_000;
        var answer = ReadMessage(socket);
        var elapsed = started.Elapsed;
        Assert.Contains("\u000135=A\u0001", answer, StringComparison.Ordinal);
        return elapsed;
    }

    /// <summary>Reads one whole FIX message (through its CheckSum field) as text.</summary>
    public static string ReadMessage(Socket socket)
    {
        var text = new StringBuilder();
        var one = new byte[1];
        while (true)
        {
            if (socket.Receive(one) == 0)
            {
                throw new InvalidOperationException($"closed after '{text}'");
            }

            text.Append((char)one[0]);
            if (one[0] == 1 && text.Length >= 8 && text.ToString(text.Length - 8, 4) == "\u000110=")
            {
                return text.ToString();
            }
        }
    }

    /// <summary>
    /// Whole-process memory after forcing full collections: the bytes the last one found alive (every generation, the
    /// large and pinned heaps included) and the resident set.
    /// </summary>
    /// <remarks>
    /// Not <see cref="GC.GetTotalMemory(bool)"/>: with the regions GC it moved by up to 4 MB between two measurements
    /// of the same live heap (a loaded run of the TLS flood test: 2 MB less than the live bytes with 32 connections
    /// admitted, the same after 64 more were refused, so the refused ones seemed to hold 32 KB each; the CI run of
    /// 2026-11-29 failed on 61 KB). The live bytes after a compacting collection are exact.
    /// </remarks>
    public static (long Heap, long WorkingSet) SettledMemory()
    {
        for (int i = 0; i < 3; i++)
        {
            GC.Collect(2, GCCollectionMode.Forced, blocking: true, compacting: true);
            GC.WaitForPendingFinalizers();
        }

        GC.Collect(2, GCCollectionMode.Forced, blocking: true, compacting: true);
        var collected = GC.GetGCMemoryInfo(GCKind.FullBlocking);
        using var process = Process.GetCurrentProcess();
        return (collected.HeapSizeBytes - collected.FragmentedBytes, process.WorkingSet64);
    }
}
