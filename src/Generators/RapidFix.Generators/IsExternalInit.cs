namespace System.Runtime.CompilerServices;

/// <summary>Lets netstandard2.0 code declare records (init accessors).</summary>
internal static class IsExternalInit
{
}
