using System.Text;
using Microsoft.Extensions.Logging;

namespace RapidFix.Hosting;

/// <summary>
/// The output of an <see cref="Engine.Diagnostics.EngineLog"/> as a stream whose every write (one formatted line, or a
/// detail or fault block) becomes one <see cref="ILogger"/> entry at the line's level. Writes come from the engine
/// log's writer thread (and, for detail and fault lines, from set-up paths): never from a session's hot path, which
/// only fills the engine log's ring. Building the entry's string allocates, on that thread.
/// </summary>
public sealed class EngineLogBridge : Stream
{
    private readonly ILogger _logger;

    /// <param name="logger">Where the lines go.</param>
    public EngineLogBridge(ILogger logger)
    {
        ArgumentNullException.ThrowIfNull(logger);
        _logger = logger;
    }

    /// <inheritdoc/>
    public override bool CanRead => false;

    /// <inheritdoc/>
    public override bool CanSeek => false;

    /// <inheritdoc/>
    public override bool CanWrite => true;

    /// <inheritdoc/>
    public override long Length => throw new NotSupportedException();

    /// <inheritdoc/>
    public override long Position { get => throw new NotSupportedException(); set => throw new NotSupportedException(); }

    /// <inheritdoc/>
    public override void Write(byte[] buffer, int offset, int count) => Write(buffer.AsSpan(offset, count));

    /// <inheritdoc/>
    public override void Write(ReadOnlySpan<byte> buffer)
    {
        while (buffer.Length > 0 && buffer[^1] is (byte)'\n' or (byte)'\r')
        {
            buffer = buffer[..^1];
        }

        if (buffer.IsEmpty)
        {
            return;
        }

        var level = LevelOf(buffer);
        if (_logger.IsEnabled(level))
        {
            _logger.Log(level, "{EngineLine}", Encoding.UTF8.GetString(buffer));
        }
    }

    /// <summary>The level word after the timestamp ("20261124-01:02:03.456789 WARN  ..."): the engine log's layout.</summary>
    internal static Microsoft.Extensions.Logging.LogLevel LevelOf(ReadOnlySpan<byte> line)
    {
        int space = line.IndexOf((byte)' ');
        var rest = space < 0 ? line : line[(space + 1)..];
        if (rest.StartsWith("ERROR"u8))
        {
            return Microsoft.Extensions.Logging.LogLevel.Error;
        }

        if (rest.StartsWith("WARN"u8))
        {
            return Microsoft.Extensions.Logging.LogLevel.Warning;
        }

        return rest.StartsWith("DEBUG"u8) ? Microsoft.Extensions.Logging.LogLevel.Debug : Microsoft.Extensions.Logging.LogLevel.Information;
    }

    /// <inheritdoc/>
    public override void Flush()
    {
    }

    /// <inheritdoc/>
    public override int Read(byte[] buffer, int offset, int count) => throw new NotSupportedException();

    /// <inheritdoc/>
    public override long Seek(long offset, SeekOrigin origin) => throw new NotSupportedException();

    /// <inheritdoc/>
    public override void SetLength(long value) => throw new NotSupportedException();
}
