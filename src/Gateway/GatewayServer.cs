using System.Globalization;
using System.Text;
using RapidFix.Engine.Configuration;
using RapidFix.Engine.Diagnostics;
using RapidFix.Engine.Hosting;
using RapidFix.Engine.Sessions;

namespace RapidFix.Gateway;

/// <summary>
/// The gateway of scaled-out matching services (docs/scale-out.md), in the engine host's three phases. Startup
/// checks that the services own every partition exactly once, writes the sessions' settings (one acceptor session
/// per participant; one initiator session per participant per service, SenderCompID = the participant, stores in a
/// folder per service, SendWhileNotLoggedOn=Store so that a service that is down gets what was held for it on the
/// resend after its logon), starts the engine and the forwarder thread. In the continuous phase nothing allocates:
/// a participant's message is copied once into the forward ring and sent on by the forwarder thread with its body
/// unchanged; an answer goes from the service's session to the participant's with its body unchanged.
/// </summary>
public sealed class GatewayServer : IDisposable
{
    private readonly GatewayOptions _options;
    private readonly int[] _owner;
    private readonly ServiceSide[][] _sides;
    private readonly FixSession[] _participantSessions = [];
    private readonly FixSession[][] _serviceSessions = [];
    private readonly EngineHost _host;
    private readonly EngineLog _log;
    private readonly Stream? _logStream;
    private readonly Thread _forwarder;
    private readonly ManualResetEventSlim _work = new(false);
    private readonly bool[] _unflushed; // per (service, participant) session: deferred messages wait for FlushForwarded
    private volatile bool _stopping;
    private long _forwarded;
    private long _refusedDown;
    private long _forwardFailures;
    private long _answers;
    private long _answerFlushes;
    private long _answerFailures;
    private bool _warmedUp;
    private long _compiledAtPhase = -1;
    private long _compiledInPhase = -1;

    private GatewayServer(GatewayOptions options, int[] owner, TextWriter output)
    {
        _options = options;
        _owner = owner;
        Ring = new ForwardRing(options.ForwardRingBytes);
        int participants = options.Participants.Count;
        _sides = new ServiceSide[options.Services.Count][];
        for (int k = 0; k < _sides.Length; k++)
        {
            _sides[k] = new ServiceSide[participants];
            for (int p = 0; p < participants; p++)
            {
                _sides[k][p] = new ServiceSide(this, k, p, options.RefSeqNumWindow, MaxMessageSize);
            }
        }

        var participantApps = new ParticipantSide[participants];
        for (int p = 0; p < participants; p++)
        {
            participantApps[p] = new ParticipantSide(this, p);
        }

        var settings = SettingsFile.Parse(Settings(options), "gateway");
        foreach (var warning in settings.Warnings)
        {
            output.WriteLine(warning);
        }

        if (options.LogPath is not null)
        {
            _logStream = new FileStream(options.LogPath, FileMode.Append, FileAccess.Write, FileShare.Read);
        }

        _log = new EngineLog(_logStream ?? Console.OpenStandardOutput());
        try
        {
            // Sessions in the settings' order: the participants' acceptor sessions, then service by service.
            _host = EngineHost.Start(settings, s =>
            {
                int index = IndexOf(settings, s);
                return index < participants ? participantApps[index] : _sides[(index - participants) / participants][(index - participants) % participants];
            }, new EngineHostOptions { Name = options.HostName }, _log);
        }
        catch
        {
            _log.Dispose();
            _logStream?.Dispose();
            throw;
        }

        _participantSessions = new FixSession[participants];
        _serviceSessions = new FixSession[_sides.Length][];
        for (int p = 0; p < participants; p++)
        {
            _participantSessions[p] = _host.Sessions[p];
        }

        for (int k = 0; k < _sides.Length; k++)
        {
            _serviceSessions[k] = new FixSession[participants];
            for (int p = 0; p < participants; p++)
            {
                _serviceSessions[k][p] = _host.Sessions[participants + (k * participants) + p];
            }
        }

        _unflushed = new bool[_sides.Length * participants];
        _forwarder = new Thread(Forward) { IsBackground = true, Name = "gateway forwarder" };
        _forwarder.Start();
    }

