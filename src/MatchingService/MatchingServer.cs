using System.Text;
using RapidFix.Engine.Codec;
using RapidFix.Engine.Configuration;
using RapidFix.Engine.Dictionary;
using RapidFix.Engine.Diagnostics;
using RapidFix.Engine.Fields;
using RapidFix.Engine.Hosting;
using RapidFix.Engine.Sessions;
using RapidFix.Engine.Store;

namespace RapidFix.MatchingService;

/// <summary>
/// The matching service in the engine host's three phases. <see cref="Start"/> is startup: settings checked, static
/// data loaded, the participants' outbound stores counted, the input journal recovered and replayed through a fresh
/// matcher (answers the stores already hold are not sent again: <see cref="OutputDispatcher"/>), the sessions'
/// expected sequence numbers brought back to what the journal holds, then the sockets opened, the matcher thread
/// started and, optionally, the warm-up (synthetic trades through a scratch matcher); <see cref="EnterContinuous"/>
/// then starts the continuous phase.
/// </summary>
public sealed partial class MatchingServer : IDisposable
{
    /// <summary>The input journal's file name in the data directory.</summary>
    public const string InputJournalFileName = "matching-input.journal";

    private readonly EngineHost _host;
    private readonly EngineLog _log;
    private readonly Stream? _logStream;
    private readonly InputJournal _journal;
    private readonly MatcherThread _thread;
    private readonly OutputDispatcher _dispatcher;
    private readonly InputSequencer _sequencer;
    private readonly ParticipantApplication[] _applications;
    private readonly MatchingCore _core;
    private bool _warmedUp;

    private MatchingServer(EngineHost host, EngineLog log, Stream? logStream, InputJournal journal, MatcherThread thread, OutputDispatcher dispatcher,
        InputSequencer sequencer, ParticipantApplication[] applications, ReplayReport replay, MatchingCore core)
    {
        _core = core;
        _host = host;
        _log = log;
        _logStream = logStream;
        _journal = journal;
        _thread = thread;
        _dispatcher = dispatcher;
        _sequencer = sequencer;
        _applications = applications;
        Replay = replay;
    }

    /// <summary>The engine host (sessions, phases, counters).</summary>
    public EngineHost Host => _host;

    /// <summary>What the replay at startup did.</summary>
    public ReplayReport Replay { get; }

    /// <summary>The acceptor's listening port (the first acceptor's).</summary>
    public int Port => _host.Engine.Acceptors.Count > 0 ? _host.Engine.Acceptors[0].LocalEndPoint.Port : 0;

    /// <summary>A snapshot of the service's counters.</summary>
    public ServiceCounters Counters
    {
        get
        {
            long busy = 0;
            foreach (var app in _applications)
            {
                busy += app.RefusedBusy;
            }

            return new ServiceCounters(_thread.Processed, _thread.Backlog, _dispatcher.Sent, _dispatcher.Suppressed, _dispatcher.Queued,
                _dispatcher.HeldBack, _dispatcher.SendFailures, _sequencer.RingFullCount + _sequencer.JournalRefusedCount, busy,
                _sequencer.AlreadyJournalledCount, _thread.Unparsable, _journal.Count);
        }
    }

    /// <summary>Tests: holds the matcher thread between batches (<see cref="MatcherThread.Held"/>).</summary>
    internal bool MatcherHeld
    {
        get => _thread.Held;
        set => _thread.Held = value;
    }

    /// <summary>Times the connection threads woke the matcher thread (once per read that queued inputs).</summary>
    internal long MatcherWakes => _sequencer.Wakes;

    /// <summary>Bytes the journals' flusher threads allocated (the input journal's and every session store's).</summary>
    public long FlusherAllocatedBytes
    {
        get
        {
            long bytes = _journal.Counters.FlusherAllocatedBytes;
            var sessions = _host.Sessions;
            for (int i = 0; i < sessions.Count; i++) // not foreach: the list's enumerator would be boxed
            {
                bytes += sessions[i].Store.Counters.FlusherAllocatedBytes;
            }

            return bytes;
        }
    }

