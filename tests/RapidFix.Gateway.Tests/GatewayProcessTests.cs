using System.Diagnostics;
using System.Globalization;

namespace RapidFix.Gateway.Tests;

/// <summary>
/// The gateway executable in a process of its own (its phase report counts the whole process, which a test host
/// cannot: its own threads allocate): idle in its continuous phase with its services connected, and carrying trades
/// after its warm-up, it allocates nothing and compiles nothing.
/// </summary>
[Collection(nameof(GatewayProcesses))]
public sealed class GatewayProcessTests : IDisposable
{
    private readonly ScaleOut _scale = new();

    public void Dispose() => _scale.Dispose();

    [Fact]
    public void The_idle_gateway_process_allocates_nothing_in_its_continuous_phase()
    {
        using var service = _scale.StartService("service", ScaleOut.FreePort(), 1, null);

        var (exit, output) = RunGateway("--partitions", "1", "--service", $"127.0.0.1:{service.Port}=0", "--port", ScaleOut.FreePort().ToString(CultureInfo.InvariantCulture),
            "--data-dir", Path.Combine(_scale.Work, "gateway"), "--log", Path.Combine(_scale.Work, "gateway.log"), "--wait-for-services", "60", "--seconds", "5");

        // Its own verdict: the exit code is 1 when the continuous phase allocated (it was, by 32 bytes: the main
        // thread's first touch of a thread-static inside the phase switch).
        Assert.Contains("continuous phase: 0 collections, 0 bytes allocated", output, StringComparison.Ordinal);
        Assert.True(exit == 0, output);
    }

    [GatewayZeroGcFact]
    public void The_gateway_process_carrying_trades_allocates_nothing_and_compiles_nothing_in_its_continuous_phase()
    {
        // Without a warm-up the gateway's path was compiled to tier 1 while the trades flowed, in the continuous phase
        // (about 800 methods in 10 s): that compilation ran ReadOnlySequence<byte>'s class constructor (40 bytes, exit
        // code 1, in every run, until connection set-up ran it in startup), and a rare 12,336 bytes (about 3 runs in
        // 20) came with it. The warm-up drives the whole path through a scratch gateway first: nothing of it is compiled
        // in the phase (without the warm-up, --no-warm-up, this fails in every run on the count of methods compiled).
        // As tools/zero-gc-gateway.sh runs it: two services owning a partition each, the participants started 3 s
        // after the gateway, trades at 2,000 messages/s.
        using var first = _scale.StartService("service-1", ScaleOut.FreePort(), 2, [0], messages: 60_000);
        using var second = _scale.StartService("service-2", ScaleOut.FreePort(), 2, [1], messages: 60_000);
        int port = ScaleOut.FreePort();
        string p = port.ToString(CultureInfo.InvariantCulture);
        using var gateway = Start("RapidFix.Gateway.dll", "--partitions", "2", "--service", $"127.0.0.1:{first.Port}=0", "--service", $"127.0.0.1:{second.Port}=1",
            "--port", p, "--data-dir", Path.Combine(_scale.Work, "gateway"), "--log", Path.Combine(_scale.Work, "gateway.log"),
            "--wait-for-services", "60", "--wait-for-participants", "60", "--seconds", "10");
        Thread.Sleep(3_000);
        // The participants outlast the gateway's phase (a connection's tear-down allocates, as its set-up does).
        using var driver = Start("RapidFix.TradeDriver.dll", "throughput", "--host", "127.0.0.1", "--port", p, "--rate", "2000", "--seconds", "120");
        _ = driver.StandardOutput.ReadToEndAsync(); // read, so that it never blocks on a full pipe
        _ = driver.StandardError.ReadToEndAsync();
        try
        {
            var (exit, output) = Finish(gateway);
            Assert.True(output.Contains("continuous phase: 0 collections, 0 bytes allocated (0 by engine threads)", StringComparison.Ordinal), output);
            Assert.True(exit == 0, output);
            AssertWarmedUp(output);
            var compiled = System.Text.RegularExpressions.Regex.Match(output, "continuous phase: .*, ([0-9]+) methods compiled");
            Assert.True(compiled.Success, output);
            Assert.True(int.Parse(compiled.Groups[1].Value, CultureInfo.InvariantCulture) <= RuntimeOwnTierUps, output);
            // Trades flowed through it (the live gateway's line, not the warm-up's: the count is what it handed to the services).
            var forwarded = System.Text.RegularExpressions.Regex.Match(output, "^forwarded ([0-9]+), answers ([0-9]+)", System.Text.RegularExpressions.RegexOptions.Multiline);
            Assert.True(forwarded.Success, output);
            Assert.True(long.Parse(forwarded.Groups[1].Value, CultureInfo.InvariantCulture) >= 2_000, output);
            Assert.True(long.Parse(forwarded.Groups[2].Value, CultureInfo.InvariantCulture) >= 2_000, output);
        }
        finally
        {
            if (!driver.HasExited)
            {
                driver.Kill(entireProcessTree: true);
            }

            driver.WaitForExit();
        }
    }