    /// <summary>Records the forwarder sends before it flushes (a batch: one store wait per session for all of them).</summary>
    internal const int ForwardBatch = 512;

    /// <summary>The pause after the services' logons before <see cref="WaitForServices"/> returns (connection set-up ends).</summary>
    internal static readonly TimeSpan SettleAfterLogons = TimeSpan.FromSeconds(1);

    /// <summary>MaxMessageSize of every session: the matching service's largest answer fits.</summary>
    public const int MaxMessageSize = 16 * 1024;

    /// <summary>The engine host (sessions, phases, counters).</summary>
    public EngineHost Host => _host;

    /// <summary>The participants' acceptor port.</summary>
    public int Port => _host.Engine.Acceptors.Count > 0 ? _host.Engine.Acceptors[0].LocalEndPoint.Port : 0;

    /// <summary>Partitions in all.</summary>
    public int Partitions => _owner.Length;

    /// <summary>A snapshot of the gateway's counters.</summary>
    public GatewayCounters Counters
    {
        get
        {
            long untranslated = 0, rewritten = 0;
            foreach (var sides in _sides)
            {
                foreach (var side in sides)
                {
                    untranslated += side.Untranslated;
                    rewritten += side.Rewritten;
                }
            }

            return new GatewayCounters(Interlocked.Read(ref _forwarded), Ring.Refused, Interlocked.Read(ref _refusedDown), Interlocked.Read(ref _forwardFailures),
                Interlocked.Read(ref _answers), Interlocked.Read(ref _answerFailures), untranslated, rewritten);
        }
    }

    internal ForwardRing Ring { get; }

    /// <summary>Bytes the session stores' flusher threads allocated (they are not engine threads; the zero-GC tests read them).</summary>
    public long FlusherAllocatedBytes
    {
        get
        {
            long bytes = 0;
            var sessions = _host.Sessions;
            for (int i = 0; i < sessions.Count; i++) // not foreach: the list's enumerator would be boxed
            {
                bytes += sessions[i].Store.Counters.FlusherAllocatedBytes;
            }

            return bytes;
        }
    }

    /// <summary>The session to service <paramref name="service"/> on behalf of participant <paramref name="participant"/>.</summary>
    public FixSession ServiceSession(int service, int participant) => _serviceSessions[service][participant];

    /// <summary>Participant <paramref name="participant"/>'s acceptor session.</summary>
    public FixSession ParticipantSession(int participant) => _participantSessions[participant];

    /// <summary>
    /// Startup: checks the options (every partition owned by exactly one service; otherwise
    /// <see cref="ConfigurationException"/>), opens the stores and the acceptor, starts connecting to the services.
    /// </summary>
    public static GatewayServer Start(GatewayOptions options, TextWriter? output = null)
    {
        ArgumentNullException.ThrowIfNull(options);
        output ??= TextWriter.Null;
        var owner = PartitionMap(options);
        var server = new GatewayServer(options, owner, output);
        output.WriteLine($"gateway: {options.Participants.Count} participants on port {server.Port}, {options.Services.Count} services, {owner.Length} partitions");
        return server;
    }

    /// <summary>
    /// Waits up to <paramref name="timeout"/> for every session to every service to log on (startup: connecting
    /// allocates, as the engine's connection set-up does; a measured run connects first). False when one did not.
    /// </summary>
    public bool WaitForServices(TimeSpan timeout)
    {
        if (!WaitUntil(() => _serviceSessions.All(sessions => sessions.All(s => s.IsLoggedOn)), timeout))
        {
            return false;
        }

        // Right after the logons something off the engine's threads allocated once, 24 bytes, in about half the idle
        // runs that entered the continuous phase at once (never after this pause): the initiators' threads are the
        // likely ones (each looks at its new connection every 200 ms; a first blocking wait creates its lock object).
        Thread.Sleep(SettleAfterLogons);
        return true;
    }

