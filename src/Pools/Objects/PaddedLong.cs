using System.Runtime.InteropServices;

namespace RapidFix.Pools.Objects;

/// <summary>A long alone on its cache line (128 bytes covers adjacent-line prefetch), so producers and consumers do not false-share.</summary>
[StructLayout(LayoutKind.Explicit, Size = 128)]
internal struct PaddedLong
{
    [FieldOffset(64)]
    public long Value;
}
