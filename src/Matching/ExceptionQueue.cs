namespace RapidFix.Matching;

/// <summary>
/// The exception queue: a ring of <see cref="MatchException"/> records pre-sized at startup. New records are
/// streamed to <see cref="IMatchSink.OnException"/> without allocating; when the ring is full the oldest record is
/// overwritten and counted in <see cref="Overwritten"/> (the stream already delivered it: a service that must keep
/// every exception persists the stream). Listing and inspection are operator actions and may allocate.
/// </summary>
public sealed class ExceptionQueue
{
    private readonly MatchException[] _ring;
    private long _lastId;

    internal ExceptionQueue(int capacity)
    {
        ArgumentOutOfRangeException.ThrowIfLessThan(capacity, 1);
        _ring = new MatchException[capacity];
    }

    /// <summary>Records the ring holds at most.</summary>
    public int Capacity => _ring.Length;

    /// <summary>Records held now.</summary>
    public int Count => (int)Math.Min(_lastId, _ring.Length);

    /// <summary>ID of the newest record (0 when none): IDs run from 1 without gaps.</summary>
    public long LastId => _lastId;

    /// <summary>Records overwritten because the ring was full.</summary>
    public long Overwritten => Math.Max(0, _lastId - _ring.Length);

    /// <summary>A copy of record <paramref name="id"/>, if the ring still holds it.</summary>
    public bool TryGet(long id, out MatchException record)
    {
        if (id <= 0 || id > _lastId || id <= _lastId - _ring.Length)
        {
            record = default;
            return false;
        }

        record = _ring[(id - 1) % _ring.Length];
        return true;
    }

    /// <summary>The records held, oldest first (allocates: an operator action).</summary>
    public MatchException[] List()
    {
        var list = new MatchException[Count];
        long first = _lastId - list.Length + 1;
        for (int i = 0; i < list.Length; i++)
        {
            list[i] = _ring[(first + i - 1) % _ring.Length];
        }

        return list;
    }

    /// <summary>The slot of a new record, with its ID set; the caller fills the rest.</summary>
    internal ref MatchException Add()
    {
        long id = ++_lastId;
        ref var slot = ref _ring[(id - 1) % _ring.Length];
        slot = default;
        slot.Id = id;
        return ref slot;
    }

    internal ref MatchException At(long id) => ref _ring[(id - 1) % _ring.Length];
}
