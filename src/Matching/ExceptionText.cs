using System.Buffers.Text;

namespace RapidFix.Matching;

/// <summary>
/// The Text (58) of an ack rejection or an exception notice, written without allocating (format in
/// docs/matching.md, "Exceptions"):
/// <c>EXC &lt;id&gt; &lt;REASON&gt; [C&lt;nn&gt; &lt;CRITERION&gt;] [TAG &lt;tag&gt;] [GOT &lt;value&gt;] [EXPECTED &lt;value&gt;] [TOL &lt;RULE&gt; &lt;value&gt; [CAP &lt;cap&gt;]] [TRADE &lt;n&gt;]</c>.
/// </summary>
public static class ExceptionText
{
    /// <summary>Longest text <see cref="Write"/> produces.</summary>
    public const int MaxLength = 256;

    /// <summary>Writes the text of <paramref name="e"/>; returns the bytes written (0 when it does not fit).</summary>
    public static int Write(in MatchException e, Span<byte> destination)
    {
        var w = new Writer(destination);
        w.Text("EXC "u8);
        w.Number(e.Id);
        w.Text(" "u8);
        w.Text(ReasonName(e.Reason));
        if (e.Criterion != Criterion.None)
        {
            w.Text(" C"u8);
            if ((int)e.Criterion < 10)
            {
                w.Text("0"u8);
            }

            w.Number((int)e.Criterion);
            w.Text(" "u8);
            w.Text(CriterionName(e.Criterion));
        }

        if (e.Tag != 0)
        {
            w.Text(" TAG "u8);
            w.Number(e.Tag);
        }

        if (e.Value.Length > 0)
        {
            w.Text(" GOT "u8);
            w.Text(e.Value.Span);
        }

        if (e.Expected.Length > 0)
        {
            w.Text(" EXPECTED "u8);
            w.Text(e.Expected.Span);
            w.Text(" TOL "u8);
            w.Text(RuleName(e.Tolerance.Rule));
            if (e.Tolerance.Rule != ToleranceRule.Exct)
            {
                w.Text(" "u8);
                w.Amount(e.Tolerance.Value);
            }

            if (e.Tolerance.Rule == ToleranceRule.Ptmx)
            {
                w.Text(" CAP "u8);
                w.Amount(e.Tolerance.Cap);
            }
        }

        if (e.TradeNumber != 0)
        {
            w.Text(" TRADE "u8);
            w.Number(e.TradeNumber);
        }

        return w.Length;
    }

    /// <summary>The reason's name in the text.</summary>
    public static ReadOnlySpan<byte> ReasonName(ExceptionReason reason) => reason switch
    {
        ExceptionReason.MissingField => "MISSING-FIELD"u8,
        ExceptionReason.InvalidField => "INVALID-FIELD"u8,
        ExceptionReason.StaticData => "STATIC-DATA"u8,
        ExceptionReason.NotAuthorized => "NOT-AUTHORIZED"u8,
        ExceptionReason.Mismatch => "MISMATCH"u8,
        ExceptionReason.UnknownReference => "UNKNOWN-REFERENCE"u8,
        ExceptionReason.LateForClearedTrade => "LATE"u8,
        ExceptionReason.KeyFieldAmended => "KEY-AMENDED"u8,
        ExceptionReason.IdReused => "ID-REUSED"u8,
        ExceptionReason.TableFull => "TABLE-FULL"u8,
        ExceptionReason.Expired => "EXPIRED"u8,
        ExceptionReason.Unsupported => "UNSUPPORTED"u8,
        _ => "NONE"u8,
    };

    /// <summary>The criterion's name in the text.</summary>
    public static ReadOnlySpan<byte> CriterionName(Criterion criterion) => criterion switch
    {
        Criterion.TradeDate => "TRADE-DATE"u8,
        Criterion.SettlementDate => "SETTL-DATE"u8,
        Criterion.Security => "SECURITY"u8,
        Criterion.Side => "SIDE"u8,
        Criterion.TradeCurrency => "CURRENCY"u8,
        Criterion.Quantity => "QUANTITY"u8,
        Criterion.Price => "PRICE"u8,
        Criterion.GrossAmount => "GROSS"u8,
        Criterion.Commission => "COMMISSION"u8,
        Criterion.Fees => "FEES"u8,
        Criterion.Tax => "TAX"u8,
        Criterion.AccruedInterest => "ACCRUED"u8,
        Criterion.NetAmount => "NET"u8,
        Criterion.SettlementCurrency => "SETTL-CURRENCY"u8,
        Criterion.Account => "ACCOUNT"u8,
        Criterion.ExecutingBroker => "EXEC-BROKER"u8,
        Criterion.PlaceOfSettlement => "PLACE"u8,
        Criterion.InvestmentManager => "INV-MANAGER"u8,
        Criterion.SettlementAmount => "SETTL-AMOUNT"u8,
        _ => "NONE"u8,
    };

    private static ReadOnlySpan<byte> RuleName(ToleranceRule rule) => rule switch
    {
        ToleranceRule.Mnmx => "MNMX"u8,
        ToleranceRule.Ptol => "PTOL"u8,
        ToleranceRule.Ptmx => "PTMX"u8,
        _ => "EXCT"u8,
    };

    private ref struct Writer(Span<byte> destination)
    {
        private readonly Span<byte> _destination = destination;
        private bool _overflow;

        public int Length { get; private set; }

        public void Text(scoped ReadOnlySpan<byte> text)
        {
            if (_overflow || !text.TryCopyTo(_destination[Length..]))
            {
                Overflow();
                return;
            }

            Length += text.Length;
        }

        public void Number(long value)
        {
            if (_overflow || !Utf8Formatter.TryFormat(value, _destination[Length..], out int n))
            {
                Overflow();
                return;
            }

            Length += n;
        }

        public void Amount(long scaled)
        {
            int n = _overflow ? 0 : Scaled.Format(scaled, _destination[Length..]);
            if (n == 0)
            {
                Overflow();
                return;
            }

            Length += n;
        }

        private void Overflow()
        {
            _overflow = true;
            Length = 0;
        }
    }
}
