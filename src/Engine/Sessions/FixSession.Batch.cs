using RapidFix.Engine.Diagnostics;
using RapidFix.Engine.Store;
using RapidFix.Pools.Diagnostics;

namespace RapidFix.Engine.Sessions;

/// <summary>
/// Batched send (group commit on the way out): <see cref="SendDeferred(ReadOnlySpan{byte}, ReadOnlySpan{byte})"/> stores an application message without
/// waiting for the disk; <see cref="FlushDeferred"/> then waits once for the store to make the whole batch durable
/// (under StoreSyncBeforeSend=Y) and writes it to the socket in as few writes as its batch buffer allows: no message
/// reaches the wire before it is durable, as with <see cref="Send"/>, but one flush covers a batch instead of one
/// flush per message, and one socket write covers many messages instead of one each.
/// </summary>
/// <remarks>
/// <para>Order on the wire is the order of the MsgSeqNums: any other message the session sends while a batch waits
/// (a heartbeat, a reject, a resend) first writes the waiting batch (<see cref="Complete"/>). A batch stored on a
/// connection that has since closed is not written on a later one: the counterparty asks for it with a
/// ResendRequest, as for anything it missed.</para>
/// <para>The messages are read back from the store's image (the bytes stored are the bytes sent), so a batch costs
/// no memory beyond the batch buffer (<see cref="DeferredWriteBytes"/>), created with the session.</para>
/// <para>A session that keeps nothing (PersistMessages=N: a load generator's) has nothing to read back: its batch is
/// the messages' bytes themselves, gathered in the batch buffer up to <see cref="DeferredWriteBytes"/>, then one
/// transport write; a message that would not fit writes
/// what is gathered first, and one larger than the buffer goes out on its own after the batch, as <see cref="Send"/>
/// would. Such a batch lost with its connection is not stored anywhere: <see cref="FlushDeferred"/> then says
/// false.</para>
/// </remarks>
public sealed partial class FixSession
{
    /// <summary>Bytes gathered into one transport write at most (several whole messages).</summary>
    internal const int DeferredWriteBytes = 64 << 10;

    private readonly byte[] _deferredWire;

    // PersistMessages=N: the bytes and the messages gathered in _deferredWire (the batch itself).
    private int _deferredBytes;
    private int _deferredCount;
    private ISessionTransport? _deferredTransport;
    private int _deferredFirst;
    private int _deferredLast;
    private long _deferredPosition;

    // Connection thread, under the lock: the message being processed came in a read batch (OnReadEnd follows), and
    // a business reject of this read waits for that flush.
    private bool _inReadBatch;
    private bool _flushAfterRead;

    // Connection thread: business rejects deferred in the current read, and the RefSeqNum of its last one.
    private int _readRejects;
    private int _readRejectLast;

    /// <summary>
    /// A batch's messages are appended to a journal store lazily: they start no flush of their own, and the one wait
    /// of <see cref="FlushDeferred"/> (or <see cref="StartFlushDeferred"/>) asks for the batch's single flush. Appended
    /// the ordinary way, the first message of a batch woke the flusher, which wrote and fsynced the batch's head while
    /// the rest was being stored and then the rest: about two fsyncs a batch instead of one (the matching service's
    /// stores, 1.8 a batch at 96,000 inputs/s, each fsync costing 100-300 us of CPU on this VM). Only under
    /// StoreSyncBeforeSend=Y, where a flush of the batch is always waited for; without it nothing would ask.
    /// </summary>
    private bool LazyDeferredAppend => _journalStore is not null && _options.SyncBeforeSend;

    /// <summary>
    /// Asks the store to start making the messages <see cref="SendDeferred(ReadOnlySpan{byte}, ReadOnlySpan{byte})"/> stored durable, without waiting (no
    /// lock taken): a caller with batches on several sessions asks each first, so that their flushes run at the same
    /// time, then calls <see cref="FlushDeferred"/> on each, which waits for its own. Nothing to do without a batch or
    /// when the store flushes on its own.
    /// </summary>
    public void StartFlushDeferred()
    {
        if (LazyDeferredAppend && HasDeferred)
        {
            _journalStore!.RequestFlush();
        }
    }

    /// <summary>True while messages stored by <see cref="SendDeferred(ReadOnlySpan{byte}, ReadOnlySpan{byte})"/> wait for <see cref="FlushDeferred"/>.</summary>
    public bool HasDeferred => Volatile.Read(ref _deferredFirst) != 0;

