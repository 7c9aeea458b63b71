namespace RapidFix.AcceptanceRunner.Scripts;

/// <summary>What a script line asks for.</summary>
public enum StepKind
{
    /// <summary>iCONNECT / iN,CONNECT: open connection N.</summary>
    Connect,

    /// <summary>iDISCONNECT / iN,DISCONNECT: close connection N.</summary>
    Disconnect,

    /// <summary>eCONNECT / eN,CONNECT: expect the engine to connect to us (initiator scripts; not supported).</summary>
    ExpectConnect,

    /// <summary>eDISCONNECT / eN,DISCONNECT: expect the engine to close connection N.</summary>
    ExpectDisconnect,

    /// <summary>I&lt;msg&gt; / IN,&lt;msg&gt;: send a message on connection N.</summary>
    Send,

    /// <summary>E&lt;msg&gt; / EN,&lt;msg&gt;: expect the engine's next message on connection N.</summary>
    Expect,

    /// <summary>sleep(n): wait n seconds.</summary>
    Sleep,
}

/// <summary>One executable line of a script.</summary>
/// <param name="Kind">What to do.</param>
/// <param name="Line">1-based line number in the script.</param>
/// <param name="Text">The line as written (for messages).</param>
/// <param name="Connection">Connection number (1 when the line gives none).</param>
/// <param name="Message">For Send and Expect: the message template, bytes as chars (Latin-1), placeholders unresolved.</param>
/// <param name="Seconds">For Sleep: how long.</param>
public sealed record ScriptStep(StepKind Kind, int Line, string Text, int Connection = 1, string? Message = null, double Seconds = 0);

/// <summary>A parsed acceptance script.</summary>
/// <param name="Name">Its name in reports: the file name without extension.</param>
/// <param name="Path">The file.</param>
/// <param name="Steps">The executable lines in order.</param>
public sealed record AcceptanceScript(string Name, string Path, IReadOnlyList<ScriptStep> Steps)
{
    /// <summary>The BeginString of the first message the script expects from the engine, or null.</summary>
    public string? ExpectedBeginString => FirstBeginString(StepKind.Expect);

    /// <summary>The BeginString of the first message the script sends (some deliberately send a wrong one), or null.</summary>
    public string? SentBeginString => FirstBeginString(StepKind.Send);

    private string? FirstBeginString(StepKind kind) =>
        Steps.FirstOrDefault(s => s.Kind == kind && s.Message!.StartsWith("8=", StringComparison.Ordinal) && s.Message.Contains('\u0001'))?.Message is { } m
            ? m[2..m.IndexOf('\u0001')]
            : null;
}

/// <summary>A line the parser cannot understand.</summary>
public sealed class ScriptParseException(string path, int line, string message)
    : Exception($"{path}({line}): {message}")
{
    public string ScriptPath { get; } = path;

    public int Line { get; } = line;

    /// <summary>Why the line cannot be read, without the location.</summary>
    public string Reason { get; } = message;
}