    /// <summary>
    /// Waits up to <paramref name="timeout"/> for every participant to log on (startup: an accepted connection's
    /// set-up allocates; a measured run connects first), then for the acceptor's connection threads to settle (each
    /// hand-over of a connection makes the acceptor start a spare thread, which allocates: 24 bytes to 12 KB of the
    /// continuous phase when it began right after the last logon). False when a participant did not log on.
    /// </summary>
    public bool WaitForParticipants(TimeSpan timeout)
    {
        var started = System.Diagnostics.Stopwatch.StartNew();
        if (!WaitUntil(() => _participantSessions.All(s => s.IsLoggedOn), timeout))
        {
            return false;
        }

        var left = timeout - started.Elapsed;
        WaitUntil(_host.AcceptorThreadsSettled, left > TimeSpan.Zero ? left : TimeSpan.Zero);
        return true;
    }

    /// <summary>
    /// Warm-up (startup, after the waits for the services and the participants): drives every path of the continuous
    /// phase through a scratch gateway of the same shape, with scratch stand-in services and participants of its own
    /// over loopback (<see cref="GatewayWarmUp"/>), in rounds until the JIT has compiled nothing for a few rounds
    /// (<see cref="EngineHost.WarmUp"/>). The live gateway's sessions, stores, services and participants see none of
    /// it; the scratch folder is deleted. Null (the reason written to <paramref name="output"/>) when the scratch
    /// gateway could not start: the first messages of the phase then compile the path.
    /// </summary>
    public WarmUpReport? WarmUp(TextWriter? output = null)
    {
        output ??= TextWriter.Null;
        using var scratch = GatewayWarmUp.Start(_options, out string why);
        if (scratch is null)
        {
            output.WriteLine($"gateway: no warm-up: {why}");
            return null;
        }

        using var tick = new ManualResetEvent(false);
        var report = _host.WarmUp(round =>
        {
            scratch.Round(round);
            // The live host's counters, as the phase switch and the summaries read them (every engine thread's
            // allocated bytes): read in every round, so that they are tiered up while the JIT count is watched (read
            // only before the switch, the switch's own reads tiered one of them up inside the phase). And what the
            // engine's threads call once a second reaches the tier-up count (30 calls) half a minute after the start,
            // inside the phase of a gateway whose warm-up was shorter (both seen): the monitor's summary
            // (EngineMonitor.EnsureTracked, through Flush) and the acceptors' thread starter (WaitHandle.WaitOne(int)).
            for (int i = 0; i < 8; i++)
            {
                _host.ReadCounters(out _);
                _host.Monitor.Flush();
                tick.WaitOne(0);
            }
        });
        var c = scratch.Counters;
        _warmedUp = true;
        output.WriteLine($"gateway: warm-up {report.Duration.TotalSeconds:F1} s, {report.Rounds} rounds, {report.MethodsCompiled} methods compiled, " +
                         $"{(report.Settled ? "settled" : "not settled")}; scratch gateway forwarded {c.Forwarded}, answers {c.Answers} " +
                         $"({c.RefSeqNumRewritten} RefSeqNum rewritten, {c.RefSeqNumUntranslated} untranslated), refused: ring full {c.RefusedRingFull}, " +
                         $"service down {c.RefusedServiceDown}; {scratch.Outages} service outages; participants received {scratch.Answers}");
        return report;
    }

    /// <summary>
    /// Methods the JIT compiled (any tier) in the continuous phase, from its start to <see cref="EndContinuous"/>;
    /// -1 before that. After the warm-up none of the gateway's path; at most a few of the runtime's own code, which the
    /// phase switch's blocking collection tiers up (docs/scale-out.md, "Warm-up").
    /// </summary>
    public long MethodsCompiledInPhase => Interlocked.Read(ref _compiledInPhase);

