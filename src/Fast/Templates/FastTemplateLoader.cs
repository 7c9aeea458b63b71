using System.Globalization;
using System.Text;
using System.Xml;
using System.Xml.Linq;
using RapidFix.Engine.Fields;
using RapidFix.Pools.Phases;

namespace RapidFix.Fast.Templates;

/// <summary>
/// Loads FPL template XML (FAST 1.1 template definitions) and compiles it into a <see cref="FastTemplateRegistry"/>:
/// flat instruction arrays, dictionary keys resolved to slots of flat previous-value arrays, initial values parsed.
/// Startup work: it allocates freely and throws <see cref="FastTemplateException"/> listing every static error.
/// </summary>
/// <remarks>
/// Parsing is lenient about namespaces, as exchange files are: elements in no namespace, in the FAST 1.1 namespace,
/// in the older <c>.../ns/template-definition</c> namespace or in misspelt variants are all read; elements of
/// unrelated namespaces (extensions) are skipped. Static template references are inlined.
/// </remarks>
public sealed class FastTemplateLoader
{
    private readonly List<(XElement Element, string Source)> _templates = [];
    private readonly List<FastStaticError> _errors = [];

    /// <summary>Options that size the codec state built from the templates.</summary>
    public FastTemplateLoader()
    {
    }

    /// <summary>Loads one file and compiles it.</summary>
    public static FastTemplateRegistry LoadFile(string path) => new FastTemplateLoader().AddFile(path).Build();

    /// <summary>Loads XML text and compiles it.</summary>
    public static FastTemplateRegistry LoadXml(string xml, string sourceName = "templates") =>
        new FastTemplateLoader().AddXml(xml, sourceName).Build();

    /// <summary>Adds the templates of a file.</summary>
    public FastTemplateLoader AddFile(string path) => AddXml(File.ReadAllText(path), path);

    /// <summary>Adds the templates of XML text (a &lt;templates&gt; or a single &lt;template&gt; root).</summary>
    public FastTemplateLoader AddXml(string xml, string sourceName = "templates")
    {
        XDocument doc;
        try
        {
            doc = XDocument.Parse(xml, LoadOptions.SetLineInfo);
        }
        catch (XmlException e)
        {
            _errors.Add(new FastStaticError(FastErrorCode.S1, sourceName, null, null, e.LineNumber, "not well-formed XML: " + e.Message));
            return this;
        }

        return doc.Root is null ? this : AddElement(doc.Root, sourceName);
    }

    /// <summary>Adds the templates under an element (a &lt;templates&gt; or &lt;template&gt; element, e.g. embedded in a test file).</summary>
    public FastTemplateLoader AddElement(XElement root, string sourceName = "templates")
    {
        if (!IsFastNamespace(root.Name.Namespace))
        {
            _errors.Add(new FastStaticError(FastErrorCode.S1, sourceName, null, null, LineOf(root), $"root element '{root.Name}' is not in a FAST template namespace"));
            return this;
        }

        switch (root.Name.LocalName)
        {
            case "template":
                _templates.Add((root, sourceName));
                break;
            case "templates":
                foreach (var child in root.Elements())
                {
                    if (!IsFastNamespace(child.Name.Namespace))
                    {
                        continue; // foreign extension element
                    }

                    if (child.Name.LocalName == "template")
                    {
                        _templates.Add((child, sourceName));
                    }
                    else
                    {
                        _errors.Add(new FastStaticError(FastErrorCode.S1, sourceName, null, null, LineOf(child), $"unexpected element <{child.Name.LocalName}> in <templates>"));
                    }
                }

                break;
            default:
                _errors.Add(new FastStaticError(FastErrorCode.S1, sourceName, null, null, LineOf(root), $"root element must be <templates> or <template>, not <{root.Name.LocalName}>"));
                break;
        }

        return this;
    }

