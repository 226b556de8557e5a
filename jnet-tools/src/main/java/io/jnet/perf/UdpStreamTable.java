package io.jnet.perf;

import java.io.PrintStream;
import java.util.List;
import java.util.Locale;

/**
 * UDP_STREAM's part of the text report: netperf's two-line table per stack (the send line with the
 * client's SO_SNDBUF, the message size, the sender's time, messages sent "Okay", send "Errors" and the send
 * rate; the receive line with the server's SO_RCVBUF, the receiver's time, messages received and the
 * receive rate), medians over the measured runs, then the datagrams lost over all measured runs.
 */
final class UdpStreamTable {
    private UdpStreamTable() {}

    private static final String HEAD = "%-8s %-8s %-8s %-8s %-8s %-13s %s";
    private static final String SEND_ROW = "%-8s %-8d %-8.2f %-8.0f %-8.0f %-13.2f %s";
    private static final String RECV_ROW = "%-8s %-8s %-8.2f %-8.0f %-8s %-13.2f";

    /** Prints the table and the loss line for the stacks in {@code measured}. */
    static void print(PrintStream out, TestSpec spec, List<Series> measured) {
        line(out, HEAD, "Socket", "Message", "Elapsed", "Messages", "", "", "");
        line(out, HEAD, "Size", "Size", "Time", "Okay", "Errors", "Throughput", "");
        line(out, HEAD, "bytes", "bytes", "secs", "#", "#", "10^6bits/sec", "Stack");
        out.println();
        StringBuilder loss = new StringBuilder();
        for (Series s : measured) {
            DatagramSummary d = DatagramSummary.of(s);
            if (d == null) continue;
            SocketSizes z = s.sizes();
            line(out, SEND_ROW, TextReport.socketSize(z.localSend()), spec.sendSize(), d.sendElapsedMedian(), d.sentMedian(), d.errorsMedian(),
                    d.sendMedian(), s.stack());
            line(out, RECV_ROW, TextReport.socketSize(z.remoteRecv()), "", s.medianElapsedSeconds(), d.receivedMedian(), "", s.median());
            if (!loss.isEmpty()) loss.append(", ");
            loss.append(String.format(Locale.ROOT, "%s %d of %d (%s%%)", s.stack(), d.lost(), d.sent(),
                    TextReport.num(d.lossPercent(), 2)));
        }
        out.println();
        if (!loss.isEmpty()) {
            out.println("Datagrams lost (all measured runs): " + loss);
            out.println();
        }
    }

    private static void line(PrintStream out, String format, Object... args) {
        out.println(String.format(Locale.ROOT, format, args).stripTrailing());
    }
}
