using RapidFix.Engine.Fields;

namespace RapidFix.Matching;

/// <summary>Why a message could not be read into a <see cref="MatchInput"/>: the reason and the tag.</summary>
public readonly record struct ReadProblem(ExceptionReason Reason, int Tag);

/// <summary>
/// Copies the fields the matcher uses out of any <see cref="IFieldAccessor"/> (a parsed FIX message, a decoded FAST
/// message) into a <see cref="MatchInput"/>, following the tag contract of docs/matching.md. Allocation-free.
/// </summary>
public static class MessageReader
{
    // PartyRole (452) values the contract uses.
    internal const int RoleExecutingBroker = 1;
    internal const int RolePlaceOfSettlement = 10;
    internal const int RoleInvestmentManager = 13;
    internal const int RoleAccount = 24;

    /// <summary>The message kind a MsgType carries (AE, J, AK, T), or <see cref="MessageKind.None"/>.</summary>
    public static MessageKind KindOf(ReadOnlySpan<byte> msgType) => msgType.Length switch
    {
        1 when msgType[0] == 'J' => MessageKind.Alc,
        1 when msgType[0] == 'T' => MessageKind.Set,
        2 when msgType[0] == 'A' && msgType[1] == 'E' => MessageKind.Noe,
        2 when msgType[0] == 'A' && msgType[1] == 'K' => MessageKind.Npr,
        _ => MessageKind.None,
    };

    /// <summary>
    /// Reads <paramref name="message"/>; <paramref name="sender"/> is the participant it came from (the session's
    /// SenderCompID). On false, <paramref name="problem"/> names the field, and <paramref name="input"/> holds what
    /// was read so far (kind, IDs) for the answer.
    /// </summary>
    public static bool TryRead<T>(T message, ReadOnlySpan<byte> sender, out MatchInput input, out ReadProblem problem)
        where T : IFieldAccessor
    {
        input = default;
        problem = default;
        input.Kind = KindOf(message.MsgType);
        if (!input.Sender.TrySet(sender))
        {
            return Fail(ExceptionReason.NotAuthorized, 49, out problem);
        }

        if (message.TryGetText(FieldScope.Message, 43, out var possDup) && possDup.Length == 1 && possDup[0] == 'Y')
        {
            input.PossDup = true;
        }

        return input.Kind switch
        {
            MessageKind.Noe => ReadNoe(message, ref input, out problem),
            MessageKind.Alc => ReadAlc(message, ref input, out problem),
            MessageKind.Npr => ReadNpr(message, ref input, out problem),
            MessageKind.Set => ReadSet(message, ref input, out problem),
            _ => Fail(ExceptionReason.Unsupported, 35, out problem),
        };
    }

    private static bool ReadNoe<T>(T m, ref MatchInput input, out ReadProblem problem)
        where T : IFieldAccessor
    {
        var top = FieldScope.Message;
        if (!Id(m, top, 571, ref input.Id, out problem))
        {
            return false;
        }

        input.MessageId = input.Id;
        int trans = 0;
        if (m.Contains(top, 487) && (!m.TryGetInt(top, 487, out trans) || trans > 2 || trans < 0))
        {
            return Fail(ExceptionReason.Unsupported, 487, out problem);
        }

        input.Trans = (TransType)trans; // 0 new, 1 cancel, 2 replace: the enum's own order
        if (!RefId(m, top, 572, ref input, out problem) ||
            !Security(m, top, ref input, out problem) ||
            !Date(m, top, 75, true, ref input.TradeDate, ref input, InputFields.TradeDate, out problem) ||
            !Date(m, top, 64, false, ref input.SettlDate, ref input, InputFields.SettlDate, out problem) ||
            !Amount(m, top, 32, true, ref input.Quantity, ref input, InputFields.Quantity, out problem) ||
            !Amount(m, top, 31, true, ref input.Price, ref input, InputFields.Price, out problem) ||
            !Currency(m, top, 15, ref input.Currency, ref input, InputFields.Currency, out problem))
        {
            return false;
        }

        if (m.GetGroupCount(top, 552) != 1 || !m.TryGetGroupEntry(top, 552, 0, out var side))
        {
            return Fail(ExceptionReason.InvalidField, 552, out problem);
        }

        return Side(m, side, ref input, out problem) &&
               Parties(m, side, ref input, out problem) &&
               (input.Has(InputFields.Currency) || Currency(m, side, 15, ref input.Currency, ref input, InputFields.Currency, out problem)) &&
               Amount(m, side, 381, false, ref input.Gross, ref input, InputFields.Gross, out problem) &&
               Currency(m, side, 120, ref input.SettlCurrency, ref input, InputFields.SettlCurrency, out problem) &&
               Require(input.Has(InputFields.Currency), 15, out problem);
    }

