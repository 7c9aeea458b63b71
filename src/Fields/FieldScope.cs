namespace RapidFix.Engine.Fields;

/// <summary>
/// Names where a field is looked up inside a message: the message's top level, or one entry of a repeating group
/// (at any depth). Scopes are handed out by the message view that owns them and are valid while it holds the
/// same message.
/// </summary>
public readonly record struct FieldScope(int Id)
{
    /// <summary>The top level of the message (header, body and trailer fields outside any group).</summary>
    public static FieldScope Message => default;

    /// <summary>True for <see cref="Message"/>.</summary>
    public bool IsMessage => Id == 0;
}