    /// <summary>
    /// Sends an application message as part of a batch: like <see cref="Send"/> (header, body, trailer, stored with
    /// the next MsgSeqNum), but it neither waits for the store nor writes to the transport: the message goes on the
    /// wire at the next <see cref="FlushDeferred"/> (or before any other message of this session).
    /// <see cref="SendResult.Sent"/> then means stored and queued for the wire. With PersistMessages=N (nothing
    /// stored) it means queued for the wire: the batch buffer holds the message itself (see the remarks of the type).
    /// </summary>
    public SendResult SendDeferred(ReadOnlySpan<byte> msgType, ReadOnlySpan<byte> body) => SendDeferred(msgType, body, 0);

    /// <summary>
    /// As <see cref="SendDeferred(ReadOnlySpan{byte}, ReadOnlySpan{byte})"/>, with the SendingTime (52) the caller gives
    /// (UTC nanoseconds since 1970; 0: the session's clock now): a caller that stores a batch of messages reads the
    /// clock once for the batch instead of the session reading it for each message.
    /// </summary>
    public SendResult SendDeferred(ReadOnlySpan<byte> msgType, ReadOnlySpan<byte> body, long sendingTimeNanos)
    {
        long started = EngineLatency.Start();
        lock (_sync)
        {
            if (!IsLoggedOn || _transport is null)
            {
                return SendResult.NotLoggedOn;
            }

            int seq = _store.NextSenderMsgSeqNum;
            Begin(msgType, seq, new HeaderOptions { SendingTimeNanos = sendingTimeNanos }, default);
            _encoder.AddRaw(body);
            var result = Complete(msgType, 0, application: true, defer: true);
            if (result == SendResult.Sent)
            {
                _counters.ApplicationMessagesSent++;
            }

            EngineLatency.Stop(LatencyChannel.Send, started);
            return result;
        }
    }

    /// <summary>
    /// Writes the messages <see cref="SendDeferred(ReadOnlySpan{byte}, ReadOnlySpan{byte})"/> stored: under StoreSyncBeforeSend=Y waits (without holding the
    /// session's lock, so its connection keeps receiving) until the store has made them durable, then hands them to
    /// the transport. False
    /// when they could not be written: the store did not become durable in time (the session disconnects, as
    /// <see cref="Send"/> does) or the transport refused them (disconnected; the messages are stored, a resend
    /// delivers them). With PersistMessages=N also false when the connection they were meant for is gone (nothing
    /// stored them: they are lost, as a message <see cref="Send"/> could not write).
    /// </summary>
    public bool FlushDeferred()
    {
        long position;
        lock (_sync)
        {
            if (_deferredFirst == 0)
            {
                return true;
            }

            position = _deferredPosition;
        }

        if (_options.SyncBeforeSend)
        {
            // The flusher thread makes the batch durable while this thread waits outside the lock; the wait under the
            // lock below then finds it durable already.
            _store.WaitForDurable(position, _options.SyncTimeout);
        }

        lock (_sync)
        {
            if (!_options.PersistMessages && _deferredFirst != 0 && !ReferenceEquals(_deferredTransport, _transport))
            {
                DropDeferred(); // gathered for a connection that is gone, and kept nowhere
                return false;
            }

            return WriteDeferred();
        }
    }

    /// <summary>
    /// The connection's thread after the last message of one read: writes the business rejects the read's messages
    /// got (<see cref="GenerateBusinessReject"/>), after one wait for the store to make them durable, with whatever
    /// else waits in the deferred batch. Nothing to do (no allocation, no lock) when the read rejected nothing. Then
    /// the application's <see cref="IReadEndHook"/>, if it has one.
    /// </summary>
    internal void OnReadEnd()
    {
        if (_readRejects != 0)
        {
            if (_readRejects > 1)
            {
                _log.Write(LogLevel.Warning, LogEvent.BusinessRejectsSentInRead, _logIndex, _readRejects - 1, _readRejectLast);
            }

            _readRejects = 0;
        }

        if (_flushAfterRead)
        {
            _flushAfterRead = false;
            FlushDeferred();
        }

        if (_application is IReadEndHook hook)
        {
            hook.OnReadEnd(this);
        }
    }

    // A read's business rejects wait for its end only when they are stored (read back at the flush).
    private bool CanDefer => _options.PersistMessages;

    /// <summary>Whether Complete may defer this encoded message (PersistMessages=N: it must fit the batch buffer).</summary>
    private bool Deferrable(int length) => _options.PersistMessages || length <= _deferredWire.Length;