    /// <summary>The business date the matcher is in (moved by each roll the matcher thread has processed).</summary>
    public int BusinessDate => _core.Matcher.BusinessDate;

    /// <summary>Business-date rolls the matcher thread has processed since startup.</summary>
    public long Rolls => _thread.Rolls;

    /// <summary>Trades and waiting messages the matcher expired (the replay's included).</summary>
    public long Expired => _core.Matcher.Counters.Expired;

    /// <summary>Messages answered with TABLE-FULL because the open-trade table was full (<see cref="ServiceOptions.OpenTrades"/>).</summary>
    internal long TableFull => _core.Matcher.Counters.TableFull;

    /// <summary>The matcher's counters (written by the matcher thread: read from another thread, each value whole, the set not one moment's).</summary>
    internal RapidFix.Matching.MatcherCounters MatcherCounters => _core.Matcher.Counters;

    /// <summary>Trades open in the matcher (see <see cref="MatcherCounters"/>).</summary>
    internal int OpenTrades => _core.Matcher.OpenTrades;

    /// <summary>
    /// Rolls to the next business day now, as the roll time does (journalled among the inputs; the matcher thread
    /// expires what stayed open too long and tells the senders). Returns the new date, or 0 when the ring or the
    /// journal had no room.
    /// </summary>
    public int RollBusinessDate() => _sequencer.SubmitRoll();

    /// <summary>What stopped the matcher thread, or null while it runs.</summary>
    public Exception? Fault => _thread.Fault;

