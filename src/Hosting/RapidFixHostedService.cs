using System.Diagnostics;
using Microsoft.Extensions.Hosting;
using Microsoft.Extensions.Logging;
using Microsoft.Extensions.Options;
using RapidFix.Engine.Configuration;
using RapidFix.Engine.Diagnostics;
using RapidFix.Engine.Hosting;

namespace RapidFix.Hosting;

/// <summary>
/// The engine inside a .NET generic host. Start runs the engine's startup (settings, sessions, stores, sockets), the
/// warm-up when one is given, and enters the continuous phase. Stop (SIGTERM, Ctrl+C, <see cref="IHostApplicationLifetime.StopApplication"/>)
/// sends every logged-on session's counterparty a Logout, waits for the answers (at most
/// <see cref="RapidFixHostingOptions.LogoutTimeout"/>, or until the host's shutdown timeout cancels), then runs the
/// engine's shutdown: connections closed, stores flushed and closed, pools released.
/// </summary>
public sealed class RapidFixHostedService : IHostedService, IDisposable
{
    private readonly RapidFixHostingOptions _options;
    private readonly ILoggerFactory _loggers;
    private readonly ILogger _logger;
    private EngineLog? _engineLog;
    private EngineMetrics? _metrics;

    /// <param name="options">What to run.</param>
    /// <param name="loggers">Where the engine log and the service's own lines go.</param>
    public RapidFixHostedService(IOptions<RapidFixHostingOptions> options, ILoggerFactory loggers)
    {
        ArgumentNullException.ThrowIfNull(options);
        ArgumentNullException.ThrowIfNull(loggers);
        _options = options.Value;
        _loggers = loggers;
        _logger = loggers.CreateLogger<RapidFixHostedService>();
    }

    /// <summary>The running engine host (null before start and after stop).</summary>
    public EngineHost? Host { get; private set; }

    /// <summary>The counters' meter while the engine runs (null when <see cref="RapidFixHostingOptions.EnableMetrics"/> is false).</summary>
    public EngineMetrics? Metrics => _metrics;

    /// <summary>Startup, warm-up, continuous phase.</summary>
    public Task StartAsync(CancellationToken cancellationToken)
    {
        if (Host is not null)
        {
            return Task.CompletedTask;
        }

        var applications = _options.Applications ?? throw new InvalidOperationException("RapidFixHostingOptions.Applications is not set.");
        var settings = SettingsFile.Load(_options.SettingsPath);
        _engineLog = _options.BridgeEngineLog
            ? new EngineLog(new EngineLogBridge(_loggers.CreateLogger("RapidFix.Engine")), _options.EngineLogCapacity)
            : EngineLog.Null;
        try
        {
            Host = EngineHost.Start(settings, applications, _options.Engine, _engineLog);
            _logger.LogInformation("RapidFix started {Sessions} session(s) from {SettingsPath}", Host.Sessions.Count, _options.SettingsPath);
            if (_options.EnableMetrics)
            {
                _metrics = new EngineMetrics(Host.Engine, Host);
            }

            if (_options.WaitForLogons > TimeSpan.Zero && !Host.WaitForLogons(_options.WaitForLogons))
            {
                _logger.LogWarning("Not every session logged on within {Timeout}", _options.WaitForLogons);
            }

            if (_options.WarmUp is { } round)
            {
                var host = Host;
                var report = host.WarmUp(i => round(host, i));
                _logger.LogInformation("Warm-up: {Rounds} rounds, {Methods} methods compiled, settled {Settled}", report.Rounds, report.MethodsCompiled, report.Settled);
            }

            Host.EnterContinuous();
            _logger.LogInformation("RapidFix continuous phase");
        }
        catch
        {
            Release();
            throw;
        }

        return Task.CompletedTask;
    }

    /// <summary>Logs every session out (answered or timed out), then shuts the engine down.</summary>
    public async Task StopAsync(CancellationToken cancellationToken)
    {
        var host = Host;
        if (host is null)
        {
            return;
        }

        var sessions = host.Engine.SessionsSnapshot();
        int loggingOut = 0;
        foreach (var session in sessions)
        {
            if (session.IsLoggedOn)
            {
                loggingOut++;
            }

            session.Logout("Shutting down");
        }

        _logger.LogInformation("RapidFix stopping: Logout sent on {Sessions} session(s)", loggingOut);
        var started = Stopwatch.GetTimestamp();
        while (Stopwatch.GetElapsedTime(started) < _options.LogoutTimeout && !cancellationToken.IsCancellationRequested && AnyLoggedOn(sessions))
        {
            try
            {
                await Task.Delay(10, cancellationToken).ConfigureAwait(false);
            }
            catch (OperationCanceledException)
            {
                break;
            }
        }

        foreach (var session in sessions)
        {
            if (session.IsLoggedOn)
            {
                _logger.LogWarning("Session {Session}: no Logout answer before the stop; closing the connection", session.Id);
            }
        }

        Release();
        _logger.LogInformation("RapidFix stopped");
    }

    /// <summary>Shuts the engine down if it still runs (without the Logout wait of <see cref="StopAsync"/>).</summary>
    public void Dispose() => Release();

    private static bool AnyLoggedOn(Engine.Sessions.FixSession[] sessions)
    {
        foreach (var session in sessions)
        {
            if (session.IsLoggedOn)
            {
                return true;
            }
        }

        return false;
    }

    private void Release()
    {
        _metrics?.Dispose();
        _metrics = null;
        Host?.Shutdown();
        Host = null;
        if (_engineLog is not null && !ReferenceEquals(_engineLog, EngineLog.Null))
        {
            _engineLog.Dispose();
        }

        _engineLog = null;
    }
}
