using System.Runtime.CompilerServices;
using System.Runtime.InteropServices;
using RapidFix.Engine.Dictionary;
using RapidFix.Engine.Fields;

namespace RapidFix.Engine.Codec;

/// <summary>
/// A flyweight view of one FIX tag=value message: an index of field offsets over the message bytes, built in one
/// pass, with typed getters that read straight from the bytes. Nothing is copied or allocated per message; the
/// view is reused for message after message (pool it, or keep one per session).
/// </summary>
/// <remarks>
/// <para><see cref="Parse(byte[], int, int, DataDictionary?)"/> wraps bytes the caller owns (usually a receive
/// buffer): the view is valid while those bytes are. <see cref="ParseCopy"/> copies into the view's own buffer
/// first, so the view outlives the source.</para>
/// <para>With a <see cref="DataDictionary"/>, the parse also resolves the structure: header, body and trailer,
/// repeating groups (nested to any depth), fields repeated or out of order. <see cref="Validation.MessageValidator"/>
/// then checks values against the dictionary. Without one, every field is a top-level field and groups are not
/// resolved.</para>
/// </remarks>
public sealed partial class FixMessage : IFieldAccessor
{
    private const int NoField = -1;

    /// <summary>Values of <see cref="FieldEntry.Section"/> (as <see cref="DataDictionary.SectionOf"/> returns them).</summary>
    internal const byte SectionBody = 0;
    internal const byte SectionHeader = 1;
    internal const byte SectionTrailer = 2;

    private readonly byte[] _own;
    private readonly FieldEntry[] _fields;
    private readonly long[] _index;
    private readonly GroupInstance[] _groups;
    private readonly EntryInfo[] _entries;
    private readonly int[] _entryOrder;
    private readonly ulong[] _sohBits;

    private byte[] _buffer = [];
    private int _start;
    private int _length;
    private int _count;
    private int _generation;
    private int _groupCount;
    private int _entryCount;
    private DataDictionary? _dictionary;
    private MessageDefinition? _definition;
    private FixParseError _error;
    private int _errorOffset;
    private int _outOfOrderTag;
    private bool _hasOutOfOrder;
    private int _repeatedTag;
    private bool _hasRepeated;
    private bool _clean;
    private bool _groupsClean;
    private readonly bool _screenValues;
    private int _groupDelimiterCountTag;
    private int _groupDelimiterTag;
    private int _groupOrderCountTag;
    private int _groupOrderTag;
    private int _delimiterInValueTag;
    private bool _hasDelimiterInValue;
    private int _errorTag;

    /// <summary>A view with the default table sizes (<see cref="FixMessageOptions.Default"/>): create it at startup and parse into it again and again.</summary>
    public FixMessage()
        : this(FixMessageOptions.Default)
    {
    }

    /// <summary>A view whose tables (fields, groups, indexed tags) are sized by <paramref name="options"/>; exceeding them is a parse error, not growth.</summary>
    public FixMessage(FixMessageOptions options)
    {
        ArgumentNullException.ThrowIfNull(options);
        options.Validate();
        Options = options;
        _screenValues = options.ScreenValues;
        _own = GC.AllocateUninitializedArray<byte>(options.MaxMessageSize, pinned: false);
        _fields = new FieldEntry[options.MaxFields];
        _index = new long[options.MaxIndexedTag + 1];

        // Every group instance has a count field, and every entry at least one field: neither table can be the
        // smaller limit, so a message within both limits never fails for want of a group slot.
        _groups = new GroupInstance[Math.Max(1, Math.Min(options.MaxFields, options.MaxGroupEntries))];
        _entries = new EntryInfo[options.MaxGroupEntries];
        _entryOrder = new int[options.MaxGroupEntries];
        _sohBits = new ulong[DelimiterScanner.WordsFor(options.MaxMessageSize)];
    }

    /// <summary>The table sizes this view was created with.</summary>
    public FixMessageOptions Options { get; }

    /// <summary>The result of the last parse.</summary>
    public FixParseError Error => _error;

    /// <summary>For a parse error: the offset in the message where it was found.</summary>
    public int ErrorOffset => _errorOffset;