    /// <summary>
    /// Startup. Throws <see cref="ConfigurationException"/> (or <see cref="InvalidDataException"/>) for settings or
    /// static data the service cannot honour, <see cref="StoreException"/> for a journal it cannot open.
    /// </summary>
    public static MatchingServer Start(ServiceOptions options, TextWriter? output = null)
    {
        ArgumentNullException.ThrowIfNull(options);
        output ??= TextWriter.Null;
        var settings = options.LoadSettings();
        foreach (var warning in settings.Warnings)
        {
            output.WriteLine(warning);
        }

        var participants = CheckParticipants(settings);
        var ownership = PartitionOwnership.From(options);
        var reference = MatchingCore.LoadStaticData(options.StaticDataPath);
        string dataDirectory = options.DataDirectory ?? settings.Sessions[0].GetString(SettingKeys.FileStorePath);
        Directory.CreateDirectory(dataDirectory);
        int maxMessageSize = 0;
        var dictionaries = new DataDictionary[participants.Length];
        for (int i = 0; i < participants.Length; i++)
        {
            var sessionOptions = FixSessionOptions.FromSettings(settings.Sessions[i]);
            dictionaries[i] = sessionOptions.Dictionary;
            maxMessageSize = Math.Max(maxMessageSize, sessionOptions.MaxMessageSize);
        }

        var journal = InputJournal.Open(Path.Combine(dataDirectory, InputJournalFileName), FlushPolicy.GroupCommit, options.MaxInputs,
            options.InputJournalBytes, maxMessageSize);
        Stream? logStream = null;
        EngineLog? log = null;
        EngineHost? host = null;
        MatcherThread? thread = null;
        try
        {
            // The outbound stores: how many answers each participant was already given, its generation and the
            // sequence number it is expected to send next. Opened and closed again: the engine opens them for good.
            var stored = new long[participants.Length];
            var generations = new long[participants.Length];
            var refused = new HashSet<int>[participants.Length]; // the MsgSeqNums the session refused (answered, never journalled)
            for (int i = 0; i < participants.Length; i++)
            {
                using var store = MessageStoreFactory.Open(settings.Sessions[i], DateTime.UtcNow);
                generations[i] = store.Generation;
                refused[i] = [];
                foreach (var message in store.GetRange(1, 0))
                {
                    if (ParticipantApplication.IsRefusal(message.Bytes))
                    {
                        refused[i].Add(ParticipantApplication.RefusedSeqNum(message.Bytes));
                    }
                    else if (MatchingCore.IsAnswer(FixMessage.PeekMsgType(message.Bytes)))
                    {
                        stored[i]++;
                    }
                }
            }

            int businessDate = journal.BusinessDate(options.BusinessDate);
            var ring = new InputRing(options.InputRingBytes);
            var dispatcher = new OutputDispatcher(participants.Length, stored, options.PendingBytesPerParticipant, options.PendingMessagesPerParticipant);
            var core = new MatchingCore(reference, participants, businessDate, new RapidFix.Matching.MatcherOptions { ExpiryBusinessDays = options.ExpiryBusinessDays, OpenTrades = options.OpenTrades });
            var replay = ReplayJournal(journal, core, dispatcher, participants, dictionaries, out var sequencerState);
            var threadRef = new MatcherThread[1];
            var sequencer = new InputSequencer(journal, ring, participants, () => threadRef[0].Wake());
            foreach (var (participant, generation, seq) in sequencerState)
            {
                sequencer.NoteRecovered(participant, generation, seq);
            }

            sequencer.NoteBusinessDate(core.Matcher.BusinessDate);

            // A session store may have moved past the last input the journal kept (the journal's tail was not yet
            // durable at the crash): expect the first lost input again, so the session asks the participant to
            // resend it. A message the session refused after the journal's last input (its BusinessMessageReject is
            // in the store: wrong partition, back-pressure, unsupported type) was answered, not lost: asked for again
            // it would be answered twice (and one refused for back-pressure matched after the participant's own
            // resend of it), so the first lost input is the first after the journal's that no stored refusal answers.
            for (int i = 0; i < participants.Length; i++)
            {
                int next = sequencer.HighestJournalled(i, generations[i]) + 1;
                while (refused[i].Contains(next))
                {
                    next++;
                }

                using var store = MessageStoreFactory.Open(settings.Sessions[i], DateTime.UtcNow);
                if (store.NextTargetMsgSeqNum > next)
                {
                    replay = replay with { TargetsLowered = replay.TargetsLowered + 1 };
                    store.SetNextTargetMsgSeqNum(next);
                    store.Flush();
                }
            }

            thread = new MatcherThread(ring, journal, core, dispatcher, dictionaries, TimeSpan.FromSeconds(30), sequencer, options.RollTime);
            threadRef[0] = thread;
            var applications = new ParticipantApplication[participants.Length];
            for (int i = 0; i < participants.Length; i++)
            {
                int index = i;
                applications[i] = new ParticipantApplication(i, sequencer, dispatcher,
                    p => sequencer.HighestJournalled(p, generations[p]) == 0 && dispatcher.ProducedFor(p) == 0 && stored[p] == 0, ownership);
            }

            if (options.LogPath is not null)
            {
                logStream = new FileStream(options.LogPath, FileMode.Append, FileAccess.Write, FileShare.Read);
            }

            log = new EngineLog(logStream ?? Console.OpenStandardOutput());
            host = EngineHost.Start(settings, s => applications[IndexOf(settings, s)], new EngineHostOptions { Name = options.HostName }, log);
            for (int i = 0; i < participants.Length; i++)
            {
                dispatcher.Attach(i, host.Sessions[i]);
            }

            thread.Start();
            if (options.WaitForLogons > TimeSpan.Zero)
            {
                output.WriteLine($"matching service: waiting up to {options.WaitForLogons.TotalSeconds:F0} s for {participants.Length} participants to log on");
                output.Flush();
                if (!host.WaitForLogons(options.WaitForLogons))
                {
                    output.WriteLine("matching service: not every participant logged on; continuing (later connections allocate in the continuous phase)");
                }
            }

            if (options.WarmUp)
            {
                // Trades of every kind through a scratch service over loopback sessions (its stores and journal in a
                // scratch directory, deleted after), and synthetic trades through scratch matchers (both ways an
                // input is matched): the live matcher, the journal and the stores never see them.
                var messages = MatchingCore.WarmUpMessages(reference, options.StaticDataPath, participants, businessDate, 200);
                var queue = new OutputQueue(MatchingCore.MaxAnswerBytesPerInput, MatchingCore.MaxAnswersPerInput);
                var view = new FixMessage(MatchingCore.InputView);
                var first = settings.Sessions[0].SessionId;
                using var sessions = SessionWarmUp.Start(options, reference, participants, first.SenderCompId, first.BeginString, businessDate, dataDirectory,
                    out string why);
                if (sessions is null)
                {
                    output.WriteLine($"matching service: the warm-up covers the matcher only, not the connection paths: {why}");
                }

                var report = host.WarmUp(round =>
                {
                    sessions?.Round(round);
                    MatchingCore.WarmUpRound(reference, participants, businessDate, messages, dictionaries, queue, view);
                });
                output.WriteLine($"matching service: warm-up {report.Duration.TotalSeconds:F1} s, {report.Rounds} rounds, " +
                                 $"{report.MethodsCompiled} methods compiled, {(report.Settled ? "settled" : "not settled")}" +
                                 (sessions is null ? "" : $"; scratch service matched {sessions.Matched} inputs, sent {sessions.Answers} answers, {sessions.Refused} refusals"));
            }

            output.WriteLine(
                $"matching service: {participants.Length} participants on port {(host.Engine.Acceptors.Count > 0 ? host.Engine.Acceptors[0].LocalEndPoint.Port : 0)}; " +
                $"journal: {replay.Inputs} inputs replayed ({replay.AnswersSuppressed} answers already delivered, {replay.AnswersToSend} to send)");
            return new MatchingServer(host, log, logStream, journal, thread, dispatcher, sequencer, applications, replay, core)
            {
                _ownership = ownership,
                _warmedUp = options.WarmUp,
            };
        }
        catch
        {
            thread?.Dispose();
            host?.Dispose();
            log?.Dispose();
            logStream?.Dispose();
            journal.Dispose();
            throw;
        }
    }

