using RapidFix.Engine.Codec;
using RapidFix.Engine.Dictionary;
using RapidFix.Tests.Shared;

namespace RapidFix.Messages.Tests;

/// <summary>Sample messages parsed with the built-in FIX 4.4 dictionary, as a session parses them.</summary>
internal static class Fix44Views
{
    private static readonly DataDictionary Dictionary = StandardDictionaries.Load("FIX44");

    /// <summary>A view of <paramref name="text"/> ("|"-separated, BodyLength and CheckSum added).</summary>
    public static FixMessage Parse(string text)
    {
        var wire = FixSamples.Wire(text);
        var message = new FixMessage();
        Assert.Equal(FixParseError.None, message.Parse(wire, 0, wire.Length, Dictionary));
        return message;
    }
}