    /// <summary>
    /// For <see cref="FixParseError.TooManyGroupEntries"/>: the NumInGroup tag of the group that went past the limit
    /// (0 otherwise).
    /// </summary>
    public int ErrorTag => _errorTag;

    /// <summary>
    /// True after a parse that failed on a limit (<see cref="FixParseError.TooManyFields"/>,
    /// <see cref="FixParseError.TooManyGroupEntries"/>, <see cref="FixParseError.TagOutOfRange"/>): the fields split
    /// before (and, for a tag out of range, after) the problem are readable as top-level fields, so the header
    /// (MsgSeqNum, MsgType, CompIDs) can be read to answer the message.
    /// </summary>
    public bool IsPartial => _error is FixParseError.TooManyFields or FixParseError.TooManyGroupEntries or FixParseError.TagOutOfRange && _count > 2;

    /// <summary>True when the last parse succeeded.</summary>
    public bool IsParsed => _error == FixParseError.None && _count > 0;

    /// <summary>The dictionary the structure was resolved with (null when parsed without one).</summary>
    public DataDictionary? Dictionary => _dictionary;

    /// <summary>The dictionary's definition of this message type, or null (no dictionary, or unknown MsgType).</summary>
    public MessageDefinition? Definition => _definition;

    /// <summary>The whole message, "8=" through the SOH after the CheckSum.</summary>
    public ReadOnlySpan<byte> Bytes => new(_buffer, _start, _length);

    /// <summary>The array holding the message bytes (the caller's, or the view's own after <see cref="ParseCopy"/>).</summary>
    public byte[] Buffer => _buffer;

    /// <summary>Offset of the message in <see cref="Buffer"/>.</summary>
    public int Offset => _start;

    /// <summary>Length of the message in bytes.</summary>
    public int Length => _length;

    /// <summary>Number of fields, all levels included.</summary>
    public int FieldCount => _count;

    /// <summary>BeginString (8) value.</summary>
    public ReadOnlySpan<byte> BeginString => _count > 0 ? ValueAt(0) : default;

    /// <summary>MsgType (35) value (empty when the third field is not MsgType).</summary>
    public ReadOnlySpan<byte> MsgType => _count > 2 && _fields[2].Tag == Tags.MsgType ? ValueAt(2) : default;

    /// <summary>True when a header field was found after a body field, or a body field after the trailer.</summary>
    public bool HasFieldOutOfOrder => _hasOutOfOrder;

    /// <summary>The first field found out of order (valid when <see cref="HasFieldOutOfOrder"/>).</summary>
    public int FieldOutOfOrderTag => _outOfOrderTag;

    /// <summary>True when a top-level tag appears more than once.</summary>
    public bool HasRepeatedTag => _hasRepeated;

    /// <summary>The first repeated top-level tag (valid when <see cref="HasRepeatedTag"/>).</summary>
    public int RepeatedTag => _repeatedTag;

    /// <summary>
    /// Set by a dictionary parse when every field passed the value screen: defined, allowed where it stands,
    /// non-empty, well formed, an allowed value, group counts right, nothing repeated or out of order.
    /// </summary>
    internal bool IsClean => _clean;

    /// <summary>True when a group with a non-zero count does not start with its delimiter field.</summary>
    public bool HasGroupDelimiterProblem => _groupDelimiterCountTag != 0;

    /// <summary>The count tag of that group.</summary>
    public int GroupDelimiterCountTag => _groupDelimiterCountTag;

    /// <summary>The delimiter the group's first entry should have started with.</summary>
    public int GroupDelimiterTag => _groupDelimiterTag;

    /// <summary>True when a group entry has its fields in another order than the dictionary's (dictionary parse).</summary>
    public bool HasGroupFieldOrderProblem => _groupOrderCountTag != 0;

    /// <summary>The NumInGroup tag of the first group whose entry has a field out of order.</summary>
    public int GroupFieldOrderCountTag => _groupOrderCountTag;

    /// <summary>The field found out of order in that group's entry.</summary>
    public int GroupFieldOrderTag => _groupOrderTag;

    /// <summary>
    /// True when a value contains SOH although its field is no data field with a length: the bytes after that SOH
    /// up to the next one hold no '=' and are kept as part of the value, so the message can be answered about it.
    /// </summary>
    public bool HasDelimiterInValue => _hasDelimiterInValue;