    /// <summary>Ends startup: the continuous phase begins (nothing allocates from here on).</summary>
    public bool EnterContinuous()
    {
        // Compiled now, not at its first call at the end of the continuous phase (a first call may load what it needs).
        System.Runtime.CompilerServices.RuntimeHelpers.PrepareMethod(typeof(GatewayServer).GetMethod(nameof(EndContinuous))!.MethodHandle);
        if (_warmedUp)
        {
            // As the matching service does: the counters the switch and the summary read are read until tiered up;
            // what the scratch gateway left to the finalizer (threads, files, sockets) is finalized now, and the JIT
            // finishes the tier-ups startup's last calls queued (the scratch's tear-down): in startup, not in the phase.
            for (int i = 0; i < 64; i++)
            {
                _host.ReadCounters(out _);
                _ = Counters;
            }

            GC.Collect();
            GC.WaitForPendingFinalizers();
            GC.Collect();
            EngineHost.SettleJit(TimeSpan.FromMilliseconds(250), 3, TimeSpan.FromSeconds(5));
        }

        // The phase switch reads the calling thread's engine-thread statistics right after it takes the phase's
        // allocation baseline: a thread's first touch of that thread-static allocates its statics block (32 bytes).
        // Touched here, in startup.
        RapidFix.Pools.Diagnostics.EngineThreads.RefreshCurrentThread();
        _ = System.Runtime.JitInfo.GetCompiledMethodCount();
        bool entered = _host.EnterContinuous();
        Interlocked.Exchange(ref _compiledAtPhase, System.Runtime.JitInfo.GetCompiledMethodCount());
        return entered;
    }

    /// <summary>
    /// Ends the continuous phase (its report is taken now; <see cref="Stop"/> returns it): call it first when the
    /// gateway is to stop, before reading anything for the final report.
    /// </summary>
    public void EndContinuous()
    {
        if (_host.Phases.Phase == RapidFix.Pools.Phases.EnginePhase.Continuous)
        {
            long compiled = System.Runtime.JitInfo.GetCompiledMethodCount();
            _host.Monitor.Flush();
            _host.Phases.EnterShutdown();
            Interlocked.Exchange(ref _compiledInPhase, compiled - Interlocked.Read(ref _compiledAtPhase));
        }
    }

    /// <summary>Shutdown: stops the forwarder (after it has sent what the ring holds), logs the sessions out; returns the phase report.</summary>
    public EngineRunReport Stop()
    {
        EndContinuous();
        _stopping = true;
        _work.Set();
        _forwarder.Join();
        var report = _host.Shutdown();
        _log.Dispose();
        _logStream?.Dispose();
        _work.Dispose();
        return report;
    }

    public void Dispose()
    {
        if (!_stopping)
        {
            Stop();
        }
    }

    /// <summary>The service that owns <paramref name="partition"/>.</summary>
    internal int OwnerOf(int partition) => _owner[partition];

    /// <summary>
    /// Whether a message for <paramref name="service"/> may be taken: always while the participant's session to it is
    /// logged on; while it is not, up to <see cref="GatewayOptions.HoldPerParticipant"/> messages (counted refusal after).
    /// </summary>
    internal bool MayHold(int service, int participant)
    {
        if (_serviceSessions[service][participant].IsLoggedOn || _sides[service][participant].Held < _options.HoldPerParticipant)
        {
            return true;
        }

        Interlocked.Increment(ref _refusedDown);
        return false;
    }

    internal void WakeForwarder() => _work.Set();