    /// <summary>Compiles everything added. Throws <see cref="FastTemplateException"/> when there are static errors.</summary>
    /// <param name="limits">Bounds for the codecs built on the registry.</param>
    /// <param name="phases">If given, compiling is refused outside startup.</param>
    public FastTemplateRegistry Build(FastCodecLimits? limits = null, PhaseController? phases = null)
    {
        phases?.EnsureStartup("compile FAST templates");
        var compiler = new Compiler(_errors);
        var registry = compiler.Compile(_templates, limits ?? FastCodecLimits.Default);
        if (_errors.Count > 0)
        {
            throw new FastTemplateException(_errors.ToArray());
        }

        return registry!;
    }

    internal static int LineOf(XObject node) => node is IXmlLineInfo info && info.HasLineInfo() ? info.LineNumber : 0;

    /// <summary>No namespace, the FAST 1.1 one, the older template-definition one, or a misspelt variant of them.</summary>
    internal static bool IsFastNamespace(XNamespace ns)
    {
        string s = ns.NamespaceName;
        if (s.Length == 0)
        {
            return true;
        }

        return s.Contains("fixprotocol", StringComparison.OrdinalIgnoreCase)
            || s.Contains("fixprotcol", StringComparison.OrdinalIgnoreCase)
            || s.Contains("/fast/", StringComparison.OrdinalIgnoreCase)
            || s.Contains("template-definition", StringComparison.OrdinalIgnoreCase);
    }

    /// <summary>Turns template elements into compiled templates.</summary>
    private sealed class Compiler
    {
        private readonly List<FastStaticError> _errors;
        private readonly Dictionary<(string Qualifier, string Key), int> _dictSlots = [];
        private readonly List<bool> _dictSlotHoldsBytes = [];
        private readonly Dictionary<string, (XElement Element, string Source)> _byName = new(StringComparer.Ordinal);
        private readonly HashSet<string> _inlining = new(StringComparer.Ordinal);
        private int _maxPmapBits;

        public Compiler(List<FastStaticError> errors) => _errors = errors;

        public FastTemplateRegistry? Compile(List<(XElement Element, string Source)> elements, FastCodecLimits limits)
        {
            foreach (var (el, source) in elements)
            {
                string? name = (string?)el.Attribute("name");
                if (string.IsNullOrEmpty(name))
                {
                    Error(FastErrorCode.S1, source, null, null, el, "template has no name");
                    continue;
                }

                _byName[name] = (el, source);
            }

            var templates = new List<FastTemplate>();
            var ids = new HashSet<uint>();
            foreach (var (el, source) in elements)
            {
                string? name = (string?)el.Attribute("name");
                if (string.IsNullOrEmpty(name))
                {
                    continue;
                }

                uint? id = null;
                string? idText = (string?)el.Attribute("id");
                if (idText is not null)
                {
                    if (uint.TryParse(idText.Trim(), NumberStyles.None, CultureInfo.InvariantCulture, out uint parsed))
                    {
                        id = parsed;
                        if (!ids.Add(parsed))
                        {
                            Error(FastErrorCode.S1, source, name, null, el, $"template id {parsed} is used twice");
                        }
                    }
                    else
                    {
                        Error(FastErrorCode.S1, source, name, null, el, $"template id '{idText}' is not an unsigned integer");
                    }
                }

                var ctx = new Context(source, name, TypeRefOf(el), (string?)el.Attribute("dictionary") ?? (string?)el.Parent?.Attribute("dictionary") ?? "global");
                var scope = new List<FastField>();
                var body = new FastGroupBody(name);
                _inlining.Clear();
                _inlining.Add(name);
                CompileBody(el, body, scope, ctx);
                FinishScope(body, scope);
                var template = new FastTemplate(name, id, body)
                {
                    TypeRef = ctx.TypeRef,
                    Reset = IsTrue((string?)el.Attribute("reset")),
                };
                template.MsgType = MsgTypeOf(body);
                _maxPmapBits = Math.Max(_maxPmapBits, body.PmapBits + 1);
                templates.Add(template);
            }

            if (_errors.Count > 0)
            {
                return null;
            }

            return new FastTemplateRegistry(templates.ToArray(), _dictSlotHoldsBytes.ToArray(), (_maxPmapBits + 6) / 7, limits);
        }