    /// <summary>The first field whose value contains SOH (valid when <see cref="HasDelimiterInValue"/>).</summary>
    public int DelimiterInValueTag => _delimiterInValueTag;

    /// <summary>
    /// Parses a complete, framed message (see <see cref="FixFramer"/>) held in <paramref name="buffer"/> without
    /// copying it. The view refers to the buffer until the next parse.
    /// </summary>
    /// <returns><see cref="FixParseError.None"/>, or why the message is garbled.</returns>
    public FixParseError Parse(byte[] buffer, int offset, int length, DataDictionary? dictionary = null)
    {
        ArgumentNullException.ThrowIfNull(buffer);
        if ((uint)offset > (uint)buffer.Length || (uint)length > (uint)(buffer.Length - offset))
        {
            ThrowOutOfRange();
        }

        _buffer = buffer;
        _start = offset;
        _length = length;
        return ParseCore(dictionary);
    }

    /// <summary>MsgType of a framed message without parsing it (the value after the first "&lt;SOH&gt;35="), or empty.</summary>
    public static ReadOnlySpan<byte> PeekMsgType(ReadOnlySpan<byte> message)
    {
        var head = message.Slice(0, Math.Min(message.Length, 64));
        int at = head.IndexOf("\u000135="u8);
        if (at < 0)
        {
            return default;
        }

        var rest = message.Slice(at + 4);
        int end = rest.IndexOf((byte)1);
        return end < 0 ? default : rest.Slice(0, end);
    }

    /// <summary>Copies <paramref name="message"/> into the view's own buffer and parses it there.</summary>
    public FixParseError ParseCopy(ReadOnlySpan<byte> message, DataDictionary? dictionary = null)
    {
        if (message.Length > _own.Length)
        {
            Reset(dictionary);
            return Fail(FixParseError.MessageTooLarge, 0);
        }

        message.CopyTo(_own);
        _buffer = _own;
        _start = 0;
        _length = message.Length;
        return ParseCore(dictionary);
    }

    /// <summary>Copies another view's message into this view's own buffer and parses it with the same dictionary.</summary>
    public FixParseError CopyFrom(FixMessage other) => ParseCopy(other.Bytes, other._dictionary);

    private FixParseError ParseCore(DataDictionary? dictionary)
    {
        Reset(dictionary);
        if (!Split())
        {
            return _error;
        }

        if (dictionary is null)
        {
            IndexAllFields();
        }
        else if (!Structure(dictionary))
        {
            return _error;
        }

        return FixParseError.None;
    }

    private void Reset(DataDictionary? dictionary)
    {
        _count = 0;
        _groupCount = 0;
        _entryCount = 0;
        _dictionary = dictionary;
        _definition = null;
        _error = FixParseError.None;
        _errorOffset = 0;
        _hasOutOfOrder = false;
        _hasRepeated = false;
        _outOfOrderTag = 0;
        _repeatedTag = 0;
        _clean = false;
        _groupsClean = _screenValues; // false: ParseGroup skips the screen too
        _groupDelimiterCountTag = 0;
        _groupDelimiterTag = 0;
        _groupOrderCountTag = 0;
        _groupOrderTag = 0;
        _delimiterInValueTag = 0;
        _hasDelimiterInValue = false;
        _errorTag = 0;
        NextGeneration();
    }

    private void NextGeneration()
    {
        if (++_generation == int.MaxValue)
        {
            // Stale entries carry old generations; after a wrap they could match again, so start clean.
            Array.Clear(_index);
            _generation = 1;
        }
    }

    private FixParseError Fail(FixParseError error, int offset)
    {
        _error = error;
        _errorOffset = offset;
        return error;
    }

    /// <summary>
    /// A limit was broken in a message that is otherwise readable: keep what was split as top-level fields (a fresh
    /// index generation, group scopes dropped) so the session can read the header and answer the message.
    /// </summary>
    [MethodImpl(MethodImplOptions.NoInlining)]
    private void FailPartial(FixParseError error, int offset, int count)
    {
        Fail(error, offset);
        _count = count;
        _groupCount = 0;
        _entryCount = 0;
        _clean = false;
        NextGeneration();
        var fields = _fields;
        for (int i = 0; i < count; i++)
        {
            fields[i].Scope = 0;
            IndexTopLevel(i);
        }
    }

