namespace RapidFix.Engine.Store;

/// <summary>A message store that cannot be opened or recovered (not used for write outcomes, which are statuses).</summary>
public sealed class StoreException : Exception
{
    public StoreException(string message) : base(message)
    {
    }

    public StoreException(string message, Exception inner) : base(message, inner)
    {
    }
}