        private static byte[] MsgTypeOf(FastGroupBody body)
        {
            foreach (var f in body.ScopeFields)
            {
                if (f.Tag == 35 && f.Operator == FastOperator.Constant && f.Type.IsBytes())
                {
                    return f.InitialBytes;
                }
            }

            return [];
        }

        private static bool IsTrue(string? s) => s is not null && (s.Equals("Y", StringComparison.OrdinalIgnoreCase) || s.Equals("yes", StringComparison.OrdinalIgnoreCase) || s.Equals("true", StringComparison.OrdinalIgnoreCase) || s == "1");

        private static string? TypeRefOf(XElement el)
        {
            foreach (var child in el.Elements())
            {
                if (child.Name.LocalName == "typeRef" && IsFastNamespace(child.Name.Namespace))
                {
                    return (string?)child.Attribute("name");
                }
            }

            return null;
        }

        /// <summary>Compiles the instructions under <paramref name="parent"/> into <paramref name="body"/>; scope slots go to <paramref name="scope"/>.</summary>
        private void CompileBody(XElement parent, FastGroupBody body, List<FastField> scope, Context ctx)
        {
            var instructions = new List<FastField>();
            AppendInstructions(parent, instructions, scope, ctx);
            body.Instructions = instructions.ToArray();
            int bits = 0;
            int minBytes = 0;
            foreach (var f in instructions)
            {
                bits += PmapBitsOf(f);
                minBytes += MinBytesOf(f);
            }

            body.PmapBits = bits;
            body.HasPmap = bits > 0;
            body.MinBytes = minBytes + (bits > 0 ? 1 : 0);
            _maxPmapBits = Math.Max(_maxPmapBits, bits);
        }

        private static int PmapBitsOf(FastField f) => f.Code switch
        {
            Opcode.SplitDecimal => (f.Exponent!.UsesPmapBit ? 1 : 0) + (f.Mantissa!.UsesPmapBit ? 1 : 0),
            Opcode.Sequence => f.Length!.UsesPmapBit ? 1 : 0,
            _ => f.UsesPmapBit ? 1 : 0,
        };

        private static int MinBytesOf(FastField f) => f.Code switch
        {
            Opcode.SplitDecimal => AlwaysOnWire(f.Exponent!) ? 1 : 0,
            Opcode.Sequence => AlwaysOnWire(f.Length!) ? 1 : 0,
            Opcode.Group => f.IsOptional ? 0 : f.Body!.MinBytes,
            Opcode.TemplateRef => 2,
            _ => AlwaysOnWire(f) ? 1 : 0,
        };

        private static bool AlwaysOnWire(FastField f) => f.Operator is FastOperator.None or FastOperator.Delta;

        private static void FinishScope(FastGroupBody body, List<FastField> scope)
        {
            body.ScopeFields = scope.ToArray();
            body.ScopeTags = new int[scope.Count];
            for (int i = 0; i < scope.Count; i++)
            {
                body.ScopeTags[i] = scope[i].Tag;
                body.HasDynamicReference |= scope[i].Type == FastFieldType.TemplateReference;
            }
        }

        private void AppendInstructions(XElement parent, List<FastField> instructions, List<FastField> scope, Context ctx)
        {
            foreach (var el in parent.Elements())
            {
                if (!IsFastNamespace(el.Name.Namespace))
                {
                    continue;
                }

                string local = el.Name.LocalName;
                switch (local)
                {
                    case "typeRef":
                    case "length" when parent.Name.LocalName == "sequence":
                        continue;
                    case "templateRef":
                        CompileTemplateRef(el, instructions, scope, ctx);
                        continue;
                }

                var field = CompileField(el, scope, ctx);
                if (field is not null)
                {
                    instructions.Add(field);
                }
            }
        }