    /// <summary>
    /// Ends startup: everything startup left behind is collected and the continuous phase begins (from here on the
    /// process must not allocate: print nothing, create nothing).
    /// </summary>
    public bool EnterContinuous()
    {
        // Compiled now, not at its first call at the end of the continuous phase (a first call may load what it needs).
        System.Runtime.CompilerServices.RuntimeHelpers.PrepareMethod(
            typeof(MatchingServer).GetMethod(nameof(EndContinuous))!.MethodHandle);
        if (_warmedUp)
        {
            // The counters the switch and the summary thread read (every engine thread's allocated bytes, the pools)
            // are read here until they are tiered up: called at the switch for the first time in numbers, they
            // would be compiled again just after it.
            for (int i = 0; i < 64; i++)
            {
                _host.ReadCounters(out _);
            }

            // What the warm-up's scratch service left to the finalizer (its threads, files, sockets) is finalized now,
            // and the JIT finishes the tier-ups that startup's last calls queued (the warm-up's tear-down, the stats
            // publisher's first copies, the reads above): in startup, not in the phase.
            GC.Collect();
            GC.WaitForPendingFinalizers();
            GC.Collect();
            EngineHost.SettleJit(TimeSpan.FromMilliseconds(250), 3, TimeSpan.FromSeconds(5));
        }

        // The phase switch reads the calling thread's engine-thread statistics right after it takes the phase's
        // allocation baseline (and again at its end): a thread's first touch of a thread-static allocates that
        // thread's statics block (32 bytes), which was the continuous phase's only allocation with no participant.
        RapidFix.Pools.Diagnostics.EngineThreads.RefreshCurrentThread();
        return _host.EnterContinuous();
    }

