using RapidFix.Engine.Configuration;
using RapidFix.Engine.Diagnostics;
using RapidFix.Engine.Sessions;

namespace RapidFix.Engine.Hosting;

/// <summary>The message logs of the sessions that set FileLogPath: one writer per directory.</summary>
public sealed partial class FixEngine
{
    private readonly Dictionary<string, MessageFileLog> _messageLogs = new(StringComparer.Ordinal);

    /// <summary>The message log writers (one per FileLogPath directory).</summary>
    public IReadOnlyCollection<MessageFileLog> MessageLogs => _messageLogs.Values;

    /// <summary>Starts logging <paramref name="session"/>'s messages when its settings give FileLogPath (startup, set-up).</summary>
    private void OpenMessageLog(FixSession session, SessionSettings settings)
    {
        string? path = settings.GetStringOrNull(SettingKeys.FileLogPath);
        if (string.IsNullOrWhiteSpace(path))
        {
            return;
        }

        string directory = Path.GetFullPath(path);
        MessageFileLog? writer;
        lock (_messageLogs)
        {
            if (!_messageLogs.TryGetValue(directory, out writer))
            {
                writer = new MessageFileLog(directory);
                _messageLogs.Add(directory, writer);
            }
        }

        session.AttachMessageLog(writer.Open(session.Id, settings.GetInt(SettingKeys.FileLogBufferSize), session.Options.MaxMessageSize));
    }

    /// <summary>Stops logging <paramref name="session"/> (a session removed at run time).</summary>
    private void CloseMessageLog(FixSession session)
    {
        var log = session.MessageLog;
        if (log is null)
        {
            return;
        }

        session.AttachMessageLog(null);
        lock (_messageLogs)
        {
            foreach (var writer in _messageLogs.Values)
            {
                writer.Close(log);
            }
        }
    }

    private void CloseMessageLogs()
    {
        lock (_messageLogs)
        {
            foreach (var writer in _messageLogs.Values)
            {
                writer.Dispose();
            }

            _messageLogs.Clear();
        }
    }
}
