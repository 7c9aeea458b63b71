using System;
using System.Collections.Generic;
using System.Globalization;
using System.Linq;
using System.Xml.Linq;

namespace RapidFix.Generators;

/// <summary>How a generated member reads and writes a field, from its dictionary type.</summary>
internal enum FieldKind
{
    Text,
    Integer,
    Decimal,
    Char,
    Boolean,
    Timestamp,
    NumInGroup,
}

/// <summary>A field of the dictionary: its tag, name, type and listed values.</summary>
internal sealed record FieldDef(int Tag, string Name, string Type, FieldKind Kind, List<FieldValue> Values);

/// <summary>One listed value of a field and its description (which names its constant).</summary>
internal sealed record FieldValue(string Value, string Description);

/// <summary>A field where it stands in a message, header or group entry; a group when <see cref="Items"/> is set.</summary>
internal sealed class Member
{
    public Member(FieldDef field, bool required, List<Member>? items)
    {
        Field = field;
        Required = required;
        Items = items;
    }

    public FieldDef Field { get; }

    public bool Required { get; }

    /// <summary>The fields of one entry, in the dictionary's order (the first is the delimiter); null for a plain field.</summary>
    public List<Member>? Items { get; }
}

/// <summary>A message of the dictionary with its members, components expanded.</summary>
internal sealed record MessageDef(string Name, string MsgType, bool Admin, List<Member> Members);

/// <summary>A QuickFIX-format dictionary read for generation: components expanded, problems collected.</summary>
internal sealed class DictionaryModel
{
    private const int MaxComponentDepth = 32;

    private DictionaryModel(string versionName, string description)
    {
        VersionName = versionName;
        Description = description;
    }

    /// <summary>"Fix44", "Fix50Sp2", "Fixt11": the last part of the namespace.</summary>
    public string VersionName { get; }

    /// <summary>"FIX 4.4" and the like, for documentation comments.</summary>
    public string Description { get; }

    public List<FieldDef> Fields { get; } = new();

    public List<Member> Header { get; } = new();

    public List<MessageDef> Messages { get; } = new();

    /// <summary>References to undefined fields or components, cycles: reported as warnings, the member left out.</summary>
    public List<string> Problems { get; } = new();

    /// <summary>
    /// Reads a dictionary; null when <paramref name="document"/> is not one (another XML file in AdditionalFiles).
    /// Throws <see cref="FormatException"/> for a dictionary that cannot be used at all.
    /// </summary>
    public static DictionaryModel? Read(XDocument document)
    {
        var root = document.Root;
        if (root is null || root.Name.LocalName != "fix")
        {
            return null;
        }

        string type = ((string?)root.Attribute("type") ?? "FIX").Trim().ToUpperInvariant();
        string major = ((string?)root.Attribute("major") ?? "").Trim();
        string minor = ((string?)root.Attribute("minor") ?? "").Trim();
        string sp = ((string?)root.Attribute("servicepack") ?? "0").Trim();
        if (major.Length == 0 || minor.Length == 0 || !major.All(char.IsDigit) || !minor.All(char.IsDigit) || !sp.All(char.IsDigit))
        {
            throw new FormatException("the <fix> element needs numeric major and minor attributes");
        }

        string prefix = type == "FIXT" ? "Fixt" : "Fix";
        bool withSp = sp.Length > 0 && sp != "0";
        var model = new DictionaryModel(
            prefix + major + minor + (withSp ? "Sp" + sp : ""),
            (type == "FIXT" ? "FIXT " : "FIX ") + major + "." + minor + (withSp ? " SP" + sp : ""));

        var byName = new Dictionary<string, FieldDef>(StringComparer.Ordinal);
        var tags = new HashSet<int>();
        foreach (var f in root.Element("fields")?.Elements("field") ?? Enumerable.Empty<XElement>())
        {
            string name = ((string?)f.Attribute("name") ?? "").Trim();
            string number = ((string?)f.Attribute("number") ?? "").Trim();
            string fieldType = ((string?)f.Attribute("type") ?? "STRING").Trim().ToUpperInvariant();
            if (!int.TryParse(number, NumberStyles.None, CultureInfo.InvariantCulture, out int tag) || tag <= 0 || !Names.IsIdentifier(name))
            {
                model.Problems.Add($"field '{name}' (number '{number}') is not usable: it needs a name that is an identifier and a positive number");
                continue;
            }

            if (byName.ContainsKey(name) || !tags.Add(tag))
            {
                model.Problems.Add($"field '{name}' ({tag}) is defined twice; the first definition is used");
                continue;
            }

            var values = new List<FieldValue>();
            foreach (var v in f.Elements("value"))
            {
                string value = (string?)v.Attribute("enum") ?? "";
                if (value.Length > 0)
                {
                    values.Add(new FieldValue(value, (string?)v.Attribute("description") ?? value));
                }
            }

            var def = new FieldDef(tag, name, fieldType, KindOf(fieldType), values);
            byName.Add(name, def);
            model.Fields.Add(def);
        }

        var components = new Dictionary<string, XElement>(StringComparer.Ordinal);
        foreach (var c in root.Element("components")?.Elements("component") ?? Enumerable.Empty<XElement>())
        {
            string name = (string?)c.Attribute("name") ?? "";
            if (!components.ContainsKey(name))
            {
                components.Add(name, c);
            }
        }

        var header = root.Element("header");
        if (header is not null)
        {
            model.Header.AddRange(model.Expand(header, byName, components, "header", 0));
        }

        var msgTypes = new HashSet<string>(StringComparer.Ordinal);
        var msgNames = new HashSet<string>(StringComparer.Ordinal);
        foreach (var m in root.Element("messages")?.Elements("message") ?? Enumerable.Empty<XElement>())
        {
            string name = ((string?)m.Attribute("name") ?? "").Trim();
            string msgType = ((string?)m.Attribute("msgtype") ?? "").Trim();
            if (!Names.IsIdentifier(name) || msgType.Length == 0 || msgType.Any(ch => ch <= ' ' || ch > '~' || ch == '='))
            {
                model.Problems.Add($"message '{name}' (MsgType '{msgType}') is not usable: it needs a name that is an identifier and a MsgType of printable ASCII");
                continue;
            }

            if (!msgTypes.Add(msgType) || !msgNames.Add(name))
            {
                model.Problems.Add($"message '{name}' (MsgType '{msgType}') is defined twice; the first definition is used");
                continue;
            }

            bool admin = string.Equals((string?)m.Attribute("msgcat"), "admin", StringComparison.OrdinalIgnoreCase);
            model.Messages.Add(new MessageDef(name, msgType, admin, model.Expand(m, byName, components, "message " + name, 0)));
        }

        return model;
    }

