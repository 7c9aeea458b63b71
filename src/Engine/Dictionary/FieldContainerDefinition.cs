using System.Runtime.CompilerServices;

namespace RapidFix.Engine.Dictionary;

/// <summary>
/// The fields a message, the header, the trailer or a repeating group may contain, compiled for allocation-free
/// checks: membership is one bit test, required fields are an array, child groups are found by count tag.
/// Fields brought in by components are flattened in.
/// </summary>
public abstract class FieldContainerDefinition
{
    private readonly ulong[] _members;
    private readonly ulong[] _groupCounts;
    private readonly int[] _groupCountTags;
    private readonly GroupDefinition[] _groups;

    private protected FieldContainerDefinition(string name, ContainerBuilder builder, int maxTag)
    {
        Name = name;
        _members = new ulong[(maxTag >> 6) + 1];
        foreach (int tag in builder.Fields)
        {
            _members[tag >> 6] |= 1UL << tag;
        }

        _groupCounts = new ulong[(maxTag >> 6) + 1];
        foreach (var g in builder.Groups)
        {
            _groupCounts[g.CountTag >> 6] |= 1UL << g.CountTag;
        }

        FieldOrder = builder.Fields.ToArray();
        RequiredTags = builder.Required.ToArray();
        _groups = builder.Groups.ToArray();
        _groupCountTags = _groups.Select(g => g.CountTag).ToArray();
    }

    /// <summary>The message, group or component name from the dictionary.</summary>
    public string Name { get; }

    /// <summary>Every field of the container (groups' count tags included, their entries' fields not), in dictionary order.</summary>
    public int[] FieldOrder { get; }

    /// <summary>Fields that must be present, in dictionary order.</summary>
    public int[] RequiredTags { get; }

    /// <summary>The repeating groups directly inside this container.</summary>
    public IReadOnlyList<GroupDefinition> Groups => _groups;

    /// <summary>True when <paramref name="tag"/> may appear in this container.</summary>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    public bool Contains(int tag)
    {
        uint word = (uint)tag >> 6;
        var members = _members;
        return word < (uint)members.Length && ((members[word] >> tag) & 1) != 0;
    }

    /// <summary>True when <paramref name="tag"/> is the NumInGroup field of one of this container's groups (one bit test).</summary>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    public bool IsGroupCount(int tag)
    {
        uint word = (uint)tag >> 6;
        var counts = _groupCounts;
        return word < (uint)counts.Length && ((counts[word] >> tag) & 1) != 0;
    }

    /// <summary>The group whose NumInGroup field is <paramref name="countTag"/>, or null.</summary>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    public GroupDefinition? GetGroup(int countTag)
    {
        var tags = _groupCountTags;
        for (int i = 0; i < tags.Length; i++)
        {
            if (tags[i] == countTag)
            {
                return _groups[i];
            }
        }

        return null;
    }

    /// <summary>The name.</summary>
    public override string ToString() => Name;

    /// <summary>Collects a container's contents while the dictionary is loaded.</summary>
    internal sealed class ContainerBuilder
    {
        public readonly List<int> Fields = [];
        public readonly HashSet<int> FieldSet = [];
        public readonly List<int> Required = [];
        public readonly List<GroupDefinition> Groups = [];

        public void AddField(int tag, bool required)
        {
            if (FieldSet.Add(tag))
            {
                Fields.Add(tag);
            }

            if (required && !Required.Contains(tag))
            {
                Required.Add(tag);
            }
        }
    }
}

/// <summary>A message type of the dictionary (body fields only; the header and trailer are separate).</summary>
public sealed class MessageDefinition : FieldContainerDefinition
{
    internal MessageDefinition(string name, string msgType, bool isAdmin, ContainerBuilder builder, int maxTag)
        : base(name, builder, maxTag)
    {
        MsgType = msgType;
        MsgTypeBytes = System.Text.Encoding.ASCII.GetBytes(msgType);
        IsAdmin = isAdmin;
    }

    /// <summary>MsgType (35) value, e.g. "D".</summary>
    public string MsgType { get; }

    /// <summary>MsgType as bytes.</summary>
    public byte[] MsgTypeBytes { get; }

    /// <summary>True for session-level (msgcat="admin") messages.</summary>
    public bool IsAdmin { get; }
}

/// <summary>The header or the trailer of a dictionary.</summary>
public sealed class SectionDefinition : FieldContainerDefinition
{
    internal SectionDefinition(string name, ContainerBuilder builder, int maxTag)
        : base(name, builder, maxTag)
    {
    }
}

/// <summary>A repeating group: its NumInGroup field, the delimiter that starts every entry, and the entry's fields.</summary>
public sealed class GroupDefinition : FieldContainerDefinition
{
    private readonly int[] _positionKeys;
    private readonly int[] _positions;
    private readonly int _positionShift;

    internal GroupDefinition(string name, int countTag, int delimiterTag, bool required, ContainerBuilder builder, int maxTag)
        : base(name, builder, maxTag)
    {
        CountTag = countTag;
        DelimiterTag = delimiterTag;
        IsRequired = required;

        // Tag -> position in FieldOrder, open-addressed (at most half full), so the parser checks an entry's field
        // order with one multiply and usually one probe.
        int bits = Math.Max(3, 1 + (int)Math.Ceiling(Math.Log2(Math.Max(1, FieldOrder.Length))));
        _positionShift = 32 - bits;
        _positionKeys = new int[1 << bits];
        _positions = new int[1 << bits];
        for (int i = 0; i < FieldOrder.Length; i++)
        {
            int slot = Slot(FieldOrder[i]);
            while (_positionKeys[slot] != 0)
            {
                slot = (slot + 1) & (_positionKeys.Length - 1);
            }

            _positionKeys[slot] = FieldOrder[i];
            _positions[slot] = i;
        }
    }

    /// <summary>
    /// Where <paramref name="tag"/> stands in an entry (its index in <see cref="FieldContainerDefinition.FieldOrder"/>;
    /// the delimiter is 0), or -1 when the group has no such field.
    /// </summary>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    public int PositionOf(int tag)
    {
        var keys = _positionKeys;
        int slot = Slot(tag);
        while (true)
        {
            int key = keys[slot];
            if (key == tag && tag != 0)
            {
                return _positions[slot];
            }

            if (key == 0)
            {
                return -1;
            }

            slot = (slot + 1) & (keys.Length - 1);
        }
    }

    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    private int Slot(int tag) => (int)((uint)(tag * -1640531535) >> _positionShift);

    /// <summary>The NumInGroup field that gives the number of entries.</summary>
    public int CountTag { get; }

    /// <summary>The first field of every entry.</summary>
    public int DelimiterTag { get; }

    /// <summary>Whether the group must be present in its parent.</summary>
    public bool IsRequired { get; }
}
