using System.Runtime.CompilerServices;
using RapidFix.Engine.Codec;
using RapidFix.Engine.Dictionary;
using RapidFix.Engine.Fields;

namespace RapidFix.Engine.Validation;

/// <summary>
/// Checks a parsed <see cref="FixMessage"/> against its data dictionary and returns the first problem as a FIX
/// SessionRejectReason and tag. Allocation-free; on a valid message it is one pass over the fields.
/// </summary>
/// <remarks>
/// The parser screens every field as it resolves the structure, so on a valid message validation is only the
/// out-of-order, MsgType and required-field checks.
/// When a message has several problems, the one reported is the one QuickFIX reports, so that counterparties see
/// the same Reject from either engine: what the parse found (an SOH inside a non-data value, a group without its
/// delimiter, group fields out of the dictionary's order), then fields out of order, then MsgType, then required fields (header,
/// trailer, body, in dictionary order), then per section (header, trailer, body, then groups entry by entry) a
/// repeated tag, then the field with the lowest tag among those with a problem, its checks in the order value
/// present, data format, tag defined, value allowed, tag defined for the message type, NumInGroup count.
/// </remarks>
public sealed class MessageValidator
{
    private const int SectionHeader = 0;
    private const int SectionTrailer = 1;
    private const int SectionBody = 2;

    private readonly DataDictionary _dictionary;
    private readonly bool _checkOrder;
    private readonly bool _checkGroupOrder;
    private readonly bool _checkHaveValues;
    private readonly bool _checkUserDefined;
    private readonly bool _allowUnknownFields;
    private readonly bool _allowUnknownEnums;
    private readonly int _userMin;

    /// <summary>A validator for messages parsed with <paramref name="dictionary"/>, with QuickFIX's checks as <paramref name="options"/> set them.</summary>
    public MessageValidator(DataDictionary dictionary, ValidationOptions? options = null)
    {
        ArgumentNullException.ThrowIfNull(dictionary);
        options ??= ValidationOptions.Default;
        _dictionary = dictionary;
        Options = options;
        _checkOrder = options.CheckFieldsOutOfOrder;
        _checkGroupOrder = options.CheckUnorderedGroupFields;
        _checkHaveValues = options.CheckFieldsHaveValues;
        _checkUserDefined = options.CheckUserDefinedFields;
        _allowUnknownFields = options.AllowUnknownMessageFields;
        _allowUnknownEnums = options.AllowUnknownEnumValues;
        _userMin = options.UserDefinedTagMin;
    }

    /// <summary>The dictionary messages are validated against.</summary>
    public DataDictionary Dictionary => _dictionary;

    /// <summary>The validation settings in force.</summary>
    public ValidationOptions Options { get; }

    /// <summary>Validates a message parsed with this validator's dictionary.</summary>
    public ValidationResult Validate(FixMessage message) => Validate(message, useParserScreen: true);

    /// <summary>Validation that ignores the parser's screen and walks every field (tests check the two agree).</summary>
    internal ValidationResult ValidateThoroughly(FixMessage message) => Validate(message, useParserScreen: false);

    private ValidationResult Validate(FixMessage message, bool useParserScreen)
    {
        if (!message.IsParsed)
        {
            return new ValidationResult(ValidationOutcome.Garbled, SessionRejectReason.Other, 0, false);
        }

        if (!ReferenceEquals(message.Dictionary, _dictionary))
        {
            ThrowWrongDictionary();
        }

        if (message.HasDelimiterInValue)
        {
            // Found while splitting, before anything else: the Reject names the field whose value holds the SOH.
            return ValidationResult.RejectFor(SessionRejectReason.NonDataValueIncludesFieldDelimiter, message.DelimiterInValueTag);
        }

        if (message.HasGroupDelimiterProblem)
        {
            // Found while parsing, before any other check (as QuickFIX finds it while building the message).
            return new ValidationResult(ValidationOutcome.Reject, SessionRejectReason.Other, message.GroupDelimiterCountTag, true,
                RejectDetail.GroupDelimiterMissing, message.GroupDelimiterTag);
        }

        if (_checkGroupOrder && message.HasGroupFieldOrderProblem)
        {
            // Also found while parsing (QuickFIX/J throws it from its group parse): the group's NumInGroup tag.
            return ValidationResult.RejectFor(SessionRejectReason.RepeatingGroupFieldsOutOfOrder, message.GroupFieldOrderCountTag);
        }

        if (_checkOrder && message.HasFieldOutOfOrder)
        {
            return ValidationResult.RejectFor(SessionRejectReason.TagSpecifiedOutOfRequiredOrder, message.FieldOutOfOrderTag);
        }

        var definition = message.Definition;
        if (definition is null)
        {
            return _dictionary.IsEnumeratedMsgType(message.MsgType)
                ? new ValidationResult(ValidationOutcome.UnsupportedMessageType, SessionRejectReason.InvalidMsgType, Tags.MsgType, false)
                : ValidationResult.RejectFor(SessionRejectReason.InvalidMsgType, Tags.MsgType);
        }

        if (MissingRequired(message, _dictionary.Header.RequiredTags, out int missing) ||
            MissingRequired(message, _dictionary.Trailer.RequiredTags, out missing) ||
            MissingRequired(message, definition.RequiredTags, out missing))
        {
            return ValidationResult.RejectFor(SessionRejectReason.RequiredTagMissing, missing);
        }

        // The parser already screened every field (known, allowed here, non-empty, well-formed, allowed value, group
        // counts right, no repeats): a clean message is valid under any options. Only a suspect one is walked again
        // to find the problem QuickFIX would report first, under these options.
        return useParserScreen && message.IsClean ? ValidationResult.Valid : CheckFields(message, definition);
    }

