using System.Globalization;
using System.Text;
using RapidFix.Engine.Fields;
using RapidFix.Fast.Messages;
using RapidFix.Fast.Templates;

namespace RapidFix.Fast.Tests.Support;

/// <summary>
/// Renders a decoded message in the text form of the openfast conformance file
/// ("TestTemplate -> {1, 10.55, abc, [ [group1 -> {1, 2, }] ], }"), and parses that form back into a message.
/// Test-only code: it allocates freely.
/// </summary>
internal static class MessageText
{
    public static string Format(FastMessage message)
    {
        var template = message.Template!;
        var sb = new StringBuilder();
        sb.Append(template.Name).Append(" -> {").Append(template.Id).Append(", ");
        AppendScope(sb, message, FieldScope.Message);
        sb.Append('}');
        return sb.ToString();
    }

    private static void AppendScope(StringBuilder sb, FastMessage message, FieldScope scope)
    {
        var fields = message.GetFields(scope);
        for (int slot = 0; slot < fields.Length; slot++)
        {
            var field = fields[slot];
            if (field.Type == FastFieldType.Group)
            {
                continue; // a group's fields follow in the same scope
            }

            var v = message.GetValue(scope, slot);
            switch (v.Kind)
            {
                case FastValueKind.Absent:
                    break;
                case FastValueKind.Integer:
                    sb.Append(v.Int.ToString(CultureInfo.InvariantCulture));
                    break;
                case FastValueKind.UnsignedInteger:
                    sb.Append(((ulong)v.Int).ToString(CultureInfo.InvariantCulture));
                    break;
                case FastValueKind.Decimal:
                    sb.Append(new FixDecimal(v.Int, v.Aux).Normalize().ToString());
                    break;
                case FastValueKind.Bytes:
                    sb.Append(Encoding.UTF8.GetString(message.GetBytes(v)));
                    break;
                case FastValueKind.Sequence:
                    sb.Append("[ ");
                    int count = (int)v.Int;
                    for (int i = 0; i < count; i++)
                    {
                        sb.Append('[').Append(field.Name).Append(" -> {");
                        AppendScope(sb, message, message.GetNestedScope(v, i));
                        sb.Append("}] ");
                    }

                    sb.Append(']');
                    break;
            }

            sb.Append(", ");
        }
    }

    /// <summary>Collapses whitespace so texts compare regardless of layout.</summary>
    public static string Normalize(string text) => string.Join(' ', text.Split((char[]?)null, StringSplitOptions.RemoveEmptyEntries));

    /// <summary>Builds a message of <paramref name="registry"/> from its text form (decimals are parsed normalized, as FAST converts strings).</summary>
    public static void Parse(string text, FastTemplateRegistry registry, FastMessage message)
    {
        var p = new Parser(Normalize(text));
        string name = p.ReadUntil(" -> {");
        var template = registry.Find(name) ?? throw new InvalidOperationException($"unknown template {name}");
        message.Begin(template);
        string id = p.ReadUntil(", ");
        Assert.Equal(template.Id!.Value.ToString(CultureInfo.InvariantCulture), id);
        ParseScope(ref p, message, FieldScope.Message);
        p.Expect("}");
    }

    private static void ParseScope(ref Parser p, FastMessage message, FieldScope scope)
    {
        var fields = message.GetFields(scope).ToArray();
        foreach (var field in fields)
        {
            if (field.Type == FastFieldType.Group)
            {
                continue;
            }

            if (field.Type == FastFieldType.Sequence)
            {
                if (p.TryExpect(", "))
                {
                    continue; // absent
                }

                p.Expect("[ ");
                var entries = new List<int>();
                int count = p.CountEntries();
                var first = message.SetSequence(scope, field.Tag, count);
                for (int i = 0; i < count; i++)
                {
                    p.Expect("[" + field.Name + " -> {");
                    ParseScope(ref p, message, new FieldScope(first.Id + i));
                    p.Expect("}] ");
                }

                p.Expect("], ");
                continue;
            }

            string value = p.ReadUntil(", ");
            if (value.Length == 0 && field.IsOptional && !field.Type.IsBytes())
            {
                message.SetAbsent(scope, field.Tag);
                continue;
            }

            switch (field.Type)
            {
                case FastFieldType.UInt64:
                    message.SetInteger(scope, field.Tag, (long)ulong.Parse(value, CultureInfo.InvariantCulture));
                    break;
                case FastFieldType.UInt32:
                case FastFieldType.Int32:
                case FastFieldType.Int64:
                    message.SetInteger(scope, field.Tag, long.Parse(value, CultureInfo.InvariantCulture));
                    break;
                case FastFieldType.Decimal:
                    Assert.True(FixDecimal.TryParse(Encoding.ASCII.GetBytes(value), out var d), value);
                    message.SetDecimal(scope, field.Tag, d.Normalize());
                    break;
                default:
                    if (value.Length == 0 && field.IsOptional)
                    {
                        message.SetAbsent(scope, field.Tag); // the text form cannot tell an empty string from an absent one
                    }
                    else
                    {
                        message.SetBytes(scope, field.Tag, Encoding.UTF8.GetBytes(value));
                    }

                    break;
            }
        }
    }

    private ref struct Parser
    {
        private readonly string _text;
        private int _pos;

        public Parser(string text)
        {
            _text = text;
            _pos = 0;
        }

        public string ReadUntil(string terminator)
        {
            int end = _text.IndexOf(terminator, _pos, StringComparison.Ordinal);
            Assert.True(end >= 0, $"expected '{terminator}' after position {_pos} in {_text}");
            string s = _text.Substring(_pos, end - _pos);
            _pos = end + terminator.Length;
            return s;
        }

        public void Expect(string s) => Assert.True(TryExpect(s), $"expected '{s}' at {_pos} in {_text}");

        public bool TryExpect(string s)
        {
            if (string.CompareOrdinal(_text, _pos, s, 0, s.Length) == 0)
            {
                _pos += s.Length;
                return true;
            }

            return false;
        }

        /// <summary>Counts the entries of the sequence starting at the position (entries at nesting depth 1).</summary>
        public readonly int CountEntries()
        {
            int depth = 0;
            int count = 0;
            for (int i = _pos; i < _text.Length; i++)
            {
                char c = _text[i];
                if (c == '[')
                {
                    if (depth == 0)
                    {
                        count++;
                    }

                    depth++;
                }
                else if (c == ']')
                {
                    if (depth == 0)
                    {
                        return count;
                    }

                    depth--;
                }
            }

            return count;
        }
    }
}
