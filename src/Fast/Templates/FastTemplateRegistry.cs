using System.Diagnostics.CodeAnalysis;

namespace RapidFix.Fast.Templates;

/// <summary>
/// The compiled templates of a stream, shared read-only by any number of decoders and encoders (each owns its
/// dictionaries). Template lookup by id is an array index when ids are small, as they are in practice.
/// </summary>
public sealed class FastTemplateRegistry
{
    private const uint MaxArrayId = 65_535;

    private readonly FastTemplate?[] _byIdArray;
    private readonly Dictionary<uint, FastTemplate> _byIdLarge = [];
    private readonly Dictionary<string, FastTemplate> _byName = new(StringComparer.Ordinal);

    internal FastTemplateRegistry(FastTemplate[] templates, bool[] dictionarySlotHoldsBytes, int maxPmapBytes, FastCodecLimits limits)
    {
        Templates = templates;
        DictionarySlotHoldsBytes = dictionarySlotHoldsBytes;
        MaxPmapBytes = Math.Max(1, maxPmapBytes);
        Limits = limits;
        var pool = BuildConstantPool(templates);
        Fields = IndexFields(templates);
        uint maxId = 0;
        foreach (var t in templates)
        {
            t.ConstantPool = pool;
            _byName[t.Name] = t;
            if (t.Id is uint id && id <= MaxArrayId)
            {
                maxId = Math.Max(maxId, id);
            }
        }

        if (limits.CompileTemplates && Codec.BodyCompiler.IsSupported)
        {
            Codec.BodyCompiler.Compile(templates);
            Codec.EncoderCompiler.Compile(templates, pool);
        }

        _byIdArray = new FastTemplate?[maxId + 1];
        foreach (var t in templates)
        {
            if (t.Id is uint id)
            {
                if (id <= MaxArrayId)
                {
                    _byIdArray[id] = t;
                }
                else
                {
                    _byIdLarge[id] = t;
                }
            }
        }
    }

    /// <summary>Every template, in load order.</summary>
    public IReadOnlyList<FastTemplate> Templates { get; }

    /// <summary>The limits the codecs built on this registry use.</summary>
    public FastCodecLimits Limits { get; }

    /// <summary>Number of previous-value slots a dictionary state needs (all dictionaries, flattened).</summary>
    internal int DictionarySlotCount => DictionarySlotHoldsBytes.Length;

    /// <summary>Which slots hold strings or byte vectors (they get a byte buffer of <see cref="FastCodecLimits.MaxStringBytes"/>).</summary>
    internal bool[] DictionarySlotHoldsBytes { get; }

    /// <summary>The longest presence map any template needs, in bytes (bounds the presence-map scan).</summary>
    internal int MaxPmapBytes { get; }

    /// <summary>Every instruction of every body, indexed by <see cref="FastField.Index"/>.</summary>
    internal FastField[] Fields { get; }

    private static FastField[] IndexFields(FastTemplate[] templates)
    {
        var list = new List<FastField>();
        void Visit(FastGroupBody body)
        {
            foreach (var f in body.Instructions)
            {
                if (f.Index < 0)
                {
                    f.Index = list.Count;
                    list.Add(f);
                }

                if (f.Body is not null)
                {
                    Visit(f.Body);
                }
            }
        }

        foreach (var t in templates)
        {
            Visit(t.Body);
        }

        return list.ToArray();
    }

    private static byte[] BuildConstantPool(FastTemplate[] templates)
    {
        var pool = new List<byte>();
        var seen = new HashSet<FastField>();
        void Visit(FastGroupBody body)
        {
            foreach (var f in body.Instructions)
            {
                if (f.Type.IsBytes() && f.HasInitial && f.InitialBytes.Length > 0 && seen.Add(f))
                {
                    f.InitialPoolOffset = pool.Count;
                    pool.AddRange(f.InitialBytes);
                }

                if (f.Body is not null)
                {
                    Visit(f.Body);
                }
            }
        }

        foreach (var t in templates)
        {
            Visit(t.Body);
        }

        return pool.ToArray();
    }

    /// <summary>Finds a template by id without allocating.</summary>
    public bool TryGet(uint id, [MaybeNullWhen(false)] out FastTemplate template)
    {
        var array = _byIdArray;
        if (id < (uint)array.Length)
        {
            template = array[id];
            return template is not null;
        }

        return _byIdLarge.TryGetValue(id, out template);
    }

    /// <summary>Finds a template by name (startup use).</summary>
    public FastTemplate? Find(string name) => _byName.GetValueOrDefault(name);

    /// <summary>The template with <paramref name="id"/>; throws when unknown (startup use).</summary>
    public FastTemplate this[uint id] => TryGet(id, out var t) ? t : throw new KeyNotFoundException($"No FAST template with id {id}.");
}