    private static bool ReadAlc<T>(T m, ref MatchInput input, out ReadProblem problem)
        where T : IFieldAccessor
    {
        var top = FieldScope.Message;
        if (!Id(m, top, 70, ref input.Id, out problem))
        {
            return false;
        }

        input.MessageId = input.Id;
        if (!m.TryGetText(top, 71, out var t) || t.Length != 1 || t[0] < '0' || t[0] > '2')
        {
            return Fail(m.Contains(top, 71) ? ExceptionReason.Unsupported : ExceptionReason.MissingField, 71, out problem);
        }

        input.Trans = t[0] switch { (byte)'1' => TransType.Replace, (byte)'2' => TransType.Cancel, _ => TransType.New };
        if (!RefId(m, top, 72, ref input, out problem) ||
            !Side(m, top, ref input, out problem) ||
            !Security(m, top, ref input, out problem) ||
            !Date(m, top, 75, true, ref input.TradeDate, ref input, InputFields.TradeDate, out problem) ||
            !Date(m, top, 64, false, ref input.SettlDate, ref input, InputFields.SettlDate, out problem) ||
            !Amount(m, top, 6, true, ref input.Price, ref input, InputFields.Price, out problem) ||
            !Currency(m, top, 15, ref input.Currency, ref input, InputFields.Currency, out problem) ||
            !Require(input.Has(InputFields.Currency), 15, out problem) ||
            !Amount(m, top, 381, false, ref input.Gross, ref input, InputFields.Gross, out problem) ||
            !Amount(m, top, 118, false, ref input.Net, ref input, InputFields.Net, out problem) ||
            !Amount(m, top, 159, false, ref input.Accrued, ref input, InputFields.Accrued, out problem) ||
            !Parties(m, top, ref input, out problem))
        {
            return false;
        }

        if (m.GetGroupCount(top, 78) != 1 || !m.TryGetGroupEntry(top, 78, 0, out var alloc))
        {
            return Fail(ExceptionReason.InvalidField, 78, out problem);
        }

        return Account(m, alloc, 79, ref input, out problem) &&
               Amount(m, alloc, 80, true, ref input.Quantity, ref input, InputFields.Quantity, out problem) &&
               Money(m, alloc, ref input, out problem);
    }

    private static bool ReadNpr<T>(T m, ref MatchInput input, out ReadProblem problem)
        where T : IFieldAccessor
    {
        var top = FieldScope.Message;
        if (!Id(m, top, 664, ref input.Id, out problem))
        {
            return false;
        }

        input.MessageId = input.Id;
        if (!m.TryGetInt(top, 773, out int confirmType) || confirmType != 2)
        {
            // ConfirmType 1 (status) is what the utility sends (CLS); it does not take one in.
            return Fail(m.Contains(top, 773) ? ExceptionReason.Unsupported : ExceptionReason.MissingField, 773, out problem);
        }

        if (!m.TryGetInt(top, 666, out int trans) || trans < 0 || trans > 2)
        {
            return Fail(m.Contains(top, 666) ? ExceptionReason.Unsupported : ExceptionReason.MissingField, 666, out problem);
        }

        input.Trans = trans switch { 1 => TransType.Replace, 2 => TransType.Cancel, _ => TransType.New };
        return RefId(m, top, 772, ref input, out problem) &&
               Side(m, top, ref input, out problem) &&
               Security(m, top, ref input, out problem) &&
               Date(m, top, 75, true, ref input.TradeDate, ref input, InputFields.TradeDate, out problem) &&
               Date(m, top, 64, false, ref input.SettlDate, ref input, InputFields.SettlDate, out problem) &&
               Amount(m, top, 80, true, ref input.Quantity, ref input, InputFields.Quantity, out problem) &&
               Amount(m, top, 6, true, ref input.Price, ref input, InputFields.Price, out problem) &&
               Currency(m, top, 15, ref input.Currency, ref input, InputFields.Currency, out problem) &&
               Require(input.Has(InputFields.Currency), 15, out problem) &&
               Account(m, top, 79, ref input, out problem) &&
               Amount(m, top, 381, true, ref input.Gross, ref input, InputFields.Gross, out problem) &&
               Amount(m, top, 118, true, ref input.Net, ref input, InputFields.Net, out problem) &&
               Amount(m, top, 159, false, ref input.Accrued, ref input, InputFields.Accrued, out problem) &&
               Money(m, top, ref input, out problem) &&
               Parties(m, top, ref input, out problem);
    }