    /// <summary>
    /// Complete, deferred: the message is stored as <paramref name="seq"/> (PersistMessages=N: its bytes,
    /// <paramref name="message"/>, join the batch buffer); note it for the next write.
    /// </summary>
    private SendResult Defer(int seq, ReadOnlySpan<byte> message)
    {
        if (_deferredFirst != 0 && !ReferenceEquals(_deferredTransport, _transport))
        {
            // Stored for a connection that is gone: the counterparty asks for them with a ResendRequest.
            DropDeferred();
        }

        if (!_options.PersistMessages)
        {
            // The batch is the bytes: a message that does not fit after them writes them first.
            if (_deferredFirst != 0 && _deferredBytes + message.Length > _deferredWire.Length && !WriteDeferred())
            {
                return SendResult.TransportFailed;
            }

            message.CopyTo(_deferredWire.AsSpan(_deferredBytes));
            _deferredBytes += message.Length;
            _deferredCount++;
            _messageLog?.Outgoing(message); // logged when queued: the bytes are not kept to log at the write
        }

        if (_deferredFirst == 0)
        {
            _deferredTransport = _transport;
            Volatile.Write(ref _deferredFirst, seq);
        }

        _deferredLast = seq;
        _deferredPosition = _store.WrittenPosition;
        return SendResult.Sent;
    }

    /// <summary>Under the lock: writes the deferred batch (durable first). False when the session disconnected.</summary>
    private bool WriteDeferred()
    {
        if (_deferredFirst == 0)
        {
            return true;
        }

        int first = _deferredFirst;
        int last = _deferredLast;
        int gathered = _deferredBytes;
        int count = _deferredCount;
        var transport = _deferredTransport;
        DropDeferred();
        if (transport is null || !ReferenceEquals(transport, _transport))
        {
            // Stored; the connection they were meant for is gone, a resend delivers them. Appended lazily, they still
            // go to the disk now rather than at the flusher's park timeout.
            if (LazyDeferredAppend)
            {
                _journalStore!.RequestFlush();
            }

            return true;
        }

        if (_options.SyncBeforeSend && !_store.WaitForDurable(_deferredPosition, _options.SyncTimeout))
        {
            _counters.StoreFailures++;
            _log.Write(LogLevel.Error, LogEvent.StoreWriteFailed, _logIndex, (long)StoreWriteStatus.Faulted);
            DisconnectCore(DisconnectReason.SendFailed);
            return false;
        }

        var wire = _deferredWire;
        if (!_options.PersistMessages)
        {
            // Nothing to read back: the batch buffer holds the messages, in MsgSeqNum order.
            if (!transport.Send(wire.AsSpan(0, gathered)))
            {
                return DeferredSendFailed();
            }

            _counters.MessagesSent += count;
            _lastSentNanos = _clock.UtcNowNanos;
            return true;
        }

        int used = 0;
        int messages = 0;
        foreach (var message in _store.GetRange(first, last))
        {
            var bytes = message.Bytes;
            if (used > 0 && used + bytes.Length > wire.Length)
            {
                if (!transport.Send(wire.AsSpan(0, used)))
                {
                    return DeferredSendFailed();
                }

                used = 0;
            }

            if (bytes.Length > wire.Length)
            {
                if (!transport.Send(bytes))
                {
                    return DeferredSendFailed();
                }
            }
            else
            {
                bytes.CopyTo(wire.AsSpan(used));
                used += bytes.Length;
            }

            messages++;
            _messageLog?.Outgoing(bytes); // as Complete logs a message it sends
        }

        if (used > 0 && !transport.Send(wire.AsSpan(0, used)))
        {
            return DeferredSendFailed();
        }

        _counters.MessagesSent += messages;
        _lastSentNanos = _clock.UtcNowNanos;
        return true;
    }

    /// <summary>Under the lock: forgets the deferred batch (written, or meant for a connection that is gone).</summary>
    private void DropDeferred()
    {
        _deferredTransport = null;
        _deferredBytes = 0;
        _deferredCount = 0;
        Volatile.Write(ref _deferredFirst, 0);
    }

    // As in Complete: tell the counterparty why (a socket keeps room for one Logout), then close; the batch is stored.
    private bool DeferredSendFailed()
    {
        _counters.SendFailures++;
        if (!_sentLogout)
        {
            GenerateLogout("Outbound buffer full: counterparty too slow"u8);
        }

        DisconnectCore(DisconnectReason.SendFailed);
        return false;
    }
}
