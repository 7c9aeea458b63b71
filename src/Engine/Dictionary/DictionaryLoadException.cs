namespace RapidFix.Engine.Dictionary;

/// <summary>A dictionary file that cannot be loaded; the message names the source, the line and what is wrong.</summary>
public sealed class DictionaryLoadException : Exception
{
    /// <summary>A dictionary that cannot be loaded: <paramref name="message"/> names the file and the problem.</summary>
    public DictionaryLoadException(string message, Exception? inner = null)
        : base(message, inner)
    {
    }
}
