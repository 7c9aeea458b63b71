using System.Buffers.Binary;
using System.Diagnostics.CodeAnalysis;
using System.Runtime.CompilerServices;

namespace RapidFix.Engine.Dictionary;

/// <summary>
/// A compiled FIX data dictionary: fields by tag, header, trailer and message types, ready for allocation-free
/// lookups. Loaded once at startup from a QuickFIX-format XML file (<see cref="Load(string)"/>), unchanged.
/// For FIX 5.x, <see cref="Combine"/> joins the FIXT 1.1 transport dictionary (header, trailer, session messages)
/// with an application dictionary.
/// </summary>
public sealed class DataDictionary
{
    private readonly FieldDefinition?[] _fieldsByTag;
    private readonly int[] _lengthTagOfData;
    private readonly Dictionary<string, FieldDefinition> _fieldsByName;
    private readonly Dictionary<string, MessageDefinition> _messagesByType;
    private readonly ulong[] _typeKeys;
    private readonly MessageDefinition?[] _typeDefs;
    private readonly int _typeShift;
    private readonly byte[] _section;

    internal DataDictionary(
        string type,
        int major,
        int minor,
        int servicePack,
        IEnumerable<FieldDefinition> fields,
        SectionDefinition header,
        SectionDefinition trailer,
        IEnumerable<MessageDefinition> messages,
        string source)
    {
        Type = type;
        Major = major;
        Minor = minor;
        ServicePack = servicePack;
        Source = source;
        Header = header;
        Trailer = trailer;

        _fieldsByName = new Dictionary<string, FieldDefinition>(StringComparer.Ordinal);
        int maxTag = 0;
        var fieldList = fields.ToList();
        foreach (var f in fieldList)
        {
            maxTag = Math.Max(maxTag, f.Tag);
            _fieldsByName[f.Name] = f;
        }

        MaxTag = maxTag;
        _fieldsByTag = new FieldDefinition?[maxTag + 1];
        _lengthTagOfData = new int[maxTag + 1];
        foreach (var f in fieldList)
        {
            _fieldsByTag[f.Tag] = f;
            if (f.LengthTag > 0)
            {
                _lengthTagOfData[f.Tag] = f.LengthTag;
            }
        }

        // 1 = header, 2 = trailer; a tag in neither belongs to the body. The standard header and trailer tags are
        // placed there even when this version does not define them (OnBehalfOfLocationID in FIX 4.0): QuickFIX
        // files them by a fixed list before it looks at the dictionary, so such a tag is an invalid header field,
        // reported before any body problem, not an unknown body field. The dictionary's header wins over a trailer.
        _section = new byte[Math.Max(maxTag, StandardSectionMaxTag) + 1];
        foreach (int tag in StandardTrailerTags)
        {
            _section[tag] = 2;
        }

        foreach (int tag in trailer.FieldOrder)
        {
            if (tag <= maxTag)
            {
                _section[tag] = 2;
            }
        }

        foreach (int tag in StandardHeaderTags)
        {
            _section[tag] = 1;
        }

        foreach (int tag in header.FieldOrder)
        {
            if (tag <= maxTag)
            {
                _section[tag] = 1;
            }
        }

        _messagesByType = new Dictionary<string, MessageDefinition>(StringComparer.Ordinal);
        foreach (var m in messages)
        {
            _messagesByType[m.MsgType] = m;
        }

        int bits = Math.Max(4, (int)Math.Ceiling(Math.Log2(Math.Max(1, _messagesByType.Count) * 4)));
        _typeShift = 64 - bits;
        _typeKeys = new ulong[1 << bits];
        _typeDefs = new MessageDefinition?[1 << bits];
        foreach (var m in _messagesByType.Values)
        {
            if (m.MsgTypeBytes.Length is 0 or > 8)
            {
                continue; // not representable as a packed key; found through the slow path
            }

            ulong key = PackMsgType(m.MsgTypeBytes);
            int slot = (int)((key * 0x9E3779B97F4A7C15UL) >> _typeShift);
            while (_typeKeys[slot] != 0)
            {
                slot = (slot + 1) & (_typeKeys.Length - 1);
            }

            _typeKeys[slot] = key;
            _typeDefs[slot] = m;
        }
    }

