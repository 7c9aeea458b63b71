using System.Diagnostics;
using System.Globalization;

namespace RapidFix.TradeDriver.Measure;

/// <summary>
/// One echo acceptor of the side-by-side run in its own process: RapidFix's (<see cref="EchoAcceptor"/>, the trade
/// driver's <c>echo-acceptor</c> subcommand) or QuickFIX/n's (<see cref="QuickFixNEcho"/>, built from its source).
/// Both speak the same protocol on their standard streams: <c>listening on PORT</c> once the sessions accept; a
/// <c>mark</c> line on their input starts the measured part; at the end of their input they print
/// <c>gc COLLECTIONS ALLOCATED</c> (collections of every generation and bytes allocated since the mark) and exit.
/// </summary>
internal sealed class EchoPeer : IDisposable
{
    /// <summary>The echo acceptors' CompID (the driver's initiators target it, as they target the service).</summary>
    public const string CompId = "MATCH";

    private readonly Process _process;
    private readonly List<string> _lines = [];
    private readonly TaskCompletionSource<bool> _listening = new(TaskCreationOptions.RunContinuationsAsynchronously);

    private EchoPeer(string name, Process process, int port)
    {
        Name = name;
        _process = process;
        Port = port;
    }

    /// <summary>"RapidFix" or "QuickFIX/n".</summary>
    public string Name { get; }

    public int Port { get; }

    /// <summary>Every line the child printed.</summary>
    public IReadOnlyList<string> Lines
    {
        get
        {
            lock (_lines)
            {
                return [.. _lines];
            }
        }
    }

    /// <summary>The RapidFix echo acceptor: this driver's own <c>echo-acceptor</c> subcommand in a child process.</summary>
    public static EchoPeer StartRapidFix(long messages)
    {
        string driver = typeof(EchoPeer).Assembly.Location;
        int port = Participants.FreePort();
        return Start("RapidFix", port, driver, ["echo-acceptor", "--port", Invariant(port), "--messages", Invariant(messages)]);
    }

    /// <summary>The QuickFIX/n echo acceptor built by <see cref="QuickFixNPeer.Prepare"/>.</summary>
    public static EchoPeer StartQuickFixN(string echoAssembly)
    {
        int port = Participants.FreePort();
        return Start("QuickFIX/n", port, echoAssembly, [Invariant(port), CompId, .. TradeGenerator.Participants]);
    }

    /// <summary>Waits for <c>listening on PORT</c>; false on timeout or when the child exited first.</summary>
    public bool WaitListening(TimeSpan timeout) => _listening.Task.Wait(timeout) && _listening.Task.Result;

    /// <summary>Starts the measured part: the peer takes its GC and allocation baseline now.</summary>
    public void Mark()
    {
        try
        {
            _process.StandardInput.WriteLine("mark");
            _process.StandardInput.Flush();
        }
        catch (IOException)
        {
            // the child exited: Stop reports it
        }
    }

    /// <summary>
    /// Ends the peer's input and waits for it to exit (killed after <paramref name="timeout"/>); returns its
    /// collections and allocated bytes since the mark, or null when it printed none.
    /// </summary>
    public (long Collections, long AllocatedBytes)? Stop(TimeSpan timeout)
    {
        try
        {
            _process.StandardInput.Close();
        }
        catch (IOException)
        {
            // already gone
        }

        if (!_process.WaitForExit(timeout))
        {
            _process.Kill(entireProcessTree: true);
            _process.WaitForExit();
            return null;
        }

        _process.WaitForExit(); // the last lines
        foreach (var line in Lines)
        {
            if (ParseGc(line) is { } gc)
            {
                return gc;
            }
        }

        return null;
    }

    /// <summary>Parses <c>gc COLLECTIONS ALLOCATED</c>.</summary>
    public static (long Collections, long AllocatedBytes)? ParseGc(string line)
    {
        var parts = line.Split(' ', StringSplitOptions.RemoveEmptyEntries);
        return parts is ["gc", var c, var a] && long.TryParse(c, CultureInfo.InvariantCulture, out long collections)
            && long.TryParse(a, CultureInfo.InvariantCulture, out long allocated)
            ? (collections, allocated)
            : null;
    }

    /// <summary>
    /// The child's side of the protocol, after it printed <c>listening</c>: reads its input; <c>mark</c> takes the
    /// baseline; at the end of input prints <c>gc COLLECTIONS ALLOCATED</c> since the mark and returns 0.
    /// </summary>
    public static int ServeUntilEndOfInput(TextReader input, TextWriter output)
    {
        long collections = Collections(), allocated = GC.GetTotalAllocatedBytes(precise: true);
        while (input.ReadLine() is { } line)
        {
            if (line.Trim() == "mark")
            {
                collections = Collections();
                allocated = GC.GetTotalAllocatedBytes(precise: true);
            }
        }

        output.WriteLine(string.Create(CultureInfo.InvariantCulture, $"gc {Collections() - collections} {GC.GetTotalAllocatedBytes(precise: true) - allocated}"));
        output.Flush();
        return 0;
    }

    public void Dispose()
    {
        if (!_process.HasExited)
        {
            Stop(TimeSpan.FromSeconds(10));
        }

        _process.Dispose();
    }

    private static long Collections() => GC.CollectionCount(0) + GC.CollectionCount(1) + GC.CollectionCount(2);

    private static string Invariant(long value) => value.ToString(CultureInfo.InvariantCulture);

    private static EchoPeer Start(string name, int port, string assembly, IEnumerable<string> arguments)
    {
        if (!File.Exists(assembly))
        {
            throw new FileNotFoundException($"the {name} echo acceptor is not built: {assembly}");
        }

        var start = new ProcessStartInfo(ServiceProcess.DotNetHost)
        {
            RedirectStandardInput = true,
            RedirectStandardOutput = true,
            RedirectStandardError = true,
            UseShellExecute = false,
        };
        start.ArgumentList.Add("exec");
        start.ArgumentList.Add(assembly);
        foreach (var argument in arguments)
        {
            start.ArgumentList.Add(argument);
        }

        var peer = new EchoPeer(name, new Process { StartInfo = start, EnableRaisingEvents = true }, port);
        peer._process.OutputDataReceived += (_, e) => peer.OnLine(e.Data);
        peer._process.ErrorDataReceived += (_, e) => peer.OnLine(e.Data);
        peer._process.Exited += (_, _) => peer._listening.TrySetResult(false);
        peer._process.Start();
        peer._process.BeginOutputReadLine();
        peer._process.BeginErrorReadLine();
        return peer;
    }

    private void OnLine(string? line)
    {
        if (line is null)
        {
            return;
        }

        lock (_lines)
        {
            _lines.Add(line);
        }

        if (line.StartsWith("listening on ", StringComparison.Ordinal))
        {
            _listening.TrySetResult(true);
        }
    }
}
