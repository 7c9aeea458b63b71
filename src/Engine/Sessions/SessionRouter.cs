using RapidFix.Engine.Codec;
using RapidFix.Engine.Fields;

namespace RapidFix.Engine.Sessions;

/// <summary>
/// The sessions served on one acceptor port, and which of them a first Logon is for: its identity seen from our
/// side (BeginString, CompIDs and, where the session has them, SubIDs and LocationIDs), else the port's acceptor
/// templates (<see cref="Dynamic"/>). Routing runs on a connection's thread at connection set-up.
/// </summary>
internal sealed class SessionRouter
{
    private readonly object _gate = new();
    private FixSession[] _sessions; // replaced whole when sessions are added or removed at run time

    public SessionRouter(FixSession[] sessions) => _sessions = sessions;

    /// <summary>The sessions routed to (a snapshot: the table is replaced, never changed in place).</summary>
    public FixSession[] Sessions => Volatile.Read(ref _sessions);

    /// <summary>
    /// Asked for a Logon no session of the port matches (the engine's acceptor templates): a session to bind, or
    /// null to refuse the connection as unknown.
    /// </summary>
    public Func<FixMessage, FixSession?>? Dynamic { get; set; }

    /// <summary>Finds the session a Logon is for (null: none).</summary>
    public FixSession? Route(FixMessage logon)
    {
        var beginString = logon.BeginString;
        var sender = logon.GetValue(Tags.TargetCompID);
        var target = logon.GetValue(Tags.SenderCompID);
        foreach (var session in Sessions)
        {
            var o = session.Options;
            if (!beginString.SequenceEqual(o.BeginStringBytes) || !sender.SequenceEqual(o.SenderCompId) || !target.SequenceEqual(o.TargetCompId))
            {
                continue;
            }

            if (Matches(o.SenderSubId, logon, Tags.TargetSubID) && Matches(o.SenderLocationId, logon, Tags.TargetLocationID) &&
                Matches(o.TargetSubId, logon, Tags.SenderSubID) && Matches(o.TargetLocationId, logon, Tags.SenderLocationID))
            {
                return session;
            }
        }

        return Dynamic?.Invoke(logon);
    }

    /// <summary>Routes Logons to <paramref name="session"/> from now on (set-up: copies the table).</summary>
    public void Add(FixSession session)
    {
        ArgumentNullException.ThrowIfNull(session);
        lock (_gate)
        {
            if (Array.IndexOf(_sessions, session) < 0)
            {
                Volatile.Write(ref _sessions, [.. _sessions, session]);
            }
        }
    }

    /// <summary>Stops routing Logons to <paramref name="session"/>; false when it was not routed to.</summary>
    public bool Remove(FixSession session)
    {
        lock (_gate)
        {
            if (Array.IndexOf(_sessions, session) < 0)
            {
                return false;
            }

            Volatile.Write(ref _sessions, Array.FindAll(_sessions, s => !ReferenceEquals(s, session)));
            return true;
        }
    }

    private static bool Matches(byte[] ours, FixMessage logon, int tag) => ours.Length == 0 || logon.GetValue(tag).SequenceEqual(ours);
}
