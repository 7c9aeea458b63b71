using System.Net.Sockets;
using RapidFix.AcceptanceRunner.Scripts;

namespace RapidFix.AcceptanceRunner.Running;

/// <summary>Runs one script against an acceptor that is listening on host:port.</summary>
public sealed class ScriptRunner(string host, int port, TimeSpan receiveTimeout, Func<DateTime>? utcClock = null)
{
    private readonly Func<DateTime> _clock = utcClock ?? (() => DateTime.UtcNow);

    public string Host { get; } = host;

    public int Port { get; } = port;

    /// <summary>How long an expected message or disconnection may take.</summary>
    public TimeSpan ReceiveTimeout { get; } = receiveTimeout;

    public ScriptResult Run(AcceptanceScript script)
    {
        var started = DateTime.UtcNow;
        var connections = new Dictionary<int, FixConnection>();
        try
        {
            foreach (var step in script.Steps)
            {
                if (Execute(step, connections) is { } failure)
                {
                    return new ScriptResult(script.Name, failure, DateTime.UtcNow - started);
                }
            }

            return new ScriptResult(script.Name, null, DateTime.UtcNow - started);
        }
        finally
        {
            foreach (var connection in connections.Values)
            {
                connection.Dispose();
            }
        }
    }

    private StepFailure? Execute(ScriptStep step, Dictionary<int, FixConnection> connections)
    {
        switch (step.Kind)
        {
            case StepKind.Connect:
                if (connections.ContainsKey(step.Connection))
                {
                    return new StepFailure(step.Line, $"connection {step.Connection} is already open");
                }

                try
                {
                    connections[step.Connection] = FixConnection.Connect(Host, Port, ReceiveTimeout);
                    return null;
                }
                catch (Exception e) when (e is SocketException or OperationCanceledException)
                {
                    return new StepFailure(step.Line, $"cannot connect to {Host}:{Port}: {e.Message}");
                }

            case StepKind.Disconnect:
                if (connections.Remove(step.Connection, out var closing))
                {
                    closing.Dispose();
                }

                return null;

            case StepKind.ExpectConnect:
                return new StepFailure(step.Line, "eCONNECT (the engine connecting to the runner, as an initiator) is not supported");

            case StepKind.Sleep:
                Thread.Sleep(TimeSpan.FromSeconds(step.Seconds));
                return null;

            case StepKind.Send:
            {
                if (!connections.TryGetValue(step.Connection, out var connection))
                {
                    return new StepFailure(step.Line, $"cannot send: connection {step.Connection} is not open");
                }

                try
                {
                    connection.Send(FixTemplate.Complete(FixTemplate.ResolveTimes(step.Message!, _clock())));
                    return null;
                }
                catch (SocketException e)
                {
                    return new StepFailure(step.Line, $"cannot send on connection {step.Connection}: {e.Message}");
                }
            }

            case StepKind.Expect:
            {
                string expected = FixTemplate.Complete(FixTemplate.ResolveTimes(step.Message!, _clock()));
                if (!connections.TryGetValue(step.Connection, out var connection))
                {
                    return new StepFailure(step.Line, $"cannot receive: connection {step.Connection} is not open", expected);
                }

                return connection.Receive(ReceiveTimeout, out string received) switch
                {
                    ReceiveOutcome.TimedOut => new StepFailure(step.Line, $"no message within {ReceiveTimeout.TotalSeconds:0.###} s", expected),
                    ReceiveOutcome.Closed => new StepFailure(step.Line, "the engine closed the connection instead", expected),
                    _ => MessageComparer.FirstDifference(expected, received) is { } difference
                        ? new StepFailure(step.Line, difference, expected, received)
                        : null,
                };
            }

            case StepKind.ExpectDisconnect:
            {
                if (!connections.Remove(step.Connection, out var connection))
                {
                    return new StepFailure(step.Line, $"cannot wait for a disconnection: connection {step.Connection} is not open");
                }

                using (connection)
                {
                    return connection.Receive(ReceiveTimeout, out string received) switch
                    {
                        ReceiveOutcome.Closed => null,
                        ReceiveOutcome.TimedOut => new StepFailure(step.Line, $"the engine did not disconnect within {ReceiveTimeout.TotalSeconds:0.###} s"),
                        _ => new StepFailure(step.Line, "expected a disconnection but received a message", Received: received),
                    };
                }
            }

            default:
                throw new InvalidOperationException($"Unhandled step {step.Kind}.");
        }
    }
}