        private void CompileTemplateRef(XElement el, List<FastField> instructions, List<FastField> scope, Context ctx)
        {
            string? name = (string?)el.Attribute("name");
            if (string.IsNullOrEmpty(name))
            {
                var dyn = new FastField("templateRef", FastFieldType.TemplateReference, FastOperator.None, false, 0, LineOf(el)) { Code = Opcode.TemplateRef };
                dyn.Slot = scope.Count;
                scope.Add(dyn);
                instructions.Add(dyn);
                return;
            }

            if (!_byName.TryGetValue(name, out var target))
            {
                Error(FastErrorCode.D8, ctx.Source, ctx.Template, null, el, $"static templateRef names unknown template '{name}'");
                return;
            }

            if (!_inlining.Add(name))
            {
                Error(FastErrorCode.S1, ctx.Source, ctx.Template, null, el, $"static templateRef to '{name}' is circular");
                return;
            }

            // A static reference is as if the referenced template's instructions were written here.
            AppendInstructions(target.Element, instructions, scope, ctx);
            _inlining.Remove(name);
        }

        private FastField? CompileField(XElement el, List<FastField> scope, Context ctx)
        {
            string local = el.Name.LocalName;
            string? name = (string?)el.Attribute("name");
            if (string.IsNullOrEmpty(name))
            {
                Error(FastErrorCode.S1, ctx.Source, ctx.Template, null, el, $"<{local}> has no name");
                return null;
            }

            bool optional = false;
            string? presence = (string?)el.Attribute("presence");
            if (presence is not null)
            {
                if (presence == "optional")
                {
                    optional = true;
                }
                else if (presence != "mandatory")
                {
                    Error(FastErrorCode.S1, ctx.Source, ctx.Template, name, el, $"presence '{presence}' is neither mandatory nor optional");
                }
            }

            int tag = TagOf(el, name);
            switch (local)
            {
                case "uInt32":
                    return Scalar(el, name, FastFieldType.UInt32, optional, tag, scope, ctx);
                case "int32":
                    return Scalar(el, name, FastFieldType.Int32, optional, tag, scope, ctx);
                case "uInt64":
                    return Scalar(el, name, FastFieldType.UInt64, optional, tag, scope, ctx);
                case "int64":
                    return Scalar(el, name, FastFieldType.Int64, optional, tag, scope, ctx);
                case "string":
                    string? charset = (string?)el.Attribute("charset");
                    var stype = charset == "unicode" ? FastFieldType.UnicodeString : FastFieldType.AsciiString;
                    if (charset is not null && charset != "unicode" && charset != "ascii")
                    {
                        Error(FastErrorCode.S1, ctx.Source, ctx.Template, name, el, $"charset '{charset}' is neither ascii nor unicode");
                    }

                    return Scalar(el, name, stype, optional, tag, scope, ctx);
                case "byteVector":
                    return Scalar(el, name, FastFieldType.ByteVector, optional, tag, scope, ctx);
                case "decimal":
                    return Decimal(el, name, optional, tag, scope, ctx);
                case "sequence":
                    return Sequence(el, name, optional, tag, scope, ctx);
                case "group":
                    return Group(el, name, optional, tag, scope, ctx);
                default:
                    Error(FastErrorCode.S1, ctx.Source, ctx.Template, name, el, $"unknown instruction <{local}>");
                    return null;
            }
        }

        private static int TagOf(XElement el, string name)
        {
            string? id = (string?)el.Attribute("id");
            if (id is not null && int.TryParse(id.Trim(), NumberStyles.None, CultureInfo.InvariantCulture, out int tag))
            {
                return tag;
            }

            // FPL's sample templates name fields by their tag number and give no id.
            return id is null && int.TryParse(name, NumberStyles.None, CultureInfo.InvariantCulture, out tag) ? tag : 0;
        }

        private Context Nested(XElement el, Context ctx) =>
            ctx with
            {
                TypeRef = TypeRefOf(el) ?? ctx.TypeRef,
                Dictionary = (string?)el.Attribute("dictionary") ?? ctx.Dictionary,
            };

