using System.Xml;
using System.Xml.Linq;

namespace RapidFix.Engine.Dictionary;

/// <summary>
/// Reads QuickFIX-format dictionaries: &lt;fix type major minor servicepack&gt; with header, trailer, messages,
/// components and fields. Components are expanded in place; a field is required only when it and every component
/// around it are required. A group's delimiter is its first field (after expanding components). Startup code.
/// </summary>
internal static class DataDictionaryLoader
{
    public static DataDictionary Load(string path)
    {
        using var stream = File.OpenRead(path);
        return Load(stream, path);
    }

    public static DataDictionary Load(Stream stream, string source)
    {
        XDocument doc;
        try
        {
            doc = XDocument.Load(stream, LoadOptions.SetLineInfo);
        }
        catch (XmlException ex)
        {
            throw new DictionaryLoadException($"{source}: not well-formed XML: {ex.Message}", ex);
        }

        return new Builder(doc, source).Build();
    }

    private sealed class Builder
    {
        private readonly XDocument _doc;
        private readonly string _source;
        private readonly Dictionary<string, FieldDefinition> _fieldsByName = new(StringComparer.Ordinal);
        private readonly Dictionary<string, XElement> _components = new(StringComparer.Ordinal);
        private int _maxTag;

        public Builder(XDocument doc, string source)
        {
            _doc = doc;
            _source = source;
        }

        public DataDictionary Build()
        {
            var root = _doc.Root;
            if (root is null || root.Name.LocalName != "fix")
            {
                throw Error(root, "the root element must be <fix>");
            }

            string type = (string?)root.Attribute("type") ?? "FIX";
            if (type != "FIX" && type != "FIXT")
            {
                throw Error(root, $"<fix type='{type}'>: the type must be FIX or FIXT");
            }

            int major = RequiredInt(root, "major");
            int minor = RequiredInt(root, "minor");
            int servicePack = int.TryParse((string?)root.Attribute("servicepack"), out int sp) ? sp : 0;

            ReadFields(root);
            foreach (var c in Section(root, "components")?.Elements("component") ?? [])
            {
                string name = RequiredName(c);
                _components[name] = c;
            }

            var header = new SectionDefinition("header", Expand(Section(root, "header"), "header"), _maxTag);
            var trailer = new SectionDefinition("trailer", Expand(Section(root, "trailer"), "trailer"), _maxTag);
            var messages = new List<MessageDefinition>();
            var seenTypes = new HashSet<string>(StringComparer.Ordinal);
            foreach (var m in Section(root, "messages")?.Elements("message") ?? [])
            {
                string name = RequiredName(m);
                string msgType = (string?)m.Attribute("msgtype") ?? throw Error(m, $"<message name='{name}'> has no msgtype");
                if (!seenTypes.Add(msgType))
                {
                    throw Error(m, $"msgtype '{msgType}' is defined twice");
                }

                bool isAdmin = string.Equals((string?)m.Attribute("msgcat"), "admin", StringComparison.OrdinalIgnoreCase);
                messages.Add(new MessageDefinition(name, msgType, isAdmin, Expand(m, name), _maxTag));
            }

            return new DataDictionary(type, major, minor, servicePack, _fieldsByName.Values, header, trailer, messages, _source);
        }

        private void ReadFields(XElement root)
        {
            var fieldsElement = Section(root, "fields") ?? throw Error(root, "no <fields> section");
            var byTag = new Dictionary<int, FieldDefinition>();
            foreach (var f in fieldsElement.Elements("field"))
            {
                int tag = RequiredInt(f, "number");
                if (tag <= 0)
                {
                    throw Error(f, $"field number {tag} is not positive");
                }

                string name = RequiredName(f);
                string typeName = (string?)f.Attribute("type") ?? throw Error(f, $"<field name='{name}'> has no type");
                var values = new List<(string, string)>();
                foreach (var v in f.Elements("value"))
                {
                    string e = (string?)v.Attribute("enum") ?? throw Error(v, $"a <value> of field {name} has no enum attribute");
                    values.Add((e, (string?)v.Attribute("description") ?? string.Empty));
                }

                var def = new FieldDefinition(tag, name, FixFieldTypes.Parse(typeName), values.Count > 0 ? new EnumSet(values) : null);
                if (byTag.ContainsKey(tag))
                {
                    throw Error(f, $"field number {tag} is defined twice");
                }

                byTag[tag] = def;
                _fieldsByName[name] = def;
                _maxTag = Math.Max(_maxTag, tag);
            }

            // Link every DATA field to the Length field that gives its size: by name (XxxLen / XxxLength), else the
            // LENGTH field numbered just before it.
            foreach (var def in byTag.Values.Where(d => d.Format == ValueFormat.Data))
            {
                FieldDefinition? length = null;
                foreach (var candidate in LengthNames(def.Name))
                {
                    if (_fieldsByName.TryGetValue(candidate, out var c) && c.Type == FixFieldType.Length)
                    {
                        length = c;
                        break;
                    }
                }

                if (length is null && byTag.TryGetValue(def.Tag - 1, out var previous) && previous.Type == FixFieldType.Length)
                {
                    length = previous;
                }

                def.LengthTag = length?.Tag ?? 0;
            }
        }

