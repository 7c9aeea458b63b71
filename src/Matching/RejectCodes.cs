namespace RapidFix.Matching;

/// <summary>
/// The standard reject reason each ack carries (docs/matching.md, "Acks"): TradeReportRejectReason (751) on AR,
/// AllocRejCode (88) on P, ConfirmRejReason (774) on AU, BusinessRejectReason (380) on the BusinessMessageReject that
/// answers a SET. Only values the FIX 4.4 dictionary lists.
/// </summary>
public static class RejectCodes
{
    /// <summary>The code for <paramref name="kind"/>'s ack.</summary>
    public static int For(MessageKind kind, ExceptionReason reason, Criterion criterion) => kind switch
    {
        MessageKind.Noe => TradeReportRejectReason(reason, criterion),
        MessageKind.Alc => AllocRejCode(reason, criterion),
        MessageKind.Npr => ConfirmRejReason(reason, criterion),
        _ => BusinessRejectReason(reason, criterion),
    };

    /// <summary>751: 1 invalid party, 2 unknown instrument, 3 unauthorized, 4 (FIX 4.4 has no "other") everything else.</summary>
    public static int TradeReportRejectReason(ExceptionReason reason, Criterion criterion) => (reason, criterion) switch
    {
        (ExceptionReason.NotAuthorized, _) => 3,
        (_, Criterion.Security) => 2,
        (ExceptionReason.StaticData, Criterion.ExecutingBroker or Criterion.InvestmentManager) => 1,
        _ => 4,
    };

    /// <summary>88: 0 unknown account, 1 quantity, 2 price, 3 unknown broker, 4 commission, 9 calculation, 11 mismatched data, 7 other.</summary>
    public static int AllocRejCode(ExceptionReason reason, Criterion criterion) => (reason, criterion) switch
    {
        (ExceptionReason.StaticData, Criterion.Account) => 0,
        (ExceptionReason.StaticData, Criterion.ExecutingBroker) => 3,
        (ExceptionReason.Mismatch, Criterion.Quantity) => 1,
        (ExceptionReason.Mismatch, Criterion.Price) => 2,
        (ExceptionReason.Mismatch, Criterion.Commission) => 4,
        (ExceptionReason.Mismatch, Criterion.GrossAmount or Criterion.Fees or Criterion.Tax or Criterion.AccruedInterest or Criterion.NetAmount or Criterion.SettlementAmount) => 9,
        (ExceptionReason.Mismatch, _) => 11,
        _ => 7,
    };

    /// <summary>774: 1 mismatched account, 2 missing settlement instructions, 99 other.</summary>
    public static int ConfirmRejReason(ExceptionReason reason, Criterion criterion) => (reason, criterion) switch
    {
        (_, Criterion.Account) => 1,
        (_, Criterion.PlaceOfSettlement) => 2,
        _ => 99,
    };

    /// <summary>380: 1 unknown ID, 2 unknown security, 5 conditionally required field missing, 6 not authorized, 0 other.</summary>
    public static int BusinessRejectReason(ExceptionReason reason, Criterion criterion) => (reason, criterion) switch
    {
        (ExceptionReason.UnknownReference, _) => 1,
        (_, Criterion.Security) => 2,
        (ExceptionReason.MissingField, _) => 5,
        (ExceptionReason.NotAuthorized, _) => 6,
        _ => 0,
    };
}