    /// <summary>
    /// Splits the bytes into (tag, value) entries in one pass: a vectorized scan marks every SOH, then each value's
    /// end is a bit scan away.
    /// </summary>
    private bool Split()
    {
        int length = _length;
        int words = DelimiterScanner.WordsFor(length);
        if (words > _sohBits.Length)
        {
            Fail(FixParseError.MessageTooLarge, 0);
            return false;
        }

        var message = new ReadOnlySpan<byte>(_buffer, _start, length);
        DelimiterScanner.Build(message, _sohBits);
        ReadOnlySpan<ulong> soh = new(_sohBits, 0, words);
        ref byte data = ref MemoryMarshal.GetReference(message);
        var fields = _fields;
        var dictionary = _dictionary;
        int start = _start;
        int count = 0;
        int pos = 0;
        bool lastWasData = false;
        int outOfRangeAt = -1;

        while (pos < length)
        {
            int tagStart = pos;
            bool negative = false;
            if (Unsafe.Add(ref data, pos) == (byte)'-')
            {
                negative = true; // kept so that a Reject can quote the tag (InvalidTagNumber), as QuickFIX does
                pos++;
            }

            int tag = 0;
            int digits = 0;
            while (pos < length)
            {
                uint d = (uint)(Unsafe.Add(ref data, pos) - '0');
                if (d > 9)
                {
                    break;
                }

                tag = unchecked((tag * 10) + (int)d);
                pos++;
                digits++;
            }

            if (pos >= length || Unsafe.Add(ref data, pos) != (byte)'=' || digits == 0)
            {
                if (count > 0 && !lastWasData && TryExtendValue(message, soh, tagStart, count - 1))
                {
                    pos = fields[count - 1].Offset - start + fields[count - 1].Length + 1;
                    continue;
                }

                bool missingEquals = digits > 0 && (pos >= length || Unsafe.Add(ref data, pos) == 1);
                Fail(missingEquals ? FixParseError.MissingEquals : FixParseError.InvalidTag, tagStart);
                return false;
            }

            bool inRange = true;
            if (digits > 9)
            {
                // Ten digits or more (or leading zeros): exact, in 64 bits. Tags up to int.MaxValue are tags.
                inRange = TryParseWideTag(message.Slice(tagStart + (negative ? 1 : 0), digits), out tag);
            }

            if (negative)
            {
                tag = -tag;
            }

            int valueStart = ++pos;
            int valueLength;
            int lengthTag = !inRange ? 0 : dictionary is null ? DefaultLengthTagOf(tag) : dictionary.LengthTagOf(tag);
            lastWasData = false;
            if (lengthTag != 0 && count > 0 && fields[count - 1].Tag == lengthTag &&
                FixValue.TryParseNonNegativeInt(new ReadOnlySpan<byte>(_buffer, fields[count - 1].Offset, fields[count - 1].Length), out int dataLength))
            {
                // A data field may contain SOH: its length comes from the preceding Length field.
                if (dataLength >= length - valueStart || Unsafe.Add(ref data, valueStart + dataLength) != 1)
                {
                    Fail(FixParseError.DataLengthMismatch, valueStart);
                    return false;
                }

                valueLength = dataLength;
                lastWasData = true;
            }
            else
            {
                int end = DelimiterScanner.Next(soh, valueStart);
                if (end < 0)
                {
                    Fail(FixParseError.MissingDelimiter, valueStart);
                    return false;
                }

                valueLength = end - valueStart;
            }

            pos = valueStart + valueLength + 1;
            if (!inRange)
            {
                // Not a tag any FIX engine can hold: the message is answered (its header is still read), never kept.
                if (outOfRangeAt < 0)
                {
                    outOfRangeAt = tagStart;
                }

                continue;
            }

            if (count == fields.Length)
            {
                FailPartial(FixParseError.TooManyFields, tagStart, count);
                return false;
            }

            ref FieldEntry entry = ref fields[count++];
            entry.Tag = tag;
            entry.Offset = start + valueStart;
            entry.Length = valueLength;
            entry.Scope = 0;
            entry.Section = SectionBody;
        }

        if (outOfRangeAt >= 0)
        {
            FailPartial(FixParseError.TagOutOfRange, outOfRangeAt, count);
            return false;
        }

        _count = count;
        if (count < 4 || fields[0].Tag != Tags.BeginString || fields[1].Tag != Tags.BodyLength || fields[2].Tag != Tags.MsgType)
        {
            Fail(FixParseError.FirstThreeFieldsOutOfOrder, 0);
            return false;
        }

        if (fields[count - 1].Tag != Tags.CheckSum)
        {
            Fail(FixParseError.MissingCheckSum, fields[count - 1].Offset - start);
            return false;
        }

        return true;
    }

