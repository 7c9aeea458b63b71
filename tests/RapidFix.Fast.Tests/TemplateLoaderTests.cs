using RapidFix.Engine.Fields;
using RapidFix.Fast.Templates;
using RapidFix.Fast.Tests.Support;
using RapidFix.Tests.Shared;

namespace RapidFix.Fast.Tests;

public sealed class TemplateLoaderTests
{
    [SharedDataTheory]
    [InlineData("CME-templates.xml", 23)]
    [InlineData("EBS-templates.xml", 21)]
    [InlineData("FPL-mdIncrementalRefreshTemplate.xml", 1)]
    public void Exchange_template_files_load(string file, int templates)
    {
        var registry = FastTemplateLoader.LoadFile(SharedData.PathOf("fast", "openfast", file));
        Assert.Equal(templates, registry.Templates.Count);
    }

    [SharedDataFact]
    public void The_fpl_sample_takes_tags_from_numeric_names_and_has_no_id()
    {
        var registry = FastTemplateLoader.LoadFile(SharedData.PathOf("fast", "openfast", "FPL-mdIncrementalRefreshTemplate.xml"));
        var t = registry.Find("MDRefreshSample")!;
        Assert.Null(t.Id);
        Assert.Equal("MDIncrementalRefresh", t.TypeRef);
        Assert.Equal("X"u8.ToArray(), t.MsgType);
        Assert.True(t.Body.IndexOfTag(34) >= 0);
        var entries = t.Body.ScopeFields[t.Body.IndexOfTag(268)];
        Assert.Equal(FastFieldType.Sequence, entries.Type);
        Assert.True(entries.Body!.IndexOfTag(270) >= 0);
    }

    [SharedDataFact]
    public void The_cme_sample_message_decodes_with_the_cme_templates()
    {
        var registry = FastTemplateLoader.LoadFile(SharedData.PathOf("fast", "openfast", "CME-templates.xml"));
        var bytes = File.ReadAllBytes(SharedData.PathOf("fast", "openfast", "CME-messages.fast"));
        var decoded = ConformanceTests.DecodeAll(registry, bytes);
        Assert.NotEmpty(decoded);
        Assert.StartsWith("MDIncRefresh_", decoded[0], StringComparison.Ordinal);
    }

    [Theory]
    [InlineData("http://www.fixprotocol.org/ns/fast/td/1.1")]
    [InlineData("http://www.fixprotocol.org/ns/template-definition")]
    [InlineData("http://www.fixprotocol.org/ns/fast/td/1.1/")]
    [InlineData("http://www.fixprotcol.org/ns/fast/td/1.1")]
    [InlineData("")]
    public void Older_misspelt_and_missing_namespaces_are_accepted(string ns)
    {
        string xmlns = ns.Length == 0 ? "" : $" xmlns=\"{ns}\"";
        var registry = FastTemplateLoader.LoadXml($"""
            <templates{xmlns}><template name="A" id="5"><uInt32 name="x" id="1"><copy/></uInt32><ext:hint xmlns:ext="urn:vendor"/></template></templates>
            """);
        var t = registry[5];
        Assert.Single(t.Body.Instructions);
        Assert.Equal(FastOperator.Copy, t.Body.Instructions[0].Operator);
    }

    [Theory]
    [InlineData("<templates><template name=\"A\" id=\"1\"><uInt32 name=\"x\"></template></templates>", FastErrorCode.S1, null, 1)]
    [InlineData("<templates>\n<template name=\"A\" id=\"1\">\n<float name=\"x\"/>\n</template></templates>", FastErrorCode.S1, "x", 3)]
    [InlineData("<templates>\n<template name=\"A\" id=\"1\">\n<uInt32 name=\"x\" presence=\"maybe\"/>\n</template></templates>", FastErrorCode.S1, "x", 3)]
    [InlineData("<templates>\n<template name=\"A\" id=\"1\">\n<string name=\"s\">\n<increment/></string>\n</template></templates>", FastErrorCode.S2, "s", 4)]
    [InlineData("<templates>\n<template name=\"A\" id=\"1\">\n<decimal name=\"d\"><tail/></decimal>\n</template></templates>", FastErrorCode.S2, "d", 3)]
    [InlineData("<templates>\n<template name=\"A\" id=\"1\">\n<uInt32 name=\"x\">\n<copy value=\"-1\"/></uInt32>\n</template></templates>", FastErrorCode.S3, "x", 4)]
    [InlineData("<templates>\n<template name=\"A\" id=\"1\">\n<int32 name=\"x\"><default value=\"3000000000\"/></int32>\n</template></templates>", FastErrorCode.S3, "x", 3)]
    [InlineData("<templates>\n<template name=\"A\" id=\"1\">\n<decimal name=\"d\"><copy value=\"1.5x\"/></decimal>\n</template></templates>", FastErrorCode.S3, "d", 3)]
    [InlineData("<templates>\n<template name=\"A\" id=\"1\">\n<string name=\"s\"><constant/></string>\n</template></templates>", FastErrorCode.S4, "s", 3)]
    [InlineData("<templates>\n<template name=\"A\" id=\"1\">\n<uInt64 name=\"x\"><default/></uInt64>\n</template></templates>", FastErrorCode.S5, "x", 3)]
    [InlineData("<templates>\n<template name=\"A\" id=\"1\">\n<templateRef name=\"Nope\"/>\n</template></templates>", FastErrorCode.D8, null, 3)]
    public void Static_errors_name_the_code_template_field_and_line(string xml, FastErrorCode code, string? field, int line)
    {
        var e = Assert.Throws<FastTemplateException>(() => FastTemplateLoader.LoadXml(xml, "t.xml"));
        var error = Assert.Single(e.Errors);
        Assert.Equal(code, error.Code);
        Assert.Equal(line, error.Line);
        Assert.Equal(field, error.Field);
        Assert.Equal("t.xml", error.Source);
        if (code != FastErrorCode.S1 || field is not null)
        {
            Assert.Equal("A", error.Template);
        }

        Assert.Contains(code.ToCodeString(), e.Message, StringComparison.Ordinal);
    }