        private FastField Scalar(XElement el, string name, FastFieldType type, bool optional, int tag, List<FastField> scope, Context ctx)
        {
            var opEl = OperatorElement(el, ctx, name);
            var field = MakeScalar(el, opEl, name, type, optional, tag, ctx, keySuffix: null);
            field.Slot = scope.Count;
            scope.Add(field);
            return field;
        }

        /// <summary>Builds a scalar instruction from its operator element (validating S2-S5) without giving it a slot.</summary>
        private FastField MakeScalar(XElement fieldEl, XElement? opEl, string name, FastFieldType type, bool optional, int tag, Context ctx, string? keySuffix)
        {
            var op = opEl is null ? FastOperator.None : ParseOperator(opEl.Name.LocalName);
            var field = new FastField(name, type, op, optional, tag, LineOf(opEl ?? fieldEl));
            field.Code = type switch
            {
                FastFieldType.Decimal => Opcode.Decimal,
                FastFieldType.AsciiString => Opcode.Ascii,
                FastFieldType.UnicodeString or FastFieldType.ByteVector => Opcode.Bytes,
                _ => Opcode.Int,
            };
            SetBounds(field);
            field.UsesPmapBit = op switch
            {
                FastOperator.None or FastOperator.Delta => false,
                FastOperator.Constant => optional,
                _ => true,
            };
            field.Nullable = optional && op != FastOperator.Constant;

            bool applicable = op switch
            {
                FastOperator.Increment => type.IsInteger(),
                FastOperator.Tail => type.IsBytes(),
                _ => true,
            };
            if (!applicable)
            {
                Error(FastErrorCode.S2, ctx.Source, ctx.Template, name, opEl ?? fieldEl, $"operator {op} does not apply to type {type}");
            }

            string? value = (string?)opEl?.Attribute("value");
            if (value is not null)
            {
                ParseInitial(field, value, ctx, opEl!);
            }
            else if (op == FastOperator.Constant)
            {
                Error(FastErrorCode.S4, ctx.Source, ctx.Template, name, opEl!, "constant operator without a value");
            }
            else if (op == FastOperator.Default && !optional)
            {
                Error(FastErrorCode.S5, ctx.Source, ctx.Template, name, opEl!, "default operator on a mandatory field without a value");
            }

            if (op is FastOperator.Copy or FastOperator.Increment or FastOperator.Delta or FastOperator.Tail)
            {
                string dictionary = (string?)opEl!.Attribute("dictionary") ?? ctx.Dictionary;
                string qualifier = dictionary switch
                {
                    "global" => "global",
                    "template" => "template:" + ctx.Template,
                    "type" => "type:" + (ctx.TypeRef ?? ""),
                    _ => "named:" + dictionary,
                };
                string key = ((string?)opEl.Attribute("key") ?? name) + keySuffix;
                if (!_dictSlots.TryGetValue((qualifier, key), out int slot))
                {
                    slot = _dictSlotHoldsBytes.Count;
                    _dictSlots.Add((qualifier, key), slot);
                    _dictSlotHoldsBytes.Add(false);
                }

                if (type.IsBytes())
                {
                    _dictSlotHoldsBytes[slot] = true;
                }

                field.DictSlot = slot;
            }

            return field;
        }

        private static void SetBounds(FastField f)
        {
            switch (f.Type)
            {
                case FastFieldType.UInt32:
                    f.MaxUnsigned = uint.MaxValue;
                    break;
                case FastFieldType.Int32:
                    f.MinValue = int.MinValue;
                    f.MaxSigned = int.MaxValue;
                    break;
                case FastFieldType.UInt64:
                    f.MaxUnsigned = ulong.MaxValue;
                    break;
                default:
                    f.MinValue = long.MinValue;
                    f.MaxSigned = long.MaxValue;
                    break;
            }
        }