    /// <summary>
    /// Ends the continuous phase (its report is taken now; <see cref="Stop"/> returns it): call it first when the
    /// service is to stop, before reading anything for the final report.
    /// </summary>
    public void EndContinuous()
    {
        if (_host.Phases.Phase == RapidFix.Pools.Phases.EnginePhase.Continuous)
        {
            _host.Monitor.Flush();
            _host.Phases.EnterShutdown();
        }
    }

    /// <summary>Shutdown: stops the matcher thread, logs the sessions out, closes the journals; returns the phase report.</summary>
    public EngineRunReport Stop()
    {
        // The continuous phase ends first: stopping the matcher thread is shutdown work (a thread's end may allocate).
        EndContinuous();
        _thread.Dispose();
        var report = _host.Shutdown();
        _journal.Dispose();
        _log.Dispose();
        _logStream?.Dispose();
        return report;
    }

    public void Dispose() => Stop();

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

    // Every session an acceptor with a journal store, no sequence resets, durable before send: what the restart
    // rule needs. Returns each participant's CompID (the session's TargetCompID).
    private static byte[][] CheckParticipants(SettingsFile settings)
    {
        if (settings.Sessions.Count == 0)
        {
            throw new ConfigurationException("the settings define no [SESSION]: one acceptor session per participant is needed", settings.FilePath);
        }

        var ids = new byte[settings.Sessions.Count][];
        for (int i = 0; i < ids.Length; i++)
        {
            var s = settings.Sessions[i];
            if (!s.IsAcceptor)
            {
                throw s.Error(SettingKeys.ConnectionType, Value(s, SettingKeys.ConnectionType), "every participant's session must be an acceptor");
            }

            if (!s.Has(SettingKeys.FileStorePath))
            {
                throw s.Missing(SettingKeys.FileStorePath, "the matching service needs recoverable (journal) session stores");
            }

            if (s.Has(SettingKeys.StoreType) && s.GetChoice(SettingKeys.StoreType) != "journal")
            {
                throw s.Error(SettingKeys.StoreType, Value(s, SettingKeys.StoreType), "the matching service needs recoverable (journal) session stores");
            }

            if (!s.GetBool(SettingKeys.StoreSyncBeforeSend))
            {
                throw s.Missing(SettingKeys.StoreSyncBeforeSend,
                    "the matching service needs StoreSyncBeforeSend=Y: an answer a crash could take back must never reach a participant");
            }

            foreach (var key in (ReadOnlySpan<string>)[SettingKeys.ResetOnLogon, SettingKeys.ResetOnLogout, SettingKeys.ResetOnDisconnect])
            {
                if (s.GetBool(key))
                {
                    throw s.Error(key, Value(s, key), "the matching service keeps one sequence per participant (its restart rule counts stored answers)");
                }
            }

            if (s.GetInt(SettingKeys.MaxMessageSize) < MatchingCore.MaxAnswerBytesPerInput)
            {
                throw s.Error(SettingKeys.MaxMessageSize, Value(s, SettingKeys.MaxMessageSize),
                    $"at least {MatchingCore.MaxAnswerBytesPerInput} bytes are needed for the service's largest answer");
            }

            ids[i] = Encoding.ASCII.GetBytes(s.SessionId.TargetCompId);
            for (int j = 0; j < i; j++)
            {
                if (ids[j].AsSpan().SequenceEqual(ids[i]))
                {
                    throw new ConfigurationException($"two sessions for participant {s.SessionId.TargetCompId}: one session per participant", settings.FilePath);
                }
            }
        }

        return ids;
    }

    private static SettingValue Value(SessionSettings s, string key) => s.TryGetValue(key, out var value) ? value : default;