    /// <summary>
    /// An answer of <paramref name="service"/> for <paramref name="participant"/> (its connection thread, under that
    /// session's lock). With <see cref="GatewayOptions.BatchAnswers"/> it is stored without waiting for the disk
    /// (<see cref="FixSession.SendDeferred(ReadOnlySpan{byte}, ReadOnlySpan{byte})"/>) and true is returned: the caller flushes the participant's session once
    /// at the end of the read that brought it (<see cref="FlushAnswers"/>). Otherwise it is sent at once (one store
    /// wait each), and false is returned.
    /// </summary>
    internal bool Answer(int service, int participant, ReadOnlySpan<byte> msgType, ReadOnlySpan<byte> body)
    {
        // Taking the participant's lock under the service session's is the one lock order of the gateway: the
        // participant's connection thread never waits for a service session (it only writes into the ring).
        var session = _participantSessions[participant];
        bool deferred = false;
        SendResult result;
        if (_options.BatchAnswers)
        {
            result = session.SendDeferred(msgType, body);
            deferred = result == SendResult.Sent;
            if (result == SendResult.NotLoggedOn)
            {
                // The participant is not connected: stored (SendWhileNotLoggedOn=Store), its resend after its logon delivers it.
                result = session.Send(msgType, body);
            }
        }
        else
        {
            result = session.Send(msgType, body);
        }

        if (result is SendResult.Sent or SendResult.Stored or SendResult.TransportFailed)
        {
            // TransportFailed: stored, and the participant's resend after its next logon delivers it.
            Interlocked.Increment(ref _answers);
        }
        else
        {
            Interlocked.Increment(ref _answerFailures);
            _log.Write(LogLevel.Error, LogEvent.StoreWriteFailed, session.LogIndex, (long)result, service);
        }

        return deferred;
    }

    /// <summary>
    /// The end of a read on a service session that deferred answers for <paramref name="participant"/> (that
    /// connection's thread, outside any session's lock): one store wait for all of them, then as few socket writes as
    /// fit. The participant's order is its session's MsgSeqNum order, whichever service's thread writes the batch.
    /// </summary>
    internal void FlushAnswers(int participant)
    {
        Interlocked.Increment(ref _answerFlushes);
        _participantSessions[participant].FlushDeferred();
    }

    /// <summary>Flushes of deferred answers at the end of a service connection's read (batched answers): at most one a read.</summary>
    internal long AnswerFlushes => Interlocked.Read(ref _answerFlushes);

    // The forwarder thread: the ring's records in order, each stored on the owning service's session for its
    // participant without waiting for the disk (SendDeferred), then one flush per session per batch: no message
    // reaches a service before it is durable, but a batch of messages costs one wait, not one each. A service that is
    // down gets its messages stored (Send: SendWhileNotLoggedOn=Store); its logon's resend delivers them.
    private void Forward()
    {
        // Counted with the engine's threads (startup: registering allocates); it publishes its count at each turn, as
        // a connection thread does (it did not: what it allocated showed in the process's count only).
        var stats = RapidFix.Pools.Diagnostics.EngineThreads.Register();
        while (true)
        {
            stats.RefreshAllocatedBytes();
            int batch = 0;
            while (batch < ForwardBatch && Ring.TryPeek(out var record))
            {
                ForwardOne(record);
                Ring.Release(record.Size);
                batch++;
            }

            if (batch > 0)
            {
                FlushForwarded();
                continue;
            }

            if (_stopping)
            {
                return;
            }

            _work.Reset();
            if (Ring.Used == 0)
            {
                _work.Wait(50);
            }
        }
    }

