using System.Diagnostics;
using System.Globalization;
using System.Net;
using System.Net.Sockets;
using System.Reflection;
using System.Runtime.CompilerServices;
using RapidFix.Engine.Configuration;
using RapidFix.Engine.Diagnostics;
using RapidFix.Engine.Hosting;
using RapidFix.Engine.Sessions;
using RapidFix.Pools.Diagnostics;
using RapidFix.Pools.Phases;
using RapidFix.Samples;
using RapidFix.Samples.FixLoad;

// FixLoad: a RapidFix initiator sends NewOrderSingle at a steady rate to a RapidFix acceptor in this process, over
// loopback; the acceptor fills each with an ExecutionReport. Startup (sessions, pools, sockets, logon, warm-up until
// compilation settles, full GC), continuous (the load), shutdown (report). Exit code: 0 when the continuous phase
// had no GC and allocated nothing, 1 when it did, 2 when the run could not be made (a usage or environment error:
// one line, no stack trace). --help lists the options.
return SampleCommand.Invoke(LoadOptions.Command(options => LoadRun.Execute(options, Console.Out)), args);

namespace RapidFix.Samples.FixLoad
{
    /// <summary>One run of the load, in the engine's three phases.</summary>
    internal static class LoadRun
    {
        public static int Execute(LoadOptions options, TextWriter output)
        {
            var startup = Stopwatch.StartNew();
            int port = options.Port != 0 ? options.Port : FreeLoopbackPort();
            var settings = SettingsFile.Parse(Settings(options, port), "FixLoad settings");
            using var logFile = options.LogPath is null ? null : new FileStream(options.LogPath, FileMode.Create, FileAccess.Write, FileShare.Read);
            using var log = logFile is null ? null : new EngineLog(logFile, 8192, LogLevel.Debug);
            var matcher = new OrderMatcher(options.AllocatingHandler);
            var client = new OrderClient();
            EngineHost host;
            try
            {
                host = EngineHost.Start(settings, s => s.IsAcceptor ? matcher : (IFixApplication)client,
                    new EngineHostOptions { Name = "fix-load", NoGcRegionBytes = options.NoGcRegionBytes, RecordLatencyWithoutListener = true }, log);
            }
            catch (Exception ex) when (ex is SocketException or ConfigurationException)
            {
                Console.Error.WriteLine($"FixLoad: cannot start the engine: {ex.Message}");
                return 2;
            }

            using var _ = host;
            matcher.Attach(host.Phases, host.BuffersOf(matcher.Session));
            client.Attach(host.BuffersOf(client.Session));
            var load = EngineThreads.Register("fix-load-sender");

            if (!host.WaitForLogons(TimeSpan.FromSeconds(10)))
            {
                Console.Error.WriteLine($"FixLoad: the sessions did not log on within 10 s (port {port})");
                return 2;
            }

            // Warm-up: bursts of orders drive framing, parsing, validation, the session's receive and send, the
            // applications, the store and the sockets on every thread, until the JIT has nothing left to compile.
            long orderNumber = 0;
            var warm = host.WarmUp(_ =>
            {
                for (int i = 0; i < options.WarmUpBurst; i++)
                {
                    if (client.Outstanding >= 256 && !WaitForFills(client, TimeSpan.FromSeconds(10), throwOnTimeout: false) && client.Outstanding >= 256)
                    {
                        throw new TimeoutException($"{client.Outstanding} warm-up orders unanswered after 10 s: is the acceptor rejecting them? (see --log)");
                    }

                    if (!client.SendOrder(++orderNumber))
                    {
                        throw new InvalidOperationException("the client session refused an order during warm-up");
                    }

                    load.RefreshAllocatedBytes();
                }

                WaitForFills(client, TimeSpan.FromSeconds(10));
            });
            long warmUpOrders = client.Sent;
            output.WriteLine(string.Create(CultureInfo.InvariantCulture,
                $"startup: sessions logged on on 127.0.0.1:{port}; warm-up {warm.Duration.TotalMilliseconds:F0} ms, {warm.Rounds} rounds of {options.WarmUpBurst} orders, {warm.MethodsCompiled} methods compiled, settled: {(warm.Settled ? "yes" : "NO")}; startup total {startup.Elapsed.TotalSeconds:F1} s"));

            // The pacing loop is compiled now, not at its first call in the continuous phase.
            RuntimeHelpers.PrepareMethod(typeof(LoadRun).GetMethod(nameof(SendSteadily), BindingFlags.NonPublic | BindingFlags.Static)!.MethodHandle);
            bool region = host.EnterContinuous();
            if (options.NoGcRegionBytes > 0 && !region)
            {
                output.WriteLine("continuous: the no-GC region could not be started (budget too large for this runtime); running without the tripwire");
            }

            // Continuous: orders due by now are sent each millisecond (a steady rate, paced without spinning).
            long sentBefore = client.Sent;
            long started = Stopwatch.GetTimestamp();
            long refused = SendSteadily(client, load, options.Rate, (long)(options.Seconds * Stopwatch.Frequency), ref orderNumber);
            var sendingTime = Stopwatch.GetElapsedTime(started);
            bool drained = WaitForFills(client, TimeSpan.FromSeconds(5), throwOnTimeout: false);
            load.RefreshAllocatedBytes();
            var report = host.Shutdown();

            // Shutdown: allocation is allowed again.
            long sent = client.Sent - sentBefore;
            var c = report.Continuous;
            output.WriteLine(string.Create(CultureInfo.InvariantCulture,
                $"continuous: {sent:N0} orders in {sendingTime.TotalSeconds:F1} s = {sent / sendingTime.TotalSeconds:N0} orders/s (asked {options.Rate:N0}), {client.Filled - warmUpOrders:N0} fills, refused {refused:N0}, bad reports {client.BadReports}, all answered: {(drained ? "yes" : "NO")}"));
            output.WriteLine(LatencyTable.Format(
                host.Monitor.Totals(EnginePhase.Continuous, LatencyChannel.Send),
                host.Monitor.Totals(EnginePhase.Continuous, LatencyChannel.Receive),
                sendingTime));
            output.WriteLine(string.Create(CultureInfo.InvariantCulture,
                $"gc during continuous: gen0 {c.Gen0Collections}, gen1 {c.Gen1Collections}, gen2 {c.Gen2Collections}; allocated {c.AllocatedBytes:N0} bytes (whole process), {c.EngineThreadsAllocatedBytes:N0} by engine threads{(c.NoGcRegionRequested ? $"; no-GC region held: {(c.NoGcRegionHeld ? "yes" : "NO")}" : "")}"));
            GC.KeepAlive(matcher.LastOrderText);
            bool clean = c.NoGarbageCollections && c.AllocatedBytes == 0 && (!c.NoGcRegionRequested || c.NoGcRegionHeld);
            output.WriteLine(clean ? "result: OK" : "result: ALLOCATED IN THE CONTINUOUS PHASE");
            return clean ? 0 : 1;
        }

