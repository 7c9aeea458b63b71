using System.Text;
using RapidFix.Engine.Codec;
using RapidFix.Engine.Fields;
using RapidFix.Engine.Sessions;

namespace RapidFix.AcceptanceRunner.Hosting;

/// <summary>
/// The application the QuickFIX acceptance scripts assume behind the acceptor (../shared/fix/README.md): it echoes
/// orders, security definitions and quote requests, answers "echo:" News and XMLnonFIX messages, accepts trade
/// capture report requests and refuses every other application message as an unsupported type.
/// </summary>
public sealed class AcceptanceApplication : FixApplicationBase
{
    private readonly HashSet<string> _seenClOrdIds = new(StringComparer.Ordinal);
    private readonly byte[] _body = new byte[64 * 1024];
    private readonly byte[] _header = new byte[4 * 1024];

    public override void OnLogout(FixSession session) => _seenClOrdIds.Clear();

    public override void FromAdmin(FixSession session, FixMessage message)
    {
        if (message.MsgType.SequenceEqual("n"u8))
        {
            message.TryGetInt(Tags.MsgSeqNum, out int seq);
            var writer = new FixBodyWriter(_body);
            writer.Add(148, Encoding.ASCII.GetBytes($"Successfully received 'n' message with seqNo={seq}"));
            session.Send("B"u8, writer.Written);
        }
    }

    public override MessageDisposition FromApp(FixSession session, FixMessage message)
    {
        var msgType = message.MsgType;
        bool fix44 = session.Id.BeginString == "FIX.4.4";
        if (msgType.SequenceEqual("D"u8))
        {
            string clOrdId = Encoding.Latin1.GetString(message.GetValue(Tags.ClOrdID));
            bool possResend = message.TryGetBool(Tags.PossResend, out bool pr) && pr;
            bool seen = !_seenClOrdIds.Add(clOrdId);
            if (possResend && seen)
            {
                return MessageDisposition.Accept;
            }

            Echo(session, message);
            return MessageDisposition.Accept;
        }

        if (msgType.SequenceEqual("d"u8) || (fix44 && msgType.SequenceEqual("R"u8)))
        {
            Echo(session, message);
            return MessageDisposition.Accept;
        }

        if (msgType.SequenceEqual("B"u8))
        {
            var headline = message.GetValue(148);
            if (headline.StartsWith("echo:"u8))
            {
                var header = new FixBodyWriter(_header);
                if (message.TryGetValue(Tags.MessageEncoding, out var encoding))
                {
                    header.Add(Tags.MessageEncoding, encoding);
                }

                var body = new FixBodyWriter(_body);
                body.Add(148, headline.Slice(5).Trim((byte)' '));
                if (message.TryGetValue(358, out var length))
                {
                    body.Add(358, length);
                }

                if (message.TryGetValue(359, out var encoded))
                {
                    body.Add(359, encoded);
                }

                session.Send("B"u8, body.Written, header.Written);
            }

            return MessageDisposition.Accept;
        }

        if (fix44 && msgType.SequenceEqual("AD"u8))
        {
            return MessageDisposition.Accept;
        }

        return MessageDisposition.UnsupportedMessageType;
    }

    /// <summary>Sends the message back as QuickFIX renders it: body fields by tag, groups in dictionary order, header extras kept.</summary>
    private void Echo(FixSession session, FixMessage message)
    {
        var body = new FixBodyWriter(_body);
        body.AddBodyOf(message);
        var header = new FixBodyWriter(_header);
        for (int i = 3; i < message.FieldCount; i++)
        {
            int tag = message.GetTag(i);
            if (tag == Tags.PossResend || tag == Tags.OnBehalfOfCompID || tag == Tags.DeliverToCompID || tag == Tags.MessageEncoding)
            {
                header.Add(tag, message.GetValueAt(i));
            }
        }

        session.Send(message.MsgType, body.Written, header.Written);
    }
}
