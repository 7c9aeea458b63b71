namespace RapidFix.Samples.Tests;

/// <summary>
/// The generator as a firm meets it: the RapidFix.Generators package added to a new project whose own FIX 4.4
/// dialect (the generator tests' firm44.xml: a custom field, 5001 DeskStrategy, on NewOrderSingle) is an
/// AdditionalFiles item; the build generates typed messages for it and the program reads the custom field through
/// its typed accessor.
/// </summary>
public sealed partial class QuickstartTests
{
    /// <summary>Encodes an order with the custom field, parses it with the dialect and reads it through the generated types.</summary>
    private const string FirmProgram = """
        using RapidFix.Engine.Codec;
        using RapidFix.Engine.Dictionary;
        using Firm.Fix44;

        var dictionary = DataDictionary.Load(Path.Combine(AppContext.BaseDirectory, "firm44.xml"));
        var buffer = new byte[512];
        var encoder = new FixEncoder();
        encoder.Begin(buffer, 0, buffer.Length, "FIX.4.4"u8, MsgTypes.NewOrderSingleBytes);
        encoder.Add(FieldTags.MsgSeqNum, 1L);
        encoder.Add(FieldTags.SenderCompID, "FIRM"u8);
        encoder.AddTimestamp(FieldTags.SendingTime, 1_795_000_000_000_000_000);
        encoder.Add(FieldTags.TargetCompID, "BROKER"u8);
        encoder.Add(FieldTags.ClOrdID, "ORD-7"u8);
        encoder.Add(FieldTags.DeskStrategy, Values.DeskStrategy.TwapSlice);
        encoder.Finish(out var encoded);
        var message = new FixMessage();
        Console.WriteLine($"parse: {message.Parse(buffer, encoded.Offset, encoded.Length, dictionary)}");
        var order = new NewOrderSingle(message);
        Console.WriteLine($"DeskStrategy {FieldTags.DeskStrategy}: {order.DeskStrategy}, TWAP slice: {order.DeskStrategy == Values.DeskStrategy.TwapSlice}");
        """;

    [Fact]
    public void A_project_with_its_own_dictionary_gets_typed_messages_for_its_custom_field_from_the_generator_package()
    {
        string feed = PackIntoFeed("src/Generators/RapidFix.Generators/RapidFix.Generators.csproj");
        Assert.Contains($"RapidFix.Generators.{_version}.nupkg", Directory.GetFiles(feed).Select(Path.GetFileName));

        string program = NewConsoleProject("FirmDialect", FirmProgram, folder =>
        {
            File.Copy(Path.Combine(Programs.Root, "tests", "RapidFix.Generators.Tests", "firm44.xml"), Path.Combine(folder, "firm44.xml"));
            File.WriteAllText(Path.Combine(folder, "Directory.Build.targets"), """
                <Project>
                  <ItemGroup>
                    <AdditionalFiles Include="firm44.xml" RapidFixNamespace="Firm.Fix44" CopyToOutputDirectory="PreserveNewest" />
                  </ItemGroup>
                </Project>
                """);
        }, "RapidFix.Engine", "RapidFix.Generators");

        using var run = ChildProcess.StartProgram(program);
        int exit = run.WaitForExit(TimeSpan.FromMinutes(1));
        Assert.True(exit == 0, $"exit {exit}\n{run.Output}\n{run.Error}");
        Assert.Contains("parse: None", run.Output, StringComparison.Ordinal);
        Assert.Contains("DeskStrategy 5001: 7, TWAP slice: True", run.Output, StringComparison.Ordinal);
    }
}