    [GatewayZeroGcFact]
    public void After_its_warm_up_the_first_trades_of_the_gateway_process_phase_compile_nothing_of_its_path()
    {
        // The participants log on during the gateway's startup and send their first trades only inside its continuous
        // phase (in the test above the driver's trades start during the gateway's startup, and may warm its path
        // before the phase): without the warm-up (--no-warm-up) the phase compiled the gateway's path, some hundreds
        // of methods, in every run; with it, at most the runtime's own few.
        using var service = _scale.StartService("service", ScaleOut.FreePort(), 1, null);
        int port = ScaleOut.FreePort();
        string p = port.ToString(CultureInfo.InvariantCulture);
        var start = new ProcessStartInfo(Environment.GetEnvironmentVariable("DOTNET_HOST_PATH") is { Length: > 0 } dotnet ? dotnet : "dotnet")
        {
            RedirectStandardOutput = true,
            RedirectStandardError = true,
        };
        foreach (var arg in (string[])["exec", Path.Combine(AppContext.BaseDirectory, "RapidFix.Gateway.dll"), "--partitions", "1",
                     "--service", $"127.0.0.1:{service.Port}=0", "--port", p, "--data-dir", Path.Combine(_scale.Work, "gateway"),
                     "--log", Path.Combine(_scale.Work, "gateway.log"), "--wait-for-services", "60", "--wait-for-participants", "60", "--seconds", "16"])
        {
            start.ArgumentList.Add(arg);
        }

        var output = new System.Collections.Concurrent.ConcurrentQueue<string>();
        using var ready = new ManualResetEventSlim();
        using var gateway = new Process { StartInfo = start };
        gateway.OutputDataReceived += (_, e) =>
        {
            if (e.Data is { } line)
            {
                output.Enqueue(line);
                if (line.StartsWith("ready:", StringComparison.Ordinal))
                {
                    ready.Set();
                }
            }
        };
        gateway.ErrorDataReceived += (_, e) => output.Enqueue(e.Data ?? "");
        gateway.Start();
        gateway.BeginOutputReadLine();
        gateway.BeginErrorReadLine();
        string Text() => string.Join("\n", output);
        try
        {
            var collector = new RapidFix.TradeDriver.AnswerCollector { Keep = false };
            // They connect while the gateway starts (the initiators retry until it listens) and stay until it has ended.
            using var participants = new RapidFix.TradeDriver.Participants(ScaleOut.Participants, "MATCH", "127.0.0.1", port, collector);
            Assert.True(ready.Wait(TimeSpan.FromMinutes(3)), Text());
            // "ready:" comes before the switch, which waits for the JIT to be quiet (at most 5 s) and collects.
            Thread.Sleep(7_000);
            var set = RapidFix.TradeDriver.GatewayThroughput.EncodedSet(new RapidFix.TradeDriver.GeneratorOptions { Trades = 200, Seed = 11 });
            RapidFix.TradeDriver.Verifier.Send(set, participants, collector, window: 64);
            ScaleOut.Until(() => collector.Acks > 0, "the first acks", 30);
            Assert.True(gateway.WaitForExit(TimeSpan.FromMinutes(2)), Text());
            gateway.WaitForExit(); // the output's last lines
            string text = Text();
            Assert.True(gateway.ExitCode == 0, text);
            Assert.True(text.Contains("continuous phase: 0 collections, 0 bytes allocated (0 by engine threads)", StringComparison.Ordinal), text);
            var forwarded = System.Text.RegularExpressions.Regex.Match(text, "^forwarded ([0-9]+), answers ([0-9]+)", System.Text.RegularExpressions.RegexOptions.Multiline);
            // Every message of the set went through in the phase (and none of the warm-up's: those went to its stand-ins).
            Assert.True(forwarded.Success && long.Parse(forwarded.Groups[1].Value, CultureInfo.InvariantCulture) == set.Count, $"set of {set.Count}: {text}");
            var compiled = System.Text.RegularExpressions.Regex.Match(text, "continuous phase: .*, ([0-9]+) methods compiled");
            Assert.True(compiled.Success, text);
            Assert.True(int.Parse(compiled.Groups[1].Value, CultureInfo.InvariantCulture) <= RuntimeOwnTierUps, text);
        }
        finally
        {
            if (!gateway.HasExited)
            {
                gateway.Kill(entireProcessTree: true);
                gateway.WaitForExit();
            }
        }
    }