    [Fact]
    public void Every_static_error_is_reported_not_only_the_first()
    {
        var e = Assert.Throws<FastTemplateException>(() => FastTemplateLoader.LoadXml("""
            <templates>
              <template name="A" id="1"><string name="s"><constant/></string></template>
              <template name="B" id="2"><uInt32 name="x"><default/></uInt32></template>
            </templates>
            """));
        Assert.Equal([FastErrorCode.S4, FastErrorCode.S5], e.Errors.Select(x => x.Code));
        Assert.Equal(["A", "B"], e.Errors.Select(x => x.Template));
    }

    [Fact]
    public void A_static_template_reference_is_inlined()
    {
        var codec = new TestCodec("""
            <template name="Header" id="10"><uInt32 name="seq" id="34"/><string name="sender" id="49"><constant value="X"/></string></template>
            <template name="Order" id="11"><templateRef name="Header"/><uInt32 name="qty" id="38"/></template>
            """);
        var order = codec.Templates[11];
        Assert.Equal([34, 49, 38], order.Body.ScopeFields.Select(f => f.Tag));
        codec.DecodeOk("C0 8B 85 8A");
        Assert.True(codec.Message.TryGetInt(FieldScope.Message, 34, out int seq));
        Assert.Equal(5, seq);
        Assert.True(codec.Message.TryGetInt(FieldScope.Message, 38, out int qty));
        Assert.Equal(10, qty);
        Assert.Equal("C08B858A", codec.Encode());
    }

    [Fact]
    public void Dictionary_scopes_decide_which_fields_share_previous_values()
    {
        // x and y share the global key "k"; z is in template B's own dictionary; w in a named dictionary shared with A's v.
        var codec = new TestCodec("""
            <templates xmlns="http://www.fixprotocol.org/ns/fast/td/1.1">
              <template name="A" id="1">
                <uInt32 name="x" id="1"><copy key="k"/></uInt32>
                <uInt32 name="v" id="4"><copy key="n" dictionary="shared"/></uInt32>
              </template>
              <template name="B" id="2" dictionary="template">
                <uInt32 name="y" id="2"><copy key="k" dictionary="global"/></uInt32>
                <uInt32 name="z" id="3" presence="optional"><copy key="k"/></uInt32>
                <uInt32 name="w" id="5"><copy key="n" dictionary="shared"/></uInt32>
              </template>
            </templates>
            """);
        codec.DecodeOk("F0 81 87 89");                   // A: x = 7, v = 9
        codec.DecodeOk("C0 82");                         // B: y copies 7 (global), z's template dictionary is undefined (absent), w copies 9
        Assert.Equal("B -> {2, 7, , 9, }", codec.Text());
    }

    [Fact]
    public void Type_dictionary_is_shared_by_templates_of_the_same_application_type()
    {
        var codec = new TestCodec("""
            <template name="A" id="1" dictionary="type"><typeRef name="Quote"/><uInt32 name="x" id="1"><copy/></uInt32></template>
            <template name="B" id="2" dictionary="type"><typeRef name="Quote"/><uInt32 name="x" id="1"><copy/></uInt32></template>
            <template name="C" id="3" dictionary="type"><typeRef name="Trade"/><uInt32 name="x" id="1" presence="optional"><copy/></uInt32></template>
            """);
        codec.DecodeOk("E0 81 85");
        codec.DecodeOk("C0 82");
        Assert.Equal("B -> {2, 5, }", codec.Text());
        codec.DecodeOk("C0 83");
        Assert.Equal("C -> {3, , }", codec.Text());
    }
}