    private static bool MissingRequired(FixMessage message, int[] required, out int tag)
    {
        foreach (int t in required)
        {
            if (message.FindTopLevel(t) < 0)
            {
                tag = t;
                return true;
            }
        }

        tag = 0;
        return false;
    }

    /// <summary>One pass over the top-level fields keeping, per section, the problem with the lowest tag.</summary>
    private ValidationResult CheckFields(FixMessage message, MessageDefinition definition)
    {
        var dictionary = _dictionary;
        Problem header = default, trailer = default, body = default;

        int repeatedSection = -1;
        if (message.HasRepeatedTag)
        {
            int t = message.RepeatedTag;
            repeatedSection = dictionary.IsHeaderField(t) ? SectionHeader : dictionary.IsTrailerField(t) ? SectionTrailer : SectionBody;
        }

        int count = message.FieldCount;
        for (int i = 0; i < count; i++)
        {
            ref readonly var f = ref message.FieldAt(i);
            if (f.Scope != 0)
            {
                continue;
            }

            int tag = f.Tag;
            switch (f.Section)
            {
                case FixMessage.SectionHeader:
                    if (!header.IsSet || tag < header.Tag)
                    {
                        var reason = CheckField(message, i, dictionary.Header, isBody: false);
                        if (reason != NoProblem)
                        {
                            header = new Problem(tag, reason);
                        }
                    }

                    break;
                case FixMessage.SectionTrailer:
                    if (!trailer.IsSet || tag < trailer.Tag)
                    {
                        var reason = CheckField(message, i, dictionary.Trailer, isBody: false);
                        if (reason != NoProblem)
                        {
                            trailer = new Problem(tag, reason);
                        }
                    }

                    break;
                default:
                    if (!body.IsSet || tag < body.Tag)
                    {
                        var reason = CheckField(message, i, definition, isBody: true);
                        if (reason != NoProblem)
                        {
                            body = new Problem(tag, reason);
                        }
                    }

                    break;
            }
        }

        if (repeatedSection == SectionHeader)
        {
            return ValidationResult.RejectFor(SessionRejectReason.TagAppearsMoreThanOnce, message.RepeatedTag);
        }

        if (header.IsSet)
        {
            return header.ToResult();
        }

        if (message.GroupInstanceCount > 0)
        {
            var r = CheckGroups(message, 0, inHeader: true);
            if (!r.IsValid)
            {
                return r;
            }
        }

        if (repeatedSection == SectionTrailer)
        {
            return ValidationResult.RejectFor(SessionRejectReason.TagAppearsMoreThanOnce, message.RepeatedTag);
        }

        if (trailer.IsSet)
        {
            return trailer.ToResult();
        }

        if (repeatedSection == SectionBody)
        {
            return ValidationResult.RejectFor(SessionRejectReason.TagAppearsMoreThanOnce, message.RepeatedTag);
        }

        if (body.IsSet)
        {
            return body.ToResult();
        }

        return message.GroupInstanceCount > 0 ? CheckGroups(message, 0, inHeader: false) : ValidationResult.Valid;
    }