    /// <summary>
    /// Bytes after an SOH that hold no '=' before the next SOH are no field: the SOH was inside the previous value
    /// (a non-data field). The value is extended through them and the field recorded, so the message is answered
    /// about that field (SessionRejectReason 17) instead of being dropped as garbled. False when the bytes hold an
    /// '=' (a garbled tag) or no SOH follows.
    /// </summary>
    [MethodImpl(MethodImplOptions.NoInlining)]
    private bool TryExtendValue(ReadOnlySpan<byte> message, ReadOnlySpan<ulong> soh, int from, int previous)
    {
        int end = DelimiterScanner.Next(soh, from);
        if (end < 0 || message.Slice(from, end - from).IndexOf((byte)'=') >= 0)
        {
            return false;
        }

        ref FieldEntry field = ref _fields[previous];
        field.Length = _start + end - field.Offset;
        if (!_hasDelimiterInValue)
        {
            _hasDelimiterInValue = true;
            _delimiterInValueTag = field.Tag;
        }

        return true;
    }

    /// <summary>A tag of ten digits or more: its value when it is at most <see cref="int.MaxValue"/>.</summary>
    [MethodImpl(MethodImplOptions.NoInlining)]
    private static bool TryParseWideTag(ReadOnlySpan<byte> digits, out int tag)
    {
        long value = 0;
        foreach (byte b in digits)
        {
            value = (value * 10) + (b - '0');
            if (value > int.MaxValue)
            {
                tag = 0;
                return false;
            }
        }

        tag = (int)value;
        return true;
    }

    private void IndexAllFields()
    {
        for (int i = 0; i < _count; i++)
        {
            IndexTopLevel(i);
        }
    }

    /// <summary>Resolves sections and groups with the dictionary; records out-of-order and repeated fields.</summary>
    private bool Structure(DataDictionary dictionary)
    {
        dictionary.TryGetMessage(MsgType, out _definition);
        var definition = _definition;
        var fields = _fields;
        int count = _count;
        int section = SectionHeader;
        bool clean = _screenValues && definition is not null;
        int i = 0;
        while (i < count)
        {
            ref FieldEntry field = ref fields[i];
            int tag = field.Tag;
            byte fieldSection = dictionary.SectionOf(tag);
            field.Section = fieldSection;
            GroupDefinition? group = null;
            if (fieldSection == SectionHeader)
            {
                if (section != SectionHeader)
                {
                    RecordOutOfOrder(tag);
                }

                if (dictionary.Header.IsGroupCount(tag))
                {
                    group = dictionary.Header.GetGroup(tag);
                }
            }
            else if (fieldSection == SectionTrailer)
            {
                section = SectionTrailer;
            }
            else
            {
                if (section == SectionTrailer)
                {
                    RecordOutOfOrder(tag);
                }
                else
                {
                    section = SectionBody;
                }

                if (definition is not null)
                {
                    if (definition.IsGroupCount(tag))
                    {
                        group = definition.GetGroup(tag);
                    }
                    else if (clean && !definition.Contains(tag))
                    {
                        clean = false;
                    }
                }
            }

            if (clean && !IsCleanField(dictionary, ref field))
            {
                clean = false;
            }

            IndexTopLevel(i);
            i = group is null ? i + 1 : ParseGroup(i, group, 0);
            if (_error != FixParseError.None)
            {
                return false;
            }
        }

        if (_groupCount > 0)
        {
            OrderEntries();
        }

        _clean = clean && !_hasRepeated && !_hasOutOfOrder && _groupsClean && !_hasDelimiterInValue;
        return true;
    }