    private void ForwardOne(in ForwardRecord record)
    {
        var side = _sides[record.Service][record.Participant];
        var session = _serviceSessions[record.Service][record.Participant];
        // The number the message will take, known before the send (the deferred send calls no hook), checked after it.
        int next = session.NextSenderMsgSeqNum;
        side.Remember(next, next + 1, record.ParticipantSeq);
        var result = session.SendDeferred(record.MsgType, record.Body);
        if (result == SendResult.Sent)
        {
            _unflushed[(record.Service * _participantSessions.Length) + record.Participant] = true;
        }
        else if (result == SendResult.NotLoggedOn)
        {
            // The service is down: held in the session's store (SendWhileNotLoggedOn=Store), resent after its logon.
            result = session.Send(record.MsgType, record.Body);
        }

        int after = session.NextSenderMsgSeqNum;
        if (after > next + 1)
        {
            side.Remember(next, after, record.ParticipantSeq); // a session message took a number meanwhile
        }

        switch (result)
        {
            case SendResult.Sent:
            case SendResult.TransportFailed: // stored; the service's resend request after the reconnect delivers it
                Interlocked.Increment(ref _forwarded);
                break;
            case SendResult.Stored:
                side.NoteHeld();
                Interlocked.Increment(ref _forwarded);
                break;
            default:
                // The store refused it (full: sized too small for the day) or it is too large: the participant
                // was told Accept already, so this is loud: counted and logged with the session.
                Interlocked.Increment(ref _forwardFailures);
                _log.Write(LogLevel.Error, LogEvent.StoreWriteFailed, session.LogIndex, (long)result, record.ParticipantSeq);
                break;
        }
    }

    // After a batch: each session that took deferred messages waits once for its store, then writes them. One that
    // cannot (disconnected) keeps them stored; the service's resend request after the reconnect delivers them.
    private void FlushForwarded()
    {
        // Every store's flush asked for first (a batched send's messages start none of their own): the flushes run
        // together, not one after another as each session's wait comes.
        for (int i = 0; i < _unflushed.Length; i++)
        {
            if (_unflushed[i])
            {
                _serviceSessions[i / _participantSessions.Length][i % _participantSessions.Length].StartFlushDeferred();
            }
        }

        for (int i = 0; i < _unflushed.Length; i++)
        {
            if (_unflushed[i])
            {
                _unflushed[i] = false;
                _serviceSessions[i / _participantSessions.Length][i % _participantSessions.Length].FlushDeferred();
            }
        }
    }

    private static bool WaitUntil(Func<bool> done, TimeSpan timeout)
    {
        var deadline = System.Diagnostics.Stopwatch.StartNew();
        while (!done())
        {
            if (deadline.Elapsed >= timeout)
            {
                return false;
            }

            Thread.Sleep(20);
        }

        return true;
    }

    // Every partition 0..N-1 owned by exactly one service: a gap would leave trades nowhere, an overlap would split them.
    private static int[] PartitionMap(GatewayOptions options)
    {
        if (options.Participants.Count == 0)
        {
            throw new ConfigurationException("the gateway needs at least one participant");
        }

        if (options.Services.Count == 0)
        {
            throw new ConfigurationException("the gateway needs at least one matching service");
        }

        if (options.Partitions < 1)
        {
            throw new ConfigurationException($"Partitions={options.Partitions}: at least one partition is needed");
        }

        var owner = new int[options.Partitions];
        Array.Fill(owner, -1);
        for (int k = 0; k < options.Services.Count; k++)
        {
            foreach (int p in options.Services[k].Partitions)
            {
                if (p < 0 || p >= owner.Length)
                {
                    throw new ConfigurationException($"service {k + 1} ({options.Services[k].Host}:{options.Services[k].Port}) owns partition {p}, outside 0..{owner.Length - 1}");
                }

                if (owner[p] >= 0)
                {
                    throw new ConfigurationException($"partition {p} is owned by services {owner[p] + 1} and {k + 1}: each partition has one owner");
                }

                owner[p] = k;
            }
        }

        int missing = Array.IndexOf(owner, -1);
        if (missing >= 0)
        {
            throw new ConfigurationException($"partition {missing} is owned by no service");
        }

        return owner;
    }

