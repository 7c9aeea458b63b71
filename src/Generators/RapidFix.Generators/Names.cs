using System.Collections.Generic;
using System.Globalization;
using System.Text;

namespace RapidFix.Generators;

/// <summary>C# names and literals from dictionary text.</summary>
internal static class Names
{
    private static readonly HashSet<string> Keywords = new()
    {
        "abstract", "as", "base", "bool", "break", "byte", "case", "catch", "char", "checked", "class", "const", "continue",
        "decimal", "default", "delegate", "do", "double", "else", "enum", "event", "explicit", "extern", "false", "finally",
        "fixed", "float", "for", "foreach", "goto", "if", "implicit", "in", "int", "interface", "internal", "is", "lock",
        "long", "namespace", "new", "null", "object", "operator", "out", "override", "params", "private", "protected",
        "public", "readonly", "ref", "return", "sbyte", "sealed", "short", "sizeof", "stackalloc", "static", "string",
        "struct", "switch", "this", "throw", "true", "try", "typeof", "uint", "ulong", "unchecked", "unsafe", "ushort",
        "using", "virtual", "void", "volatile", "while",
    };

    /// <summary>True for a name usable as it is: ASCII letters, digits and '_', not starting with a digit, not a keyword.</summary>
    public static bool IsIdentifier(string name)
    {
        if (name.Length == 0 || char.IsDigit(name[0]) || Keywords.Contains(name))
        {
            return false;
        }

        foreach (char c in name)
        {
            if (!(c is >= 'a' and <= 'z' || c is >= 'A' and <= 'Z' || c is >= '0' and <= '9' || c == '_'))
            {
                return false;
            }
        }

        return true;
    }

    /// <summary>"SELL_SHORT_EXEMPT" → "SellShortExempt"; anything else that is not a letter or digit separates words.</summary>
    public static string Pascal(string text)
    {
        var sb = new StringBuilder(text.Length);
        bool upper = true;
        foreach (char c in text)
        {
            if (c is >= 'a' and <= 'z' || c is >= 'A' and <= 'Z' || c is >= '0' and <= '9')
            {
                sb.Append(upper ? char.ToUpperInvariant(c) : char.ToLowerInvariant(c));
                upper = c is >= '0' and <= '9';
            }
            else
            {
                upper = true;
            }
        }

        if (sb.Length == 0 || char.IsDigit(sb[0]))
        {
            sb.Insert(0, '_');
        }

        return sb.ToString();
    }

    /// <summary><paramref name="name"/>, or with a suffix when it is taken in <paramref name="taken"/> (which then holds it).</summary>
    public static string Unique(string name, HashSet<string> taken, string suffix)
    {
        string candidate = name;
        for (int i = 2; !taken.Add(candidate); i++)
        {
            candidate = name + suffix + (i == 2 ? "" : i.ToString(CultureInfo.InvariantCulture));
        }

        return candidate;
    }

    /// <summary>A C# string literal's content (quotes and backslashes escaped; dictionary text is ASCII).</summary>
    public static string Escape(string text)
    {
        var sb = new StringBuilder(text.Length);
        foreach (char c in text)
        {
            switch (c)
            {
                case '"': sb.Append("\\\""); break;
                case '\\': sb.Append("\\\\"); break;
                default:
                    if (c < ' ' || c > '~')
                    {
                        sb.Append("\\u").Append(((int)c).ToString("x4", CultureInfo.InvariantCulture));
                    }
                    else
                    {
                        sb.Append(c);
                    }

                    break;
            }
        }

        return sb.ToString();
    }

    /// <summary>Text safe inside an XML documentation comment.</summary>
    public static string Xml(string text) => text.Replace("&", "&amp;").Replace("<", "&lt;").Replace(">", "&gt;");

    /// <summary>The MsgType key <c>RapidFix.Engine.Codec.MsgTypeKey.Pack</c> computes; 0 when the value is longer than 8 bytes.</summary>
    public static ulong PackMsgType(string msgType)
    {
        if (msgType.Length is 0 or > 8)
        {
            return 0;
        }

        ulong key = 0;
        for (int i = 0; i < msgType.Length; i++)
        {
            key |= (ulong)(byte)msgType[i] << (8 * i);
        }

        return key;
    }
}