    /// <summary>The value screen: defined, non-empty, well formed, allowed value.</summary>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    private bool IsCleanField(DataDictionary dictionary, ref FieldEntry field)
    {
        var definition = dictionary.GetField(field.Tag);
        return definition is not null && field.Length != 0 &&
               definition.IsCleanValue(new ReadOnlySpan<byte>(_buffer, field.Offset, field.Length));
    }

    /// <summary>
    /// Reads the entries of the group whose count field is at <paramref name="countIndex"/>: every entry starts
    /// with the delimiter field; the group ends at the first field that does not belong to it.
    /// </summary>
    private int ParseGroup(int countIndex, GroupDefinition definition, int parentScope)
    {
        var fields = _fields;
        if (_groupCount == _groups.Length)
        {
            FailGroupLimit(countIndex, countIndex);
            return _count;
        }

        int declared = FixValue.TryParseNonNegativeInt(ValueAt(countIndex), out int n) ? n : -1;
        int instance = _groupCount++;
        ref GroupInstance g = ref _groups[instance];
        g.CountTag = fields[countIndex].Tag;
        g.CountFieldIndex = countIndex;
        g.Declared = declared;
        g.Actual = 0;
        g.ParentScope = parentScope;
        g.Definition = definition;

        int delimiter = definition.DelimiterTag;
        int j = countIndex + 1;
        int entryScope = 0;
        int entries = 0;
        int previousPosition = 0;
        while (j < _count)
        {
            int tag = fields[j].Tag;
            if (tag == delimiter)
            {
                if (entries > 0)
                {
                    _entries[entryScope - 1].EndField = j;
                }

                if (_entryCount == _entries.Length)
                {
                    FailGroupLimit(countIndex, j);
                    return _count;
                }

                entryScope = ++_entryCount;
                previousPosition = 0;
                ref EntryInfo e = ref _entries[entryScope - 1];
                e.FirstField = j;
                e.EndField = j + 1;
                e.Instance = instance;
                entries++;
                fields[j].Scope = entryScope;
                if (_groupsClean && !IsCleanField(_dictionary!, ref fields[j]))
                {
                    _groupsClean = false;
                }

                j++;
                continue;
            }

            if (entries == 0 || !definition.Contains(tag))
            {
                if (entries == 0 && declared > 0 && definition.Contains(tag) && _groupDelimiterCountTag == 0)
                {
                    // A group field where the first entry's delimiter should be.
                    _groupDelimiterCountTag = g.CountTag;
                    _groupDelimiterTag = delimiter;
                    _groupsClean = false;
                }

                break;
            }

            fields[j].Scope = entryScope;
            if (_groupsClean && !IsCleanField(_dictionary!, ref fields[j]))
            {
                _groupsClean = false;
            }

            // An entry's fields come in the dictionary's order (QuickFIX/J's ValidateUnorderedGroupFields).
            int position = definition.PositionOf(tag);
            if (position < previousPosition)
            {
                RecordGroupOrder(g.CountTag, tag);
            }
            else
            {
                previousPosition = position;
            }

            var nested = definition.IsGroupCount(tag) ? definition.GetGroup(tag) : null;
            j = nested is null ? j + 1 : ParseGroup(j, nested, entryScope);
            if (_error != FixParseError.None)
            {
                return _count;
            }
        }

        if (entries > 0)
        {
            _entries[entryScope - 1].EndField = j;
        }

        _groups[instance].Actual = entries;
        if (entries != declared)
        {
            _groupsClean = false;
        }

        return j;
    }

    private void RecordGroupOrder(int countTag, int tag)
    {
        _groupsClean = false;
        if (_groupOrderCountTag == 0)
        {
            _groupOrderCountTag = countTag;
            _groupOrderTag = tag;
        }
    }

    /// <summary>More group instances or entries than the view holds: answered about the group whose count is at <paramref name="countIndex"/>.</summary>
    [MethodImpl(MethodImplOptions.NoInlining)]
    private void FailGroupLimit(int countIndex, int at)
    {
        int countTag = _fields[countIndex].Tag;
        FailPartial(FixParseError.TooManyGroupEntries, _fields[at].Offset - _start, _count);
        _errorTag = countTag;
    }

