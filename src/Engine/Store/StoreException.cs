namespace RapidFix.Engine.Store;

/// <summary>A message store that cannot be opened or recovered (not used for write outcomes, which are statuses).</summary>
public sealed class StoreException : Exception
{
    /// <summary>A store that cannot be opened or read: <paramref name="message"/> says which and why.</summary>
    public StoreException(string message) : base(message)
    {
    }

    /// <summary>A store that cannot be opened or read, with the error that caused it.</summary>
    public StoreException(string message, Exception inner) : base(message, inner)
    {
    }
}
