using RapidFix.Engine.Codec;

namespace RapidFix.Engine.Sessions;

/// <summary>
/// Messages received ahead of a sequence gap, kept (copied into pre-allocated views) until the gap is filled, then
/// processed in order. A full queue drops the message: it will come again with the resend.
/// </summary>
internal sealed class InboundQueue
{
    private readonly FixMessage[] _slots;
    private readonly int[] _seqNums;
    private int _count;

    public InboundQueue(int capacity, FixMessageOptions viewOptions)
    {
        _slots = new FixMessage[capacity];
        _seqNums = new int[capacity];
        for (int i = 0; i < capacity; i++)
        {
            _slots[i] = new FixMessage(viewOptions);
        }
    }

    public int Count => _count;

    /// <summary>Keeps a copy of <paramref name="message"/> under <paramref name="seqNum"/>; false when full (or already held).</summary>
    public bool TryEnqueue(int seqNum, FixMessage message)
    {
        for (int i = 0; i < _count; i++)
        {
            if (_seqNums[i] == seqNum)
            {
                return true; // first one wins, as a dictionary add would
            }
        }

        if (_count == _slots.Length)
        {
            return false;
        }

        if (_slots[_count].CopyFrom(message) != FixParseError.None)
        {
            return false;
        }

        _seqNums[_count] = seqNum;
        _count++;
        return true;
    }

    /// <summary>Removes the message held under <paramref name="seqNum"/>. The view stays valid until the next enqueue.</summary>
    public FixMessage? TryDequeue(int seqNum)
    {
        for (int i = 0; i < _count; i++)
        {
            if (_seqNums[i] == seqNum)
            {
                var message = _slots[i];
                int last = _count - 1;
                _slots[i] = _slots[last];
                _seqNums[i] = _seqNums[last];
                _slots[last] = message; // the dequeued view moves out of the live range
                _seqNums[last] = 0;
                _count = last;
                return message;
            }
        }

        return null;
    }

    public void Clear() => _count = 0;
}