        private static IEnumerable<string> LengthNames(string dataName)
        {
            yield return dataName + "Len";
            yield return dataName + "Length";
            if (dataName.EndsWith("Data", StringComparison.Ordinal))
            {
                yield return dataName + "Len";
            }
        }

        private FieldContainerDefinition.ContainerBuilder Expand(XElement? element, string owner)
        {
            var builder = new FieldContainerDefinition.ContainerBuilder();
            if (element is not null)
            {
                ExpandInto(element, builder, requiredContext: true, owner, new Stack<string>());
            }

            return builder;
        }

        private void ExpandInto(XElement element, FieldContainerDefinition.ContainerBuilder builder, bool requiredContext, string owner, Stack<string> components)
        {
            foreach (var child in element.Elements())
            {
                string name = RequiredName(child);
                bool required = requiredContext && string.Equals((string?)child.Attribute("required"), "Y", StringComparison.OrdinalIgnoreCase);
                switch (child.Name.LocalName)
                {
                    case "field":
                        builder.AddField(FieldNamed(child, name, owner).Tag, required);
                        break;

                    case "group":
                        {
                            var countField = FieldNamed(child, name, owner);
                            var inner = new FieldContainerDefinition.ContainerBuilder();
                            ExpandInto(child, inner, requiredContext: true, owner, components);
                            if (inner.Fields.Count == 0)
                            {
                                throw Error(child, $"group {name} in {owner} has no fields");
                            }

                            builder.AddField(countField.Tag, required);
                            builder.Groups.Add(new GroupDefinition(name, countField.Tag, inner.Fields[0], required, inner, _maxTag));
                            break;
                        }

                    case "component":
                        {
                            if (!_components.TryGetValue(name, out var component))
                            {
                                throw Error(child, $"component '{name}' used in {owner} is not defined in <components>");
                            }

                            if (components.Contains(name))
                            {
                                throw Error(child, $"component '{name}' includes itself (through {string.Join(" -> ", components.Reverse())})");
                            }

                            components.Push(name);
                            ExpandInto(component, builder, required, owner, components);
                            components.Pop();
                            break;
                        }

                    default:
                        throw Error(child, $"<{child.Name.LocalName}> is not allowed in {owner}: expected field, group or component");
                }
            }
        }

        private FieldDefinition FieldNamed(XElement element, string name, string owner) =>
            _fieldsByName.TryGetValue(name, out var f) ? f : throw Error(element, $"field '{name}' used in {owner} is not defined in <fields>");

        private static XElement? Section(XElement root, string name) => root.Element(name);

        private string RequiredName(XElement e) =>
            (string?)e.Attribute("name") ?? throw Error(e, $"<{e.Name.LocalName}> has no name attribute");

        private int RequiredInt(XElement e, string attribute)
        {
            string? text = (string?)e.Attribute(attribute);
            return int.TryParse(text, System.Globalization.NumberStyles.Integer, System.Globalization.CultureInfo.InvariantCulture, out int value)
                ? value
                : throw Error(e, $"<{e.Name.LocalName}> attribute '{attribute}' must be an integer (found '{text}')");
        }

        private DictionaryLoadException Error(XObject? at, string message)
        {
            int line = at is IXmlLineInfo info && info.HasLineInfo() ? info.LineNumber : 0;
            return new DictionaryLoadException(line > 0 ? $"{_source}({line}): {message}" : $"{_source}: {message}");
        }
    }
}