        private FastField Decimal(XElement el, string name, bool optional, int tag, List<FastField> scope, Context ctx)
        {
            XElement? expEl = null, mantEl = null;
            foreach (var child in el.Elements())
            {
                if (!IsFastNamespace(child.Name.Namespace))
                {
                    continue;
                }

                if (child.Name.LocalName == "exponent")
                {
                    expEl = child;
                }
                else if (child.Name.LocalName == "mantissa")
                {
                    mantEl = child;
                }
            }

            if (expEl is null && mantEl is null)
            {
                return Scalar(el, name, FastFieldType.Decimal, optional, tag, scope, ctx);
            }

            var field = new FastField(name, FastFieldType.Decimal, FastOperator.None, optional, tag, LineOf(el)) { Code = Opcode.SplitDecimal };
            var expOp = expEl is null ? null : OperatorElement(expEl, ctx, name);
            var mantOp = mantEl is null ? null : OperatorElement(mantEl, ctx, name);
            var exponent = MakeScalar(expEl ?? el, expOp, name, FastFieldType.Int32, optional, tag, ctx, keySuffix: "\u0001exponent");
            var mantissa = MakeScalar(mantEl ?? el, mantOp, name, FastFieldType.Int64, false, tag, ctx, keySuffix: "\u0001mantissa");
            if (exponent.HasInitial && (exponent.InitialInt < -63 || exponent.InitialInt > 63))
            {
                Error(FastErrorCode.S3, ctx.Source, ctx.Template, name, expOp ?? el, $"exponent initial value {exponent.InitialInt} is outside [-63, 63]");
            }

            field.Exponent = exponent;
            field.Mantissa = mantissa;
            field.Slot = scope.Count;
            scope.Add(field);
            return field;
        }

        private FastField Sequence(XElement el, string name, bool optional, int tag, List<FastField> scope, Context ctx)
        {
            var inner = Nested(el, ctx);
            XElement? lengthEl = el.Elements().FirstOrDefault(e => e.Name.LocalName == "length" && IsFastNamespace(e.Name.Namespace));
            string lengthName = (string?)lengthEl?.Attribute("name") ?? name + ".length";
            int lengthTag = lengthEl is null ? 0 : TagOf(lengthEl, lengthName);
            var lengthOp = lengthEl is null ? null : OperatorElement(lengthEl, inner, lengthName);
            var length = MakeScalar(lengthEl ?? el, lengthOp, lengthName, FastFieldType.UInt32, optional, lengthTag, inner, keySuffix: null);

            // A sequence is found by its length field's tag (the NoXxx count tag), like a FIX repeating group.
            var field = new FastField(name, FastFieldType.Sequence, FastOperator.None, optional, lengthTag != 0 ? lengthTag : tag, LineOf(el))
            {
                Code = Opcode.Sequence,
                Length = length,
            };
            field.Slot = scope.Count;
            scope.Add(field);

            var body = new FastGroupBody(name);
            var entryScope = new List<FastField>();
            CompileBody(el, body, entryScope, inner);
            FinishScope(body, entryScope);
            field.Body = body;
            return field;
        }

        private FastField Group(XElement el, string name, bool optional, int tag, List<FastField> scope, Context ctx)
        {
            var field = new FastField(name, FastFieldType.Group, FastOperator.None, optional, tag, LineOf(el))
            {
                Code = Opcode.Group,
                UsesPmapBit = optional,
            };
            field.Slot = scope.Count;
            scope.Add(field);

            // A group's fields live in the enclosing scope (FIX has no non-repeating nested groups).
            var body = new FastGroupBody(name);
            CompileBody(el, body, scope, Nested(el, ctx));
            field.Body = body;
            return field;
        }

        private XElement? OperatorElement(XElement el, Context ctx, string fieldName)
        {
            XElement? found = null;
            foreach (var child in el.Elements())
            {
                if (!IsFastNamespace(child.Name.Namespace))
                {
                    continue;
                }

                switch (child.Name.LocalName)
                {
                    case "constant":
                    case "default":
                    case "copy":
                    case "increment":
                    case "delta":
                    case "tail":
                        if (found is not null)
                        {
                            Error(FastErrorCode.S1, ctx.Source, ctx.Template, fieldName, child, "more than one operator");
                        }

                        found = child;
                        break;
                }
            }

            return found;
        }

