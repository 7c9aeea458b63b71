namespace RapidFix.Samples.Tests;

/// <summary>
/// The generator as a firm meets it: the RapidFix.Generators package added to a new project whose own FIX 4.4
/// dialect (a custom field, 5001 DeskStrategy, on NewOrderSingle) is an AdditionalFiles item; the build generates
/// typed messages for it and the program reads the custom field through its typed accessor.
/// </summary>
public sealed partial class QuickstartTests
{
    private const string FirmDictionary = """
        <fix major="4" minor="4">
          <header>
            <field name="BeginString" required="Y"/>
            <field name="BodyLength" required="Y"/>
            <field name="MsgType" required="Y"/>
            <field name="SenderCompID" required="Y"/>
            <field name="TargetCompID" required="Y"/>
            <field name="MsgSeqNum" required="Y"/>
            <field name="SendingTime" required="Y"/>
          </header>
          <trailer>
            <field name="CheckSum" required="Y"/>
          </trailer>
          <messages>
            <message name="NewOrderSingle" msgtype="D" msgcat="app">
              <field name="ClOrdID" required="Y"/>
              <field name="DeskStrategy" required="N"/>
            </message>
          </messages>
          <components/>
          <fields>
            <field number="8" name="BeginString" type="STRING"/>
            <field number="9" name="BodyLength" type="LENGTH"/>
            <field number="10" name="CheckSum" type="STRING"/>
            <field number="11" name="ClOrdID" type="STRING"/>
            <field number="34" name="MsgSeqNum" type="SEQNUM"/>
            <field number="35" name="MsgType" type="STRING"/>
            <field number="49" name="SenderCompID" type="STRING"/>
            <field number="52" name="SendingTime" type="UTCTIMESTAMP"/>
            <field number="56" name="TargetCompID" type="STRING"/>
            <field number="5001" name="DeskStrategy" type="INT">
              <value enum="7" description="TWAP_SLICE"/>
            </field>
          </fields>
        </fix>
        """;

    /// <summary>Encodes an order with the custom field, parses it with the dialect and reads it through the generated types.</summary>
    private const string FirmProgram = """
        using RapidFix.Engine.Codec;
        using RapidFix.Engine.Dictionary;
        using Firm.Fix44;

        var dictionary = DataDictionary.Load(Path.Combine(AppContext.BaseDirectory, "firm44.xml"));
        var buffer = new byte[512];
        var encoder = new FixEncoder();
        encoder.Begin(buffer, 0, buffer.Length, "FIX.4.4"u8, MsgTypes.NewOrderSingleBytes);
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
            File.WriteAllText(Path.Combine(folder, "firm44.xml"), FirmDictionary);
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
