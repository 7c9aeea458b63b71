using RapidFix.Fast.Templates;
using RapidFix.Tests.Shared;

namespace RapidFix.Fast.Tests.Support;

/// <summary>The complex30000 decode-speed corpus: 30,001 messages, each after a 4-byte little-endian length.</summary>
internal static class Corpus
{
    public const int MessageCount = 30_001;

    private static readonly Lazy<byte[]> Data = new(() => File.ReadAllBytes(SharedData.PathOf("fast", "complex30000.dat")));
    private static readonly Lazy<FastTemplateRegistry> Registry = new(() => FastTemplateLoader.LoadFile(SharedData.PathOf("fast", "complex30000-templates.xml")));

    public static byte[] Bytes => Data.Value;

    public static FastTemplateRegistry Templates => Registry.Value;
}
