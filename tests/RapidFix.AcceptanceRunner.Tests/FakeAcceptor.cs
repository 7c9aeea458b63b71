using System.Collections.Concurrent;
using System.Net;
using System.Net.Sockets;
using RapidFix.AcceptanceRunner.Running;
using RapidFix.AcceptanceRunner.Scripts;

namespace RapidFix.AcceptanceRunner.Tests;

/// <summary>
/// A scripted stand-in for an acceptor: listens on loopback and runs a behaviour per accepted connection
/// (numbered from 1 in accept order), recording every message it receives.
/// </summary>
internal sealed class FakeAcceptor : IDisposable
{
    private readonly TcpListener _listener = new(IPAddress.Loopback, 0);
    private readonly Action<int, FakeSide> _behaviour;
    private readonly Thread _acceptor;
    private readonly List<Thread> _connections = [];
    private volatile bool _stopped;

    public FakeAcceptor(Action<int, FakeSide> behaviour)
    {
        _behaviour = behaviour;
        _listener.Start();
        Port = ((IPEndPoint)_listener.LocalEndpoint).Port;
        _acceptor = new Thread(AcceptLoop) { IsBackground = true };
        _acceptor.Start();
    }

    public int Port { get; }

    /// <summary>Messages received, as (connection number, message).</summary>
    public ConcurrentQueue<(int Connection, string Message)> Received { get; } = new();

    /// <summary>Exceptions thrown by behaviours (a test asserts there are none).</summary>
    public ConcurrentQueue<Exception> Errors { get; } = new();

    public void Dispose()
    {
        _stopped = true;
        _listener.Stop();
        _acceptor.Join();
        Thread[] connections;
        lock (_connections)
        {
            connections = [.. _connections];
        }

        foreach (var thread in connections)
        {
            thread.Join(TimeSpan.FromSeconds(5));
        }
    }

    private void AcceptLoop()
    {
        int number = 0;
        while (!_stopped)
        {
            Socket socket;
            try
            {
                socket = _listener.AcceptSocket();
            }
            catch (Exception e) when (e is SocketException or ObjectDisposedException or InvalidOperationException)
            {
                // Stopped by Dispose. Depending on the timing the listener reports it as a socket error, as disposed,
                // or (stopped before this call began) as not listening.
                return;
            }

            int connection = ++number;
            var thread = new Thread(() =>
            {
                try
                {
                    using var side = new FakeSide(new FixConnection(socket), connection, Received);
                    _behaviour(connection, side);
                }
                catch (Exception e)
                {
                    Errors.Enqueue(e);
                }
            })
            { IsBackground = true };
            lock (_connections)
            {
                _connections.Add(thread);
            }

            thread.Start();
        }
    }
}

/// <summary>The acceptor's end of one connection.</summary>
internal sealed class FakeSide(FixConnection connection, int number, ConcurrentQueue<(int, string)> received) : IDisposable
{
    public static readonly TimeSpan Timeout = TimeSpan.FromSeconds(5);

    /// <summary>The current time as a FIX UTC timestamp with milliseconds.</summary>
    public static string Now => DateTime.UtcNow.ToString("yyyyMMdd-HH:mm:ss.fff", System.Globalization.CultureInfo.InvariantCulture);

    /// <summary>Waits for the runner's next message and records it.</summary>
    public string Read()
    {
        if (connection.Receive(Timeout, out string message) != ReceiveOutcome.Message)
        {
            throw new InvalidOperationException($"connection {number}: no message from the runner");
        }

        received.Enqueue((number, message));
        return message;
    }

    /// <summary>Sends a message written with '|' for SOH; BodyLength and CheckSum are added when absent.</summary>
    public void Send(string message) => connection.Send(FixTemplate.Complete(message.Replace('|', FixTemplate.Soh)));

    /// <summary>Sends bytes exactly as given ('|' for SOH).</summary>
    public void SendRaw(string bytes) => connection.Send(bytes.Replace('|', FixTemplate.Soh));

    /// <summary>Waits until the runner closes its side.</summary>
    public void WaitForClose() => connection.Receive(Timeout, out _);

    public void Close() => connection.Dispose();

    public void Dispose() => connection.Dispose();
}