        private static FastOperator ParseOperator(string local) => local switch
        {
            "constant" => FastOperator.Constant,
            "default" => FastOperator.Default,
            "copy" => FastOperator.Copy,
            "increment" => FastOperator.Increment,
            "delta" => FastOperator.Delta,
            "tail" => FastOperator.Tail,
            _ => FastOperator.None,
        };

        private void ParseInitial(FastField f, string value, Context ctx, XElement opEl)
        {
            string v = value.Trim();
            bool ok;
            switch (f.Type)
            {
                case FastFieldType.UInt32:
                    ok = uint.TryParse(v, NumberStyles.None, CultureInfo.InvariantCulture, out uint u32);
                    f.InitialInt = u32;
                    break;
                case FastFieldType.UInt64:
                    ok = ulong.TryParse(v, NumberStyles.None, CultureInfo.InvariantCulture, out ulong u64);
                    f.InitialInt = (long)u64;
                    break;
                case FastFieldType.Int32:
                    ok = int.TryParse(v, NumberStyles.AllowLeadingSign, CultureInfo.InvariantCulture, out int i32);
                    f.InitialInt = i32;
                    break;
                case FastFieldType.Int64:
                    ok = long.TryParse(v, NumberStyles.AllowLeadingSign, CultureInfo.InvariantCulture, out long i64);
                    f.InitialInt = i64;
                    break;
                case FastFieldType.Decimal:
                    ok = TryParseDecimal(v, out long mantissa, out int exponent);
                    f.InitialInt = mantissa;
                    f.InitialExponent = exponent;
                    break;
                case FastFieldType.AsciiString:
                    ok = true;
                    foreach (char c in value)
                    {
                        ok &= c < 0x80;
                    }

                    f.InitialBytes = Encoding.ASCII.GetBytes(value);
                    break;
                case FastFieldType.UnicodeString:
                    ok = true;
                    f.InitialBytes = Encoding.UTF8.GetBytes(value);
                    break;
                default:
                    ok = TryParseHex(v, out var bytes);
                    f.InitialBytes = bytes;
                    break;
            }

            if (!ok)
            {
                Error(FastErrorCode.S3, ctx.Source, ctx.Template, f.Name, opEl, $"initial value '{value}' is not a valid {f.Type}");
                return;
            }

            f.HasInitial = true;
        }

        /// <summary>Parses a decimal initial value and normalizes it (no trailing zeros in the mantissa), as FAST converts strings.</summary>
        internal static bool TryParseDecimal(string text, out long mantissa, out int exponent)
        {
            mantissa = 0;
            exponent = 0;
            int extra = 0;
            string s = text;
            int e = s.IndexOfAny(['e', 'E']);
            if (e >= 0)
            {
                if (!int.TryParse(s.AsSpan(e + 1), NumberStyles.AllowLeadingSign, CultureInfo.InvariantCulture, out extra))
                {
                    return false;
                }

                s = s.Substring(0, e);
            }

            if (s.StartsWith('+'))
            {
                s = s.Substring(1);
            }

            if (!FixDecimal.TryParse(Encoding.ASCII.GetBytes(s), out var d))
            {
                return false;
            }

            var n = new FixDecimal(d.Mantissa, d.Exponent + extra).Normalize();
            mantissa = n.Mantissa;
            exponent = n.Exponent;
            return exponent >= -63 && exponent <= 63;
        }

        private static bool TryParseHex(string text, out byte[] bytes)
        {
            var compact = new StringBuilder();
            foreach (char c in text)
            {
                if (!char.IsWhiteSpace(c))
                {
                    compact.Append(c);
                }
            }

            try
            {
                bytes = Convert.FromHexString(compact.ToString());
                return true;
            }
            catch (FormatException)
            {
                bytes = [];
                return false;
            }
        }

        private void Error(FastErrorCode code, string source, string? template, string? field, XObject at, string message) =>
            _errors.Add(new FastStaticError(code, source, template, field, LineOf(at), message));
    }

    private sealed record Context(string Source, string Template, string? TypeRef, string Dictionary);
}
