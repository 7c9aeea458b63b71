using System.Diagnostics;
using System.Globalization;
using RapidFix.TradeDriver;

namespace RapidFix.MatchingService.Tests;

/// <summary>
/// The matching service runs as a child process (its own executable, as users run it) and is killed with SIGKILL at
/// a random point while trades stream in. Restarted on the same data directory, it replays its input journal; the
/// participants (RapidFix initiators in this process) reconnect and the session layer resends what the service did
/// not take. Every trade must then have got exactly its CLS (four messages: two accounts, two participants) and its
/// acks: none lost, none twice.
/// </summary>
[Collection(nameof(ServiceProcesses))]
public sealed class RestartFromJournalTests : IDisposable
{
    private const int Trades = 300;
    private readonly string _work = Path.Combine(Path.GetTempPath(), "rapidfix-restart-" + Guid.NewGuid().ToString("N"));
    private int _windowBytes;

    public void Dispose()
    {
        if (Directory.Exists(_work))
        {
            Directory.Delete(_work, recursive: true);
        }
    }

    [Theory]
    [InlineData(1, 0)]
    [InlineData(2, 0)]
    [InlineData(3, 256 << 10)] // a write window far smaller than the journal file: the restart reads the file
    public void A_killed_service_rebuilds_from_its_journal_no_CLS_lost_none_twice(int seed, int windowBytes)
    {
        _windowBytes = windowBytes;
        var (messages, expected) = TradeGenerator.Generate(new GeneratorOptions { Trades = Trades, Seed = seed });
        var set = Verifier.Encode(messages);
        Directory.CreateDirectory(_work);
        string config = Path.Combine(_work, "service.cfg");
        File.WriteAllText(config, Verifier.ServiceSettings(TradeGenerator.Participants, "MATCH", set.Count));
        int port = Participants.FreePort();
        var child = StartService(config, port, out _);
        try
        {
            var collector = new AnswerCollector();
            using var participants = new Participants(TradeGenerator.Participants, "MATCH", "127.0.0.1", port, collector, expectedMessages: set.Count);
            Assert.True(participants.WaitForLogons(TimeSpan.FromSeconds(60)), "logons");
            long expectedAcks = expected.Sum(e => (long)e.Acks);
            long expectedCls = expected.Sum(e => (long)e.Cls);
            Exception? sendFailure = null;
            var sender = new Thread(() =>
            {
                try
                {
                    Verifier.Send(set, participants, collector, window: 200);
                }
                catch (Exception ex)
                {
                    sendFailure = ex;
                }
            }) { IsBackground = true };
            sender.Start();

            // Kill at a random point between a fifth and three fifths of the acks, with messages in flight. With a
            // write window the kill also waits for a journal file larger than the window, the case's premise: the
            // acks say only which inputs are journalled for sure, and what is journalled beyond them (the messages
            // in flight) depends on how far the service got, so on a loaded machine the file at that many acks can
            // be smaller than the window (CI: 254,345 bytes against 262,144 at load average 28).
            string journal = Path.Combine(_work, "data", MatchingServer.InputJournalFileName);
            long killAt = expectedAcks * (20 + new Random(seed).Next(40)) / 100;
            Wait.Until(() => collector.Acks >= killAt && (windowBytes == 0 || JournalBytes(journal) > windowBytes),
                $"{killAt} acks{(windowBytes > 0 ? $" and a journal file over {windowBytes} bytes" : "")} before the kill (got {collector.Acks} acks, {JournalBytes(journal)} bytes)", 120);
            child.Kill(entireProcessTree: true);
            child.WaitForExit();
            long acksAtKill = collector.Acks;
            child.Dispose();
            long journalBytes = JournalBytes(journal);

            child = StartService(config, port, out string startLine);
            Assert.Matches("journal: [1-9]\\d* inputs replayed", startLine);
            if (windowBytes > 0)
            {
                Assert.True(journalBytes > windowBytes, $"the journal file holds {journalBytes} bytes, the window {windowBytes} (killed after {acksAtKill} of {expectedAcks} acks)");
            }

            Assert.True(sender.Join(TimeSpan.FromSeconds(180)), "all messages sent after the restart");
            Assert.Null(sendFailure);
            Wait.Until(() => collector.Acks >= expectedAcks && collector.Cls >= expectedCls,
                $"every ack and CLS (acks {collector.Acks}/{expectedAcks}, CLS {collector.Cls}/{expectedCls})", 180);
            Thread.Sleep(1000); // a duplicate would arrive now

            var output = new StringWriter();
            var result = Verifier.Check(expected, collector.Drain(), output);
            Assert.True(result.Mismatches == 0, $"killed after {acksAtKill} acks, journal {journalBytes} bytes; {output}");
            Assert.Equal(Trades, result.ClsTrades);
            Assert.Equal(expectedAcks, collector.Acks);
            Assert.Equal(expectedCls, collector.Cls);
        }
        finally
        {
            if (!child.HasExited)
            {
                child.Kill(entireProcessTree: true);
            }

            child.Dispose();
        }
    }

    private static long JournalBytes(string path) => File.Exists(path) ? new FileInfo(path).Length : 0;

    // Starts the service's executable on the data directory; returns once it says it is ready.
    private Process StartService(string config, int port, out string startLine)
    {
        string service = Path.Combine(AppContext.BaseDirectory, "RapidFix.MatchingService.dll");
        Assert.True(File.Exists(service), $"service not built: {service}");
        var start = new ProcessStartInfo(Environment.GetEnvironmentVariable("DOTNET_HOST_PATH") is { Length: > 0 } dotnet ? dotnet : "dotnet")
        {
            RedirectStandardOutput = true,
            RedirectStandardError = true,
            UseShellExecute = false,
        };
        foreach (var argument in new[]
                 {
                     "exec", service, "--config", config, "--static-data", DocumentedExamplesTests.GeneratedStaticData, "--port",
                     port.ToString(CultureInfo.InvariantCulture), "--data-dir", Path.Combine(_work, "data"), "--no-warm-up", "--business-date", "20261123",
                     "--log", Path.Combine(_work, "engine.log"),
                 })
        {
            start.ArgumentList.Add(argument);
        }

        if (_windowBytes > 0)
        {
            start.ArgumentList.Add("--journal-bytes");
            start.ArgumentList.Add(_windowBytes.ToString(CultureInfo.InvariantCulture));
        }

        var process = Process.Start(start)!;
        startLine = string.Empty;
        while (process.StandardOutput.ReadLine() is { } line)
        {
            if (line.StartsWith("matching service:", StringComparison.Ordinal))
            {
                startLine = line;
            }

            if (line.StartsWith("ready:", StringComparison.Ordinal))
            {
                // Keep draining standard output so the child never blocks on a full pipe.
                var reader = process.StandardOutput;
                new Thread(() => reader.ReadToEnd()) { IsBackground = true }.Start();
                return process;
            }
        }

        string error = process.StandardError.ReadToEnd();
        process.Kill(entireProcessTree: true);
        Assert.Fail($"the service did not start: {startLine} {error}");
        return process;
    }
}
