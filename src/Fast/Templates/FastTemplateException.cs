namespace RapidFix.Fast.Templates;

/// <summary>A static error found while loading templates: the FAST code, where it is, and what is wrong.</summary>
/// <param name="Code">S1-S5 (or D8 for a static reference to an unknown template).</param>
/// <param name="Source">The file or source name given to the loader.</param>
/// <param name="Template">The template being loaded, when known.</param>
/// <param name="Field">The field at fault, when known.</param>
/// <param name="Line">Line in the XML (0 when unknown).</param>
/// <param name="Message">What is wrong.</param>
public sealed record FastStaticError(FastErrorCode Code, string Source, string? Template, string? Field, int Line, string Message)
{
    /// <summary>The code, where and what, the way compilers print errors.</summary>
    public override string ToString() =>
        $"{Code.ToCodeString()} {Source}({Line}): {(Template is null ? "" : $"template '{Template}'")}{(Field is null ? "" : $", field '{Field}'")}: {Message}";
}

/// <summary>Thrown by the template loader (a startup operation) when the templates have static errors; lists them all.</summary>
public sealed class FastTemplateException : Exception
{
    /// <summary>Templates with static errors: the message lists every one of <paramref name="errors"/>.</summary>
    public FastTemplateException(IReadOnlyList<FastStaticError> errors)
        : base(BuildMessage(errors))
    {
        Errors = errors;
    }

    /// <summary>Every static error found (loading continues past the first to report them all).</summary>
    public IReadOnlyList<FastStaticError> Errors { get; }

    private static string BuildMessage(IReadOnlyList<FastStaticError> errors) =>
        $"{errors.Count} static error(s) in FAST templates:{Environment.NewLine}" + string.Join(Environment.NewLine, errors);
}