    /// <summary>"FIX" or "FIXT".</summary>
    public string Type { get; }

    /// <summary>The FIX major version (4 for FIX.4.4, 5 for FIX.5.0SP2).</summary>
    public int Major { get; }

    /// <summary>The FIX minor version.</summary>
    public int Minor { get; }

    /// <summary>Service pack of FIX 5.0 (0 otherwise).</summary>
    public int ServicePack { get; }

    /// <summary>Where the dictionary was loaded from (a path or a name), for messages.</summary>
    public string Source { get; }

    /// <summary>The version as QuickFIX names it: "FIX.4.4", "FIXT.1.1", "FIX.5.0SP2".</summary>
    public string Version => ServicePack > 0 ? $"{Type}.{Major}.{Minor}SP{ServicePack}" : $"{Type}.{Major}.{Minor}";

    /// <summary>The BeginString (8) of messages that use this dictionary: FIX 5.x travels over "FIXT.1.1".</summary>
    public string BeginString => Type == "FIXT" || Major >= 5 ? "FIXT.1.1" : $"FIX.{Major}.{Minor}";

    /// <summary>The largest tag number defined.</summary>
    public int MaxTag { get; }

    /// <summary>The fields of the standard header.</summary>
    public SectionDefinition Header { get; }

    /// <summary>The fields of the standard trailer.</summary>
    public SectionDefinition Trailer { get; }

    /// <summary>Every message type.</summary>
    public IReadOnlyCollection<MessageDefinition> Messages => _messagesByType.Values;

    /// <summary>Every field.</summary>
    public IEnumerable<FieldDefinition> Fields => _fieldsByName.Values;

    /// <summary>The field with this tag, or null when the dictionary does not define it.</summary>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    public FieldDefinition? GetField(int tag) => (uint)tag < (uint)_fieldsByTag.Length ? _fieldsByTag[tag] : null;

    /// <summary>The field with this name, or null.</summary>
    public FieldDefinition? GetField(string name) => _fieldsByName.GetValueOrDefault(name);

    /// <summary>Header tags of every FIX version (QuickFIX's fixed list): header fields whatever the dictionary says.</summary>
    private static readonly int[] StandardHeaderTags =
    [
        8, 9, 35, 49, 56, 115, 128, 90, 34, 50, 142, 57, 143, 116, 144, 129, 145, 43, 97, 52, 122, 212, 213, 347, 369,
    ];

    /// <summary>Trailer tags of every FIX version: SignatureLength, Signature, CheckSum.</summary>
    private static readonly int[] StandardTrailerTags = [93, 89, 10];

    private const int StandardSectionMaxTag = 369;

    /// <summary>Where a tag belongs: 1 header, 2 trailer, 0 body (or undefined).</summary>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    public byte SectionOf(int tag) => (uint)tag < (uint)_section.Length ? _section[tag] : (byte)0;

    /// <summary>True for a header field.</summary>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    public bool IsHeaderField(int tag) => (uint)tag < (uint)_section.Length && _section[tag] == 1;

    /// <summary>True for a trailer field.</summary>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    public bool IsTrailerField(int tag) => (uint)tag < (uint)_section.Length && _section[tag] == 2;

    /// <summary>For a DATA / XMLDATA field, the tag of the Length field that precedes it; otherwise 0.</summary>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    public int LengthTagOf(int tag) => (uint)tag < (uint)_lengthTagOfData.Length ? _lengthTagOfData[tag] : 0;

