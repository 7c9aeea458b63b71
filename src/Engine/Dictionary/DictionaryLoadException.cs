namespace RapidFix.Engine.Dictionary;

/// <summary>A dictionary file that cannot be loaded; the message names the source, the line and what is wrong.</summary>
public sealed class DictionaryLoadException : Exception
{
    public DictionaryLoadException(string message, Exception? inner = null)
        : base(message, inner)
    {
    }
}