    // Replays the input journal through the (fresh) matcher; answers go to the dispatcher, which suppresses those
    // the participants' stores already hold and queues the rest until the participants log on.
    private static ReplayReport ReplayJournal(InputJournal journal, MatchingCore core, OutputDispatcher dispatcher, byte[][] participants,
        DataDictionary[] dictionaries, out List<(int Participant, long Generation, int Seq)> highest)
    {
        var message = new FixMessage(MatchingCore.InputView);
        var batch = new OutputQueue(MatchingCore.MaxAnswerBytesPerInput, MatchingCore.MaxAnswersPerInput);
        var last = new Dictionary<int, (long Generation, int Seq)>();
        int inputs = 0;
        // From the file (the journal keeps only a write window in memory): everything in it was recovered (a torn
        // tail already cut) or made durable at startup, so the reader must reach its end cleanly.
        using var reader = journal.OpenRecovered();
        JournalReadStatus status;
        while ((status = reader.TryRead(out var record)) == JournalReadStatus.Record)
        {
            if (!record.IsMessage || record.SeqNum < 2)
            {
                continue;
            }

            if (!InputJournal.TryDecode(record.Message, out var sender, out long generation, out var bytes))
            {
                throw new StoreException($"input journal record {record.SeqNum} is malformed");
            }

            if (sender.IsEmpty)
            {
                // A business-date roll (a control record: the new date where a message's generation goes).
                core.AdvanceBusinessDate((int)generation, dispatcher);
                continue;
            }

            int p = Find(participants, sender);
            if (p < 0)
            {
                throw new ConfigurationException(
                    $"the input journal holds messages of participant {Encoding.ASCII.GetString(sender)}, which the settings no longer define");
            }

            if (message.ParseCopy(bytes, dictionaries[p]) != FixParseError.None)
            {
                throw new StoreException($"input journal record {record.SeqNum} does not parse as FIX");
            }

            message.TryGetInt(Tags.MsgSeqNum, out int seq);
            last[p] = last.TryGetValue(p, out var prior) && prior.Generation == generation ? (generation, Math.Max(prior.Seq, seq)) : (generation, seq);
            core.Process(p, message, batch);
            for (int i = 0; i < batch.Count; i++)
            {
                var answer = batch[i];
                dispatcher.Dispatch(answer.Destination, answer.MsgType, answer.Body);
            }

            batch.Clear();
            inputs++;
        }

        if (status != JournalReadStatus.End)
        {
            throw new StoreException($"the input journal {reader.Path} cannot be read back at offset {reader.Offset} ({status})");
        }

        highest = [.. last.Select(kv => (kv.Key, kv.Value.Generation, kv.Value.Seq))];
        long toSend = 0;
        for (int p = 0; p < participants.Length; p++)
        {
            toSend += dispatcher.PendingFor(p);
        }

        return new ReplayReport(inputs, dispatcher.Suppressed, toSend, 0, journal.Recovery.TruncatedBytes);
    }

    private static int Find(byte[][] participants, ReadOnlySpan<byte> id)
    {
        for (int i = 0; i < participants.Length; i++)
        {
            if (id.SequenceEqual(participants[i]))
            {
                return i;
            }
        }

        return -1;
    }
}

/// <summary>What the replay at startup did.</summary>
/// <param name="Inputs">Journalled inputs replayed through the matcher.</param>
/// <param name="AnswersSuppressed">Answers the participants' stores already held: not sent again.</param>
/// <param name="AnswersToSend">Answers produced by the replay that no store held: sent when the participants log on.</param>
/// <param name="TargetsLowered">Sessions whose expected MsgSeqNum was brought back to the journal's (their participant resends).</param>
/// <param name="JournalBytesCut">Bytes of a torn journal tail cut at recovery.</param>
public sealed record ReplayReport(int Inputs, long AnswersSuppressed, long AnswersToSend, int TargetsLowered, long JournalBytesCut);

/// <summary>The service's counters.</summary>
public readonly record struct ServiceCounters(
    long InputsMatched,
    long BacklogBytes,
    long AnswersSent,
    long AnswersSuppressed,
    long AnswersQueued,
    long AnswersHeldBack,
    long AnswerSendFailures,
    long InputsRefused,
    long BusinessRejectsForBusy,
    long ResendsIgnored,
    long Unparsable,
    long JournalledInputs);