    // The sessions of both sides as a QuickFIX-style settings file (startup).
    private static string Settings(GatewayOptions o)
    {
        var text = new StringBuilder();
        var c = CultureInfo.InvariantCulture;
        text.AppendLine("[DEFAULT]");
        text.AppendLine("BeginString=FIX.4.4");
        text.AppendLine("StartTime=00:00:00");
        text.AppendLine("EndTime=00:00:00");
        text.AppendLine("PersistMessages=Y");
        text.AppendLine("StoreSyncBeforeSend=Y");
        text.AppendLine("SendWhileNotLoggedOn=Store");
        text.AppendLine(c, $"StoreFlushPolicy={o.StoreFlushPolicy}");
        text.AppendLine(c, $"StoreMaxMessages={o.StoreMaxMessages}");
        text.AppendLine(c, $"StoreMaxBytes={o.StoreMaxBytes}");
        text.AppendLine(c, $"MaxMessageSize={MaxMessageSize}");
        text.AppendLine("OutboundQueueDepth=65536");
        foreach (var participant in o.Participants)
        {
            text.AppendLine("[SESSION]");
            text.AppendLine("ConnectionType=acceptor");
            if (o.AcceptHost is not null)
            {
                text.AppendLine(c, $"SocketAcceptHost={o.AcceptHost}");
            }

            text.AppendLine(c, $"SocketAcceptPort={o.AcceptPort}");
            text.AppendLine(c, $"FileStorePath={Path.Combine(o.DataDirectory, "participants")}");
            text.AppendLine(c, $"SenderCompID={o.CompId}");
            text.AppendLine(c, $"TargetCompID={participant}");
        }

        for (int k = 0; k < o.Services.Count; k++)
        {
            var service = o.Services[k];
            foreach (var participant in o.Participants)
            {
                text.AppendLine("[SESSION]");
                text.AppendLine("ConnectionType=initiator");
                text.AppendLine(c, $"SocketConnectHost={service.Host}");
                text.AppendLine(c, $"SocketConnectPort={service.Port}");
                text.AppendLine(c, $"ReconnectInterval={o.ReconnectSeconds}");
                text.AppendLine(c, $"HeartBtInt={o.HeartBtInt}");
                text.AppendLine(c, $"FileStorePath={Path.Combine(o.DataDirectory, "service-" + (k + 1).ToString(c))}");
                text.AppendLine(c, $"SessionQualifier=S{k + 1}");
                text.AppendLine(c, $"SenderCompID={participant}");
                text.AppendLine(c, $"TargetCompID={o.CompId}");
            }
        }

        return text.ToString();
    }

    private static int IndexOf(SettingsFile settings, SessionSettings session)
    {
        for (int i = 0; i < settings.Sessions.Count; i++)
        {
            if (ReferenceEquals(settings.Sessions[i], session))
            {
                return i;
            }
        }

        throw new InvalidOperationException("unknown session " + session.SessionId);
    }
}

/// <summary>The gateway's counters.</summary>
/// <param name="Forwarded">Participants' messages handed to a service's session (sent, or stored while it was down).</param>
/// <param name="RefusedRingFull">Refused with BusinessMessageReject 4: the forward ring was full.</param>
/// <param name="RefusedServiceDown">Refused with BusinessMessageReject 4: the owning service was down and the participant's hold was full.</param>
/// <param name="ForwardFailures">Taken from a participant but refused by the service session's store (sized too small): logged.</param>
/// <param name="Answers">Services' answers handed to a participant's session.</param>
/// <param name="AnswerFailures">Answers a participant's session refused (store full): logged.</param>
/// <param name="RefSeqNumUntranslated">Answers whose RefSeqNum was older than the gateway's window.</param>
/// <param name="RefSeqNumRewritten">Answers whose RefSeqNum was turned back into the participant's MsgSeqNum.</param>
public readonly record struct GatewayCounters(
    long Forwarded,
    long RefusedRingFull,
    long RefusedServiceDown,
    long ForwardFailures,
    long Answers,
    long AnswerFailures,
    long RefSeqNumUntranslated,
    long RefSeqNumRewritten);
