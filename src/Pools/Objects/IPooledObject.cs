namespace RapidFix.Pools.Objects;

/// <summary>Implemented by pooled items that must be cleared before they are handed out again.</summary>
public interface IPooledObject
{
    /// <summary>Called by the pool when the item comes back, on the returning thread.</summary>
    void ResetForReuse();
}