    /// <summary>Lays out each group instance's entries contiguously (nested groups interleave them during the parse).</summary>
    private void OrderEntries()
    {
        int offset = 0;
        for (int g = 0; g < _groupCount; g++)
        {
            ref GroupInstance instance = ref _groups[g];
            instance.OrderStart = offset;
            instance.Filled = 0;
            offset += instance.Actual;
        }

        for (int e = 0; e < _entryCount; e++)
        {
            ref GroupInstance instance = ref _groups[_entries[e].Instance];
            _entryOrder[instance.OrderStart + instance.Filled++] = e;
        }
    }

    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    private void IndexTopLevel(int fieldIndex)
    {
        int tag = _fields[fieldIndex].Tag;
        var index = _index;
        if ((uint)tag < (uint)index.Length)
        {
            long slot = index[tag];
            if ((int)(slot >> 32) == _generation)
            {
                RecordRepeated(tag);
                return;
            }

            index[tag] = ((long)_generation << 32) | (uint)fieldIndex;
        }
        else if (tag > 0 && FindTopLevelByScan(tag, fieldIndex) != NoField)
        {
            RecordRepeated(tag);
        }
    }

    private void RecordRepeated(int tag)
    {
        if (!_hasRepeated)
        {
            _hasRepeated = true;
            _repeatedTag = tag;
        }
    }

    private void RecordOutOfOrder(int tag)
    {
        if (!_hasOutOfOrder)
        {
            _hasOutOfOrder = true;
            _outOfOrderTag = tag;
        }
    }

    /// <summary>Index of the top-level field <paramref name="tag"/>, or -1.</summary>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    internal int FindTopLevel(int tag)
    {
        var index = _index;
        if ((uint)tag < (uint)index.Length)
        {
            long slot = index[tag];
            return (int)(slot >> 32) == _generation ? (int)slot : NoField;
        }

        return FindTopLevelByScan(tag, _count);
    }

    [MethodImpl(MethodImplOptions.NoInlining)]
    private int FindTopLevelByScan(int tag, int before)
    {
        var fields = _fields;
        for (int i = 0; i < before; i++)
        {
            if (fields[i].Tag == tag && fields[i].Scope == 0)
            {
                return i;
            }
        }

        return NoField;
    }

    /// <summary>Index of field <paramref name="tag"/> in the given scope, or -1.</summary>
    internal int Find(FieldScope scope, int tag)
    {
        if (scope.Id == 0)
        {
            return FindTopLevel(tag);
        }

        if ((uint)(scope.Id - 1) >= (uint)_entryCount)
        {
            return NoField;
        }

        ref EntryInfo e = ref _entries[scope.Id - 1];
        var fields = _fields;
        for (int i = e.FirstField; i < e.EndField; i++)
        {
            if (fields[i].Tag == tag && fields[i].Scope == scope.Id)
            {
                return i;
            }
        }

        return NoField;
    }

    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    internal ReadOnlySpan<byte> ValueAt(int fieldIndex)
    {
        ref FieldEntry f = ref _fields[fieldIndex];
        return new ReadOnlySpan<byte>(_buffer, f.Offset, f.Length);
    }

    /// <summary>Tag of the field at position <paramref name="fieldIndex"/> (wire order, all levels).</summary>
    public int GetTag(int fieldIndex) => (uint)fieldIndex < (uint)_count ? _fields[fieldIndex].Tag : ThrowIndex();

    /// <summary>Value of the field at position <paramref name="fieldIndex"/>.</summary>
    public ReadOnlySpan<byte> GetValueAt(int fieldIndex) => (uint)fieldIndex < (uint)_count ? ValueAt(fieldIndex) : default;

    /// <summary>The scope (message or group entry) of the field at position <paramref name="fieldIndex"/>.</summary>
    public FieldScope GetScopeAt(int fieldIndex) => (uint)fieldIndex < (uint)_count ? new FieldScope(_fields[fieldIndex].Scope) : default;

    /// <summary>Offset, within the message, of the value of the field at <paramref name="fieldIndex"/>.</summary>
    public int GetValueOffsetAt(int fieldIndex) => (uint)fieldIndex < (uint)_count ? _fields[fieldIndex].Offset - _start : ThrowIndex();

    internal ref readonly FieldEntry FieldAt(int fieldIndex) => ref _fields[fieldIndex];