    private List<Member> Expand(XElement parent, Dictionary<string, FieldDef> fields, Dictionary<string, XElement> components, string where, int depth)
    {
        var members = new List<Member>();
        var seen = new HashSet<int>();
        ExpandInto(members, seen, parent, fields, components, where, depth);
        return members;
    }

    private void ExpandInto(List<Member> members, HashSet<int> seen, XElement parent, Dictionary<string, FieldDef> fields, Dictionary<string, XElement> components, string where, int depth)
    {
        foreach (var e in parent.Elements())
        {
            string name = (string?)e.Attribute("name") ?? "";
            bool required = string.Equals((string?)e.Attribute("required"), "Y", StringComparison.OrdinalIgnoreCase);
            switch (e.Name.LocalName)
            {
                case "field":
                case "group":
                    if (!fields.TryGetValue(name, out var field))
                    {
                        Problems.Add($"{where} refers to field '{name}', which the dictionary does not define; it is left out");
                        continue;
                    }

                    if (!seen.Add(field.Tag))
                    {
                        continue; // the same field twice at one level (through two components): one accessor
                    }

                    List<Member>? items = null;
                    if (e.Name.LocalName == "group")
                    {
                        if (depth >= MaxComponentDepth)
                        {
                            Problems.Add($"{where}: groups nested deeper than {MaxComponentDepth}; group '{name}' is left out");
                            continue;
                        }

                        items = Expand(e, fields, components, where + "/" + name, depth + 1);
                    }

                    members.Add(new Member(field, required, items));
                    break;
                case "component":
                    if (!components.TryGetValue(name, out var component))
                    {
                        Problems.Add($"{where} refers to component '{name}', which the dictionary does not define; it is left out");
                        continue;
                    }

                    if (depth >= MaxComponentDepth)
                    {
                        Problems.Add($"{where}: components nested deeper than {MaxComponentDepth} (a cycle?); component '{name}' is left out");
                        continue;
                    }

                    ExpandInto(members, seen, component, fields, components, where, depth + 1);
                    break;
            }
        }
    }

    private static FieldKind KindOf(string type) => type switch
    {
        "INT" or "LENGTH" or "SEQNUM" or "TAGNUM" or "DAYOFMONTH" => FieldKind.Integer,
        "NUMINGROUP" => FieldKind.NumInGroup,
        "PRICE" or "QTY" or "QUANTITY" or "AMT" or "FLOAT" or "PERCENTAGE" or "PRICEOFFSET" => FieldKind.Decimal,
        "CHAR" => FieldKind.Char,
        "BOOLEAN" => FieldKind.Boolean,
        "UTCTIMESTAMP" => FieldKind.Timestamp,
        _ => FieldKind.Text,
    };
}