        /// <summary>
        /// The pacing loop of the continuous phase. Compiled optimized at once: a loop first run in the continuous
        /// phase would otherwise be moved to optimized code there by on-stack replacement, which allocates.
        /// </summary>
        [MethodImpl(MethodImplOptions.NoInlining | MethodImplOptions.AggressiveOptimization)]
        private static long SendSteadily(OrderClient client, EngineThreadStats thread, int rate, long durationTicks, ref long orderNumber)
        {
            long sentBefore = client.Sent;
            long started = Stopwatch.GetTimestamp();
            long refused = 0;
            while (true)
            {
                long elapsed = Stopwatch.GetTimestamp() - started;
                if (elapsed >= durationTicks)
                {
                    return refused;
                }

                long due = (long)((double)elapsed / Stopwatch.Frequency * rate);
                while (client.Sent - sentBefore + refused < due)
                {
                    if (!client.SendOrder(++orderNumber))
                    {
                        refused++;
                    }
                }

                thread.RefreshAllocatedBytes();
                Thread.Sleep(1);
            }
        }

        private static bool WaitForFills(OrderClient client, TimeSpan timeout, bool throwOnTimeout = true)
        {
            long deadline = Stopwatch.GetTimestamp() + (long)(timeout.TotalSeconds * Stopwatch.Frequency);
            while (client.Outstanding > 0)
            {
                if (Stopwatch.GetTimestamp() > deadline)
                {
                    if (throwOnTimeout)
                    {
                        throw new TimeoutException($"{client.Outstanding} orders unanswered after {timeout.TotalSeconds} s");
                    }

                    return false;
                }

                Thread.Sleep(1);
            }

            return true;
        }

        private static int FreeLoopbackPort()
        {
            using var probe = new Socket(AddressFamily.InterNetwork, SocketType.Stream, ProtocolType.Tcp);
            probe.Bind(new IPEndPoint(IPAddress.Loopback, 0));
            return ((IPEndPoint)probe.LocalEndPoint!).Port;
        }

        /// <summary>Both sessions, sized for the run: the stores hold every message of it, the pools bound what is in flight.</summary>
        internal static string Settings(LoadOptions options, int port)
        {
            long messages = (long)(options.Rate * (options.Seconds + 10) * 1.2) + 100L * options.WarmUpBurst;
            int maxMessages = (int)Math.Min(messages, 1 << 28);
            int maxBytes = (int)Math.Min(messages * 320, int.MaxValue);
            return string.Create(CultureInfo.InvariantCulture, $"""
                [DEFAULT]
                BeginString=FIX.4.4
                StartTime=00:00:00
                EndTime=00:00:00
                HeartBtInt=30
                ResetOnLogon=Y
                StoreType=express
                StoreMaxMessages={maxMessages}
                StoreMaxBytes={maxBytes}
                MaxMessageSize=8192
                BufferPoolSize=64
                [SESSION]
                ConnectionType=acceptor
                SenderCompID=BROKER
                TargetCompID=CLIENT
                SocketAcceptHost=127.0.0.1
                SocketAcceptPort={port}
                [SESSION]
                ConnectionType=initiator
                SenderCompID=CLIENT
                TargetCompID=BROKER
                SocketConnectHost=127.0.0.1
                SocketConnectPort={port}
                ReconnectInterval=1
                """);
        }
    }
}