    /// <summary>
    /// Methods the runtime may compile in the first moments of the phase on its own: tier-ups of its own code that the
    /// phase switch's blocking collection sets off (seen, with DOTNET_JitDisasmSummary=1: GC.RunFinalizers,
    /// SpanHelpers.ClearWithReferences, ConditionalWeakTable's enumerator; 0 to 2 a run), none of the gateway's path.
    /// Without the warm-up the phase compiled about 800 (every run), the gateway's whole path.
    /// </summary>
    private const int RuntimeOwnTierUps = 4;

    // The warm-up ran every path: settled, answers with RefSeqNum translated and not, refusals for a full ring and a
    // down service, a service outage; its scratch folder is gone.
    private void AssertWarmedUp(string output)
    {
        var line = System.Text.RegularExpressions.Regex.Match(output,
            @"gateway: warm-up [0-9.]+ s, [0-9]+ rounds, [0-9]+ methods compiled, settled; scratch gateway forwarded ([0-9]+), answers ([0-9]+) " +
            @"\(([0-9]+) RefSeqNum rewritten, ([0-9]+) untranslated\), refused: ring full ([0-9]+), service down ([0-9]+); ([0-9]+) service outages");
        Assert.True(line.Success, output);
        for (int g = 1; g <= 7; g++)
        {
            Assert.True(long.Parse(line.Groups[g].Value, CultureInfo.InvariantCulture) > 0, $"group {g} of the warm-up's line is 0: {line.Value}");
        }

        Assert.False(Directory.Exists(Path.Combine(_scale.Work, "gateway", "warm-up.scratch")), "the scratch gateway's folder was left behind");
    }

    private static (int Exit, string Output) RunGateway(params string[] args)
    {
        using var process = Start("RapidFix.Gateway.dll", args);
        return Finish(process);
    }

    private static Process Start(string assembly, params string[] args)
    {
        var start = new ProcessStartInfo(Environment.GetEnvironmentVariable("DOTNET_HOST_PATH") is { Length: > 0 } dotnet ? dotnet : "dotnet")
        {
            RedirectStandardOutput = true,
            RedirectStandardError = true,
        };
        start.ArgumentList.Add("exec");
        start.ArgumentList.Add(Path.Combine(AppContext.BaseDirectory, assembly));
        foreach (var arg in args)
        {
            start.ArgumentList.Add(arg);
        }

        return Process.Start(start)!;
    }

    private static (int Exit, string Output) Finish(Process process)
    {
        var stdout = process.StandardOutput.ReadToEndAsync();
        var stderr = process.StandardError.ReadToEndAsync();
        if (!process.WaitForExit(TimeSpan.FromMinutes(3)))
        {
            process.Kill(entireProcessTree: true);
            process.WaitForExit();
        }

        return (process.ExitCode, stdout.Result + stderr.Result);
    }
}

/// <summary>
/// A fact skipped with RAPIDFIX_SKIP_ZERO_GC_GATEWAY=1, as tools/test.sh skips the gateway's zero-GC slice then (the
/// service's slice has RAPIDFIX_SKIP_ZERO_GC_SERVICE): a quick run that leaves out the processes under trades.
/// </summary>
public sealed class GatewayZeroGcFactAttribute : FactAttribute
{
    public GatewayZeroGcFactAttribute()
    {
        if (Environment.GetEnvironmentVariable("RAPIDFIX_SKIP_ZERO_GC_GATEWAY") == "1")
        {
            Skip = "skipped with RAPIDFIX_SKIP_ZERO_GC_GATEWAY=1";
        }
    }
}