    private static bool ReadSet<T>(T m, ref MatchInput input, out ReadProblem problem)
        where T : IFieldAccessor
    {
        var top = FieldScope.Message;
        if (!Id(m, top, 777, ref input.MessageId, out problem))
        {
            return false;
        }

        if (m.GetGroupCount(top, 778) != 1 || !m.TryGetGroupEntry(top, 778, 0, out var entry))
        {
            return Fail(ExceptionReason.InvalidField, 778, out problem);
        }

        if (!Id(m, entry, 162, ref input.Id, out problem))
        {
            return false;
        }

        if (!m.TryGetText(entry, 163, out var t) || t.Length != 1)
        {
            return Fail(m.Contains(entry, 163) ? ExceptionReason.Unsupported : ExceptionReason.MissingField, 163, out problem);
        }

        switch (t[0])
        {
            case (byte)'N': input.Trans = TransType.New; break;
            case (byte)'C': input.Trans = TransType.Cancel; break;
            case (byte)'R': input.Trans = TransType.Replace; break;
            default: return Fail(ExceptionReason.Unsupported, 163, out problem);
        }

        return RefId(m, entry, 214, ref input, out problem) &&
               Side(m, entry, ref input, out problem) &&
               Currency(m, entry, 120, ref input.SettlCurrency, ref input, InputFields.SettlCurrency, out problem) &&
               Parties(m, entry, ref input, out problem) &&
               Require(input.Has(InputFields.Account), 448, out problem);
    }

    /// <summary>Commission (12/13), fees and tax (NoMiscFees), settlement currency, amount and rate.</summary>
    private static bool Money<T>(T m, FieldScope scope, ref MatchInput input, out ReadProblem problem)
        where T : IFieldAccessor
    {
        if (!Amount(m, scope, 12, false, ref input.Commission, ref input, InputFields.Commission, out problem) ||
            !Currency(m, scope, 120, ref input.SettlCurrency, ref input, InputFields.SettlCurrency, out problem) ||
            !Amount(m, scope, 119, false, ref input.SettlAmount, ref input, InputFields.SettlAmount, out problem) ||
            !Amount(m, scope, 155, false, ref input.FxRate, ref input, InputFields.FxRate, out problem))
        {
            return false;
        }

        if (input.Has(InputFields.Commission))
        {
            if (!m.TryGetText(scope, 13, out var ct) || ct.Length != 1 || (ct[0] != '2' && ct[0] != '3'))
            {
                // Absolute (3) and percentage (2) only: per-unit and the waived kinds are not compared.
                return Fail(m.Contains(scope, 13) ? ExceptionReason.Unsupported : ExceptionReason.MissingField, 13, out problem);
            }

            input.CommType = ct[0];
        }

        int fees = m.GetGroupCount(scope, 136);
        for (int i = 0; i < fees; i++)
        {
            if (!m.TryGetGroupEntry(scope, 136, i, out var fee) ||
                !m.TryGetDecimal(fee, 137, out var amount) || !Scaled.TryFrom(amount, out long value))
            {
                return Fail(ExceptionReason.InvalidField, 137, out problem);
            }

            if (!m.TryGetText(fee, 139, out var type))
            {
                return Fail(ExceptionReason.MissingField, 139, out problem);
            }

            bool tax = (type.Length == 1 && type[0] == '2') || (type.Length == 2 && type[0] == '2' && type[1] == '2');
            if (tax)
            {
                input.Tax += value;
                input.Present |= InputFields.Tax;
            }
            else
            {
                input.Fees += value;
                input.Present |= InputFields.Fees;
            }
        }

        return true;
    }

    /// <summary>PartyID (448) by PartyRole (452) in the NoPartyIDs group of <paramref name="scope"/>.</summary>
    private static bool Parties<T>(T m, FieldScope scope, ref MatchInput input, out ReadProblem problem)
        where T : IFieldAccessor
    {
        int count = m.GetGroupCount(scope, 453);
        for (int i = 0; i < count; i++)
        {
            if (!m.TryGetGroupEntry(scope, 453, i, out var party) ||
                !m.TryGetText(party, 448, out var id) || !m.TryGetInt(party, 452, out int role))
            {
                return Fail(ExceptionReason.MissingField, 452, out problem);
            }

            bool fits = role switch
            {
                RoleExecutingBroker => input.ExecutingBroker.TrySet(id),
                RoleInvestmentManager => input.InvestmentManager.TrySet(id),
                RolePlaceOfSettlement => SetFlag(input.Place.TrySet(id), ref input, InputFields.Place),
                RoleAccount when input.Kind == MessageKind.Set => SetFlag(input.Account.TrySet(id), ref input, InputFields.Account),
                _ => true,
            };
            if (!fits)
            {
                return Fail(ExceptionReason.InvalidField, 448, out problem);
            }
        }

        problem = default;
        if (input.ExecutingBroker.Length == 0 || input.InvestmentManager.Length == 0)
        {
            return Fail(ExceptionReason.MissingField, 448, out problem);
        }

        return true;
    }

    private static bool SetFlag(bool ok, ref MatchInput input, InputFields flag)
    {
        if (ok)
        {
            input.Present |= flag;
        }

        return ok;
    }