    /// <summary>Checks the entries of every group directly inside <paramref name="parentScope"/>, in wire order.</summary>
    private ValidationResult CheckGroups(FixMessage message, int parentScope, bool inHeader)
    {
        int instances = message.GroupInstanceCount;
        for (int g = 0; g < instances; g++)
        {
            ref readonly var group = ref message.GroupAt(g);
            if (group.ParentScope != parentScope)
            {
                continue;
            }

            if (parentScope == 0 && _dictionary.IsHeaderField(group.CountTag) != inHeader)
            {
                continue;
            }

            for (int k = 0; k < group.Actual; k++)
            {
                int entry = message.EntryOfInstance(g, k);
                var r = CheckEntry(message, entry, group.Definition);
                if (!r.IsValid)
                {
                    return r;
                }
            }
        }

        return ValidationResult.Valid;
    }

    private ValidationResult CheckEntry(FixMessage message, int entry, GroupDefinition definition)
    {
        ref readonly var info = ref message.EntryAt(entry);
        int scope = entry + 1;

        // A tag twice in one entry (the delimiter cannot be: it starts a new entry).
        for (int i = info.FirstField; i < info.EndField; i++)
        {
            ref readonly var f = ref message.FieldAt(i);
            if (f.Scope != scope)
            {
                continue;
            }

            for (int j = info.FirstField; j < i; j++)
            {
                ref readonly var earlier = ref message.FieldAt(j);
                if (earlier.Scope == scope && earlier.Tag == f.Tag)
                {
                    return ValidationResult.RejectFor(SessionRejectReason.TagAppearsMoreThanOnce, f.Tag);
                }
            }
        }

        Problem best = default;
        for (int i = info.FirstField; i < info.EndField; i++)
        {
            ref readonly var f = ref message.FieldAt(i);
            if (f.Scope != scope || (best.IsSet && f.Tag >= best.Tag))
            {
                continue;
            }

            var reason = CheckField(message, i, definition, isBody: true);
            if (reason != NoProblem)
            {
                best = new Problem(f.Tag, reason);
            }
        }

        if (best.IsSet)
        {
            return best.ToResult();
        }

        return CheckGroups(message, scope, inHeader: false);
    }

    private const SessionRejectReason NoProblem = (SessionRejectReason)(-1);

    /// <summary>The checks QuickFIX applies to one field, in its order.</summary>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    private SessionRejectReason CheckField(FixMessage message, int fieldIndex, FieldContainerDefinition container, bool isBody)
    {
        ref readonly var f = ref message.FieldAt(fieldIndex);
        int tag = f.Tag;
        if (f.Length == 0 && _checkHaveValues)
        {
            return SessionRejectReason.TagSpecifiedWithoutAValue;
        }

        var field = _dictionary.GetField(tag);
        if (field is not null && field.HasValueCheck && f.Length != 0)
        {
            var value = message.ValueAt(fieldIndex);
            if (!field.HasValidFormat(value))
            {
                return SessionRejectReason.IncorrectDataFormatForValue;
            }

            if (!_allowUnknownEnums && (_checkUserDefined || tag < _userMin) && !field.IsAllowedValue(value))
            {
                return SessionRejectReason.ValueIsIncorrect;
            }
        }

        if (!_checkUserDefined && tag >= _userMin)
        {
            return NoProblem;
        }

        if (field is null)
        {
            return _allowUnknownFields ? NoProblem : SessionRejectReason.InvalidTagNumber;
        }

        if (isBody && !_allowUnknownFields && !container.Contains(tag))
        {
            return SessionRejectReason.TagNotDefinedForThisMessageType;
        }

        if (container.IsGroupCount(tag) && !GroupCountMatches(message, fieldIndex))
        {
            return SessionRejectReason.IncorrectNumInGroupCountForRepeatingGroup;
        }

        return NoProblem;
    }

    private static bool GroupCountMatches(FixMessage message, int countFieldIndex)
    {
        int instances = message.GroupInstanceCount;
        for (int g = 0; g < instances; g++)
        {
            ref readonly var group = ref message.GroupAt(g);
            if (group.CountFieldIndex == countFieldIndex)
            {
                return group.Declared == group.Actual;
            }
        }

        return true;
    }

    [MethodImpl(MethodImplOptions.NoInlining)]
    private static void ThrowWrongDictionary() =>
        throw new InvalidOperationException("The message was parsed with another dictionary (or none): parse it with the validator's dictionary first.");

    private readonly struct Problem
    {
        public Problem(int tag, SessionRejectReason reason)
        {
            Tag = tag;
            Reason = reason;
            IsSet = true;
        }

        public int Tag { get; }

        public SessionRejectReason Reason { get; }

        public bool IsSet { get; }

        public ValidationResult ToResult() => ValidationResult.RejectFor(Reason, Tag);
    }
}