    /// <summary>
    /// Where the body lies in the message (offset from the message start, and length): from the first body field to
    /// the first trailer field. Needs a dictionary parse (sections); false when the message has no body.
    /// </summary>
    internal bool TryGetBodyRange(out int start, out int length)
    {
        start = 0;
        length = 0;
        int first = -1;
        int end = -1;
        for (int i = 3; i < _count; i++)
        {
            ref FieldEntry f = ref _fields[i];
            if (f.Scope == 0 && f.Section == SectionTrailer)
            {
                end = TagStart(i);
                break;
            }

            if (first < 0 && f.Scope == 0 && f.Section == SectionBody)
            {
                first = TagStart(i);
            }
        }

        if (first < 0 || end < first)
        {
            return false;
        }

        start = first - _start;
        length = end - first;
        return true;
    }

    /// <summary>Buffer position of the first byte of field <paramref name="i"/>'s tag.</summary>
    private int TagStart(int i)
    {
        int tag = _fields[i].Tag;
        int digits = FixValue.CountDigits((ulong)Math.Abs((long)tag)) + (tag < 0 ? 1 : 0);
        return _fields[i].Offset - digits - 1;
    }

    internal int GroupInstanceCount => _groupCount;

    /// <summary>The definition of the group an entry scope belongs to.</summary>
    internal Dictionary.GroupDefinition? GroupDefinitionOf(FieldScope entry) =>
        (uint)(entry.Id - 1) < (uint)_entryCount ? _groups[_entries[entry.Id - 1].Instance].Definition : null;

    internal ref readonly GroupInstance GroupAt(int instance) => ref _groups[instance];

    internal int EntryCount => _entryCount;

    internal ref readonly EntryInfo EntryAt(int entry) => ref _entries[entry];

    /// <summary>The entry (0-based index into the entry table) that is the <paramref name="k"/>-th entry of an instance.</summary>
    internal int EntryOfInstance(int instance, int k) => _entryOrder[_groups[instance].OrderStart + k];

    /// <summary>
    /// The standard data fields (Length tag before data tag) used when parsing without a dictionary, so that a
    /// RawData or Signature containing SOH still splits correctly.
    /// </summary>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    private static int DefaultLengthTagOf(int tag) => tag switch
    {
        89 => 93,   // Signature / SignatureLength
        91 => 90,   // SecureData / SecureDataLen
        96 => 95,   // RawData / RawDataLength
        213 => 212, // XmlData / XmlDataLen
        349 => 348, // EncodedIssuer
        351 => 350, // EncodedSecurityDesc
        353 => 352, // EncodedListExecInst
        355 => 354, // EncodedText
        357 => 356, // EncodedSubject
        359 => 358, // EncodedHeadline
        361 => 360, // EncodedAllocText
        363 => 362, // EncodedUnderlyingIssuer
        365 => 364, // EncodedUnderlyingSecurityDesc
        446 => 445, // EncodedListStatusText
        619 => 618, // EncodedLegIssuer
        622 => 621, // EncodedLegSecurityDesc
        _ => 0,
    };

    [MethodImpl(MethodImplOptions.NoInlining)]
    private static void ThrowOutOfRange() => throw new ArgumentOutOfRangeException("offset", "offset and length must lie within the buffer");

    [MethodImpl(MethodImplOptions.NoInlining)]
    private static int ThrowIndex() => throw new ArgumentOutOfRangeException("fieldIndex");

    /// <summary>One field: tag, where its value is in the buffer, and which scope it belongs to (0 = message).</summary>
    internal struct FieldEntry
    {
        public int Tag;
        public int Offset;
        public int Length;
        public int Scope;
        public byte Section;
    }

    /// <summary>One occurrence of a repeating group in the message.</summary>
    internal struct GroupInstance
    {
        public int CountTag;
        public int CountFieldIndex;
        public int Declared;
        public int Actual;
        public int ParentScope;
        public int OrderStart;
        public int Filled;
        public GroupDefinition Definition;
    }

    /// <summary>One entry of a group: fields [FirstField, EndField) with this entry's scope (nested ones excluded by scope).</summary>
    internal struct EntryInfo
    {
        public int FirstField;
        public int EndField;
        public int Instance;
    }
}