    private static bool Id<T>(T m, FieldScope scope, int tag, ref Bytes32 id, out ReadProblem problem)
        where T : IFieldAccessor
    {
        if (!m.TryGetText(scope, tag, out var value) || value.Length == 0)
        {
            return Fail(ExceptionReason.MissingField, tag, out problem);
        }

        problem = default;
        return id.TrySet(value) || Fail(ExceptionReason.InvalidField, tag, out problem);
    }

    private static bool RefId<T>(T m, FieldScope scope, int tag, ref MatchInput input, out ReadProblem problem)
        where T : IFieldAccessor
    {
        problem = default;
        if (input.Trans == TransType.New)
        {
            return true;
        }

        return Id(m, scope, tag, ref input.RefId, out problem);
    }

    private static bool Side<T>(T m, FieldScope scope, ref MatchInput input, out ReadProblem problem)
        where T : IFieldAccessor
    {
        if (!m.TryGetText(scope, 54, out var side) || side.Length != 1)
        {
            return Fail(ExceptionReason.MissingField, 54, out problem);
        }

        if (side[0] != '1' && side[0] != '2')
        {
            return Fail(ExceptionReason.Unsupported, 54, out problem);
        }

        input.Side = side[0];
        problem = default;
        return true;
    }

    private static bool Security<T>(T m, FieldScope scope, ref MatchInput input, out ReadProblem problem)
        where T : IFieldAccessor
    {
        if (!m.TryGetText(scope, 48, out var isin))
        {
            return Fail(ExceptionReason.MissingField, 48, out problem);
        }

        if (!m.TryGetText(scope, 22, out var source) || source.Length != 1 || source[0] != '4')
        {
            return Fail(m.Contains(scope, 22) ? ExceptionReason.Unsupported : ExceptionReason.MissingField, 22, out problem);
        }

        problem = default;
        return SetFlag(input.Isin.TrySet(isin), ref input, InputFields.Security) ||
               Fail(ExceptionReason.StaticData, 48, out problem);
    }

    private static bool Date<T>(T m, FieldScope scope, int tag, bool required, ref int date, ref MatchInput input, InputFields flag, out ReadProblem problem)
        where T : IFieldAccessor
    {
        // One lookup on the happy path: whether the field is there at all is asked only when it did not read.
        problem = default;
        if (m.TryGetInt(scope, tag, out date))
        {
            if (!Codes.IsDate(date))
            {
                return Fail(ExceptionReason.InvalidField, tag, out problem);
            }

            input.Present |= flag;
            return true;
        }

        return m.Contains(scope, tag) ? Fail(ExceptionReason.InvalidField, tag, out problem)
            : !required || Fail(ExceptionReason.MissingField, tag, out problem);
    }

    private static bool Amount<T>(T m, FieldScope scope, int tag, bool required, ref long value, ref MatchInput input, InputFields flag, out ReadProblem problem)
        where T : IFieldAccessor
    {
        problem = default;
        if (m.TryGetDecimal(scope, tag, out var d))
        {
            if (!Scaled.TryFrom(d, out value))
            {
                return Fail(ExceptionReason.InvalidField, tag, out problem);
            }

            input.Present |= flag;
            return true;
        }

        return m.Contains(scope, tag) ? Fail(ExceptionReason.InvalidField, tag, out problem)
            : !required || Fail(ExceptionReason.MissingField, tag, out problem);
    }

    private static bool Currency<T>(T m, FieldScope scope, int tag, ref int currency, ref MatchInput input, InputFields flag, out ReadProblem problem)
        where T : IFieldAccessor
    {
        problem = default;
        if (!m.TryGetText(scope, tag, out var code))
        {
            return true;
        }

        currency = Codes.PackCurrency(code);
        if (currency == 0)
        {
            return Fail(ExceptionReason.StaticData, tag, out problem);
        }

        input.Present |= flag;
        return true;
    }

    private static bool Account<T>(T m, FieldScope scope, int tag, ref MatchInput input, out ReadProblem problem)
        where T : IFieldAccessor
    {
        if (!m.TryGetText(scope, tag, out var account) || account.Length == 0)
        {
            return Fail(ExceptionReason.MissingField, tag, out problem);
        }

        problem = default;
        return SetFlag(input.Account.TrySet(account), ref input, InputFields.Account) ||
               Fail(ExceptionReason.InvalidField, tag, out problem);
    }

    private static bool Require(bool present, int tag, out ReadProblem problem)
    {
        problem = default;
        return present || Fail(ExceptionReason.MissingField, tag, out problem);
    }

    private static bool Fail(ExceptionReason reason, int tag, out ReadProblem problem)
    {
        problem = new ReadProblem(reason, tag);
        return false;
    }
}
