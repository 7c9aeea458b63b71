using System.Text;
using RapidFix.Engine.Dictionary;
using RapidFix.Tests.Shared;

namespace RapidFix.Engine.Tests.Dictionary;

public sealed class DataDictionaryTests
{
    [SharedDataTheory]
    [InlineData("FIX40.xml", "FIX.4.0", 27)]
    [InlineData("FIX41.xml", "FIX.4.1", 28)]
    [InlineData("FIX42.xml", "FIX.4.2", 46)]
    [InlineData("FIX43.xml", "FIX.4.3", 68)]
    [InlineData("FIX44.xml", "FIX.4.4", 93)]
    [InlineData("FIX50.xml", "FIX.5.0", 93)]
    [InlineData("FIX50SP1.xml", "FIX.5.0SP1", 105)]
    [InlineData("FIX50SP2.xml", "FIX.5.0SP2", 110)]
    [InlineData("FIXT11.xml", "FIXT.1.1", 8)]
    public void Loads_every_quickfix_dictionary_from_shared_unchanged(string file, string version, int messages)
    {
        var dd = DataDictionary.Load(SharedData.FixSpec(file));
        Assert.Equal(version, dd.Version);
        Assert.Equal(messages, dd.Messages.Count);
        Assert.Contains(file, dd.Source);
    }

    [Fact]
    public void Fix44_definitions_are_flattened_from_components()
    {
        var dd = StandardDictionaries.Load("FIX44");
        Assert.Equal("FIX.4.4", dd.BeginString);
        Assert.True(dd.TryGetMessage("D"u8, out var nos));
        Assert.Equal("NewOrderSingle", nos.Name);
        Assert.Equal([11, 55, 54, 60, 40], nos.RequiredTags); // Instrument is a required component: Symbol is required
        Assert.True(nos.Contains(55));
        Assert.True(nos.Contains(448) == false); // PartyID lives inside the Parties group, not at top level
        var parties = nos.GetGroup(453);
        Assert.NotNull(parties);
        Assert.Equal(448, parties.DelimiterTag);
        Assert.True(parties.Contains(802)); // nested PtysSubGrp count
        Assert.Equal(523, parties.GetGroup(802)!.DelimiterTag);

        Assert.True(dd.IsHeaderField(49));
        Assert.True(dd.IsTrailerField(10));
        Assert.Equal(95, dd.LengthTagOf(96));
        Assert.Equal(354, dd.LengthTagOf(355));
        Assert.Equal(0, dd.LengthTagOf(55));
        Assert.True(dd.GetField(54)!.Enums!.Contains("1"u8));
        Assert.False(dd.GetField(54)!.Enums!.Contains("Z"u8));
        Assert.True(dd.GetField(18)!.IsMultipleValue);
        Assert.False(dd.TryGetMessage("ZZ"u8, out _));
    }

    [Fact]
    public void Fix5_application_dictionary_combines_with_fixt_transport()
    {
        var dd = StandardDictionaries.ForSession("FIXT.1.1", "FIX.5.0SP2");
        Assert.Equal("FIXT.1.1", dd.BeginString);
        Assert.True(dd.TryGetMessage("A"u8, out var logon));
        Assert.True(logon.IsAdmin);
        Assert.Contains(1137, logon.RequiredTags); // DefaultApplVerID
        Assert.True(dd.TryGetMessage("AE"u8, out _));
        Assert.True(dd.IsHeaderField(1128)); // ApplVerID comes from the FIXT header
    }

    [Fact]
    public void Broken_dictionaries_fail_with_file_line_and_cause()
    {
        var xml = "<fix major='4' minor='4'>\n<header/>\n<trailer/>\n<messages>\n<message name='X' msgtype='X' msgcat='app'>\n<field name='Nope' required='Y'/>\n</message>\n</messages>\n<components/>\n<fields>\n<field number='1' name='Account' type='STRING'/>\n</fields>\n</fix>";
        var ex = Assert.Throws<DictionaryLoadException>(() => DataDictionary.Load(new MemoryStream(Encoding.UTF8.GetBytes(xml)), "bad.xml"));
        Assert.Equal("bad.xml(6): field 'Nope' used in X is not defined in <fields>", ex.Message);

        var cyclic = "<fix major='4' minor='4'><header/><trailer/><messages><message name='X' msgtype='X'><component name='A' required='Y'/></message></messages>" +
                     "<components><component name='A'><component name='A' required='N'/></component></components><fields/></fix>";
        var ex2 = Assert.Throws<DictionaryLoadException>(() => DataDictionary.Load(new MemoryStream(Encoding.UTF8.GetBytes(cyclic)), "cyclic.xml"));
        Assert.Contains("includes itself", ex2.Message);

        var ex3 = Assert.Throws<DictionaryLoadException>(() => DataDictionary.Load(new MemoryStream(Encoding.UTF8.GetBytes("<fix major='4'")), "cut.xml"));
        Assert.StartsWith("cut.xml: not well-formed XML", ex3.Message);
    }

    [Fact]
    public void Built_in_names_and_versions_resolve()
    {
        Assert.Equal("FIX.4.2", StandardDictionaries.Load("FIX.4.2").Version);
        Assert.Equal("FIX.5.0SP1", StandardDictionaries.Load("FIX50SP1").Version);
        Assert.Throws<ArgumentException>(() => StandardDictionaries.Load("FIX.9.9"));
    }
}