    /// <summary>Finds a message type without allocating.</summary>
    public bool TryGetMessage(ReadOnlySpan<byte> msgType, [NotNullWhen(true)] out MessageDefinition? definition)
    {
        if (msgType.Length is >= 1 and <= 8)
        {
            ulong key = PackMsgType(msgType);
            int mask = _typeKeys.Length - 1;
            int slot = (int)((key * 0x9E3779B97F4A7C15UL) >> _typeShift);
            while (true)
            {
                ulong k = _typeKeys[slot];
                if (k == key)
                {
                    definition = _typeDefs[slot]!;
                    return true;
                }

                if (k == 0)
                {
                    break;
                }

                slot = (slot + 1) & mask;
            }

            definition = null;
            return false;
        }

        return TryGetLongMessage(msgType, out definition);
    }

    /// <summary>The message type with this MsgType, or null.</summary>
    public MessageDefinition? GetMessage(string msgType) => _messagesByType.GetValueOrDefault(msgType);

    /// <summary>
    /// True when MsgType is listed among the enumerated values of field 35 even though the dictionary has no
    /// definition for it: a valid but unsupported message type (answered with a BusinessMessageReject).
    /// </summary>
    public bool IsEnumeratedMsgType(ReadOnlySpan<byte> msgType) => GetField(35)?.Enums?.Contains(msgType) == true;

    /// <summary>Loads a QuickFIX-format dictionary file.</summary>
    /// <exception cref="DictionaryLoadException">The file is not a valid dictionary; the message names the file, line and element.</exception>
    public static DataDictionary Load(string path) => DataDictionaryLoader.Load(path);

    /// <summary>Loads a QuickFIX-format dictionary from a stream; <paramref name="sourceName"/> is used in messages.</summary>
    public static DataDictionary Load(Stream stream, string sourceName) => DataDictionaryLoader.Load(stream, sourceName);

    /// <summary>
    /// Joins a FIXT transport dictionary (header, trailer, session messages) and a FIX 5.x application dictionary
    /// into one dictionary for sessions that run the application version over FIXT.
    /// </summary>
    public static DataDictionary Combine(DataDictionary transport, DataDictionary application)
    {
        ArgumentNullException.ThrowIfNull(transport);
        ArgumentNullException.ThrowIfNull(application);
        var fields = new Dictionary<int, FieldDefinition>();
        foreach (var f in transport.Fields)
        {
            fields[f.Tag] = f;
        }

        foreach (var f in application.Fields)
        {
            fields[f.Tag] = f;
        }

        var messages = new Dictionary<string, MessageDefinition>(StringComparer.Ordinal);
        foreach (var m in transport.Messages)
        {
            messages[m.MsgType] = m;
        }

        foreach (var m in application.Messages)
        {
            if (!messages.ContainsKey(m.MsgType) || !m.IsAdmin)
            {
                messages[m.MsgType] = m;
            }
        }

        // MsgType (35) enumerations: the application's list is the complete one.
        return new DataDictionary(
            application.Type,
            application.Major,
            application.Minor,
            application.ServicePack,
            fields.Values,
            transport.Header,
            transport.Trailer,
            messages.Values,
            $"{transport.Source} + {application.Source}");
    }

    /// <summary>The version and where the dictionary was loaded from.</summary>
    public override string ToString() => $"{Version} ({Source})";

    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    private static ulong PackMsgType(ReadOnlySpan<byte> msgType)
    {
        if (msgType.Length == 1)
        {
            return msgType[0];
        }

        if (msgType.Length == 2)
        {
            return (ulong)(msgType[0] | (msgType[1] << 8));
        }

        Span<byte> eight = stackalloc byte[8];
        eight.Clear();
        msgType.CopyTo(eight);
        return BinaryPrimitives.ReadUInt64LittleEndian(eight);
    }

    [MethodImpl(MethodImplOptions.NoInlining)]
    private bool TryGetLongMessage(ReadOnlySpan<byte> msgType, [NotNullWhen(true)] out MessageDefinition? definition)
    {
        foreach (var m in _messagesByType.Values)
        {
            if (msgType.SequenceEqual(m.MsgTypeBytes))
            {
                definition = m;
                return true;
            }
        }

        definition = null;
        return false;
    }
}
