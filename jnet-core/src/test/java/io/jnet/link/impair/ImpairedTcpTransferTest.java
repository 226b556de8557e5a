package io.jnet.link.impair;

import static org.assertj.core.api.Assertions.assertThat;

import io.jnet.link.VethPair;
import io.jnet.link.pcap.PcapSniffer;
import io.jnet.link.pcap.PcapWriter;
import io.jnet.socket.TcpSocket;
import io.jnet.stack.MibCounter;
import io.jnet.stack.NetNamespace;
import io.jnet.testing.TcpTransfers;
import io.jnet.testing.TcpTransfers.Connection;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/**
 * TCP over a lossy veth: 2 MiB each way at once between two namespaces on real time, with loss,
 * duplication and reordering in both directions of one end; both streams must arrive intact.
 * Set {@code -Djnet.impair.pcap=/path/file.pcap} to capture the wire at the peer's end (behind the
 * impairment's egress, before its ingress), {@code -Djnet.impair.spec=...} to try other impairments.
 */
class ImpairedTcpTransferTest {
    private static final int SIZE = 2 << 20;
    private static final long TIMEOUT_S = Long.getLong("jnet.impair.timeout", 120);
    private static final String SPEC = System.getProperty("jnet.impair.spec", "loss=2%,dup=1%,reorder=1%,reorder-gap=3,seed=7");

    @Test
    void bidirectionalTransferSurvivesLossDuplicationAndReordering() throws Exception {
        try (NetNamespace a = NetNamespace.create("a"); NetNamespace b = NetNamespace.create("b")) {
            VethPair p = VethPair.create("veth0", "veth1");
            a.attach(p.a());
            b.attach(p.b());
            a.addAddress("veth0", "10.0.0.1/24");
            b.addAddress("veth1", "10.0.0.2/24");
            String pcap = System.getProperty("jnet.impair.pcap");
            if (pcap != null) {
                b.interpose("veth1", d -> {
                    try {
                        return new PcapSniffer(d, PcapWriter.create(Path.of(pcap)));
                    } catch (IOException e) {
                        throw new UncheckedIOException(e);
                    }
                });
            }
            ImpairedDevice d = ImpairedDevice.interpose(a, "veth0", ImpairmentConfig.parse(SPEC));

            byte[] up = TcpTransfers.random(SIZE, 1);
            byte[] down = TcpTransfers.random(SIZE, 2);
            long start = System.nanoTime();
            try (Connection conn = TcpTransfers.connect(a, b, "10.0.0.2")) {
                TcpTransfers.exchange(conn, up, down, 10_000, TIMEOUT_S, () -> diagnostics(a, b, conn.client(), conn.server(), d));
            }
            long ms = (System.nanoTime() - start) / 1_000_000;
            ImpairmentCounts e = d.counts(Direction.EGRESS);
            ImpairmentCounts i = d.counts(Direction.INGRESS);
            System.out.printf("lossy veth (%s): 2 x %d bytes in %d ms; a retransmitted %d, b retransmitted %d segments%n",
                    SPEC, SIZE, ms, a.mib().get(MibCounter.TcpRetransSegs), b.mib().get(MibCounter.TcpRetransSegs));
            System.out.println("egress: " + e.summary());
            System.out.println("ingress: " + i.summary());
            // the impairments did happen, both ways
            for (ImpairmentCounts c : new ImpairmentCounts[] {e, i}) {
                assertThat(c.dropped()).isPositive();
                assertThat(c.duplicated()).isPositive();
                assertThat(c.reordered()).isPositive();
            }
            assertThat(a.internalErrors()).isZero();
            assertThat(b.internalErrors()).isZero();
        }
    }

    /** What a stalled transfer looks like: socket states, recent impairments, both namespaces' counters, stacks. */
    static String diagnostics(NetNamespace a, NetNamespace b, TcpSocket c, TcpSocket s, ImpairedDevice d) {
        StringBuilder out = new StringBuilder();
        out.append("client ").append(c).append(" state ").append(c.state()).append(" available ").append(c.available()).append('\n');
        out.append("server ").append(s).append(" state ").append(s.state()).append(" available ").append(s.available()).append('\n');
        String report = d.report();
        out.append(report.length() > 4000 ? "..." + report.substring(report.length() - 4000) : report);
        out.append("-- a\n").append(a.mib().toNstatString()).append("-- b\n").append(b.mib().toNstatString());
        Thread.getAllStackTraces().forEach((t, st) -> {
            if (t.getName().startsWith("jnet") || t.getName().contains("ForkJoin") || t.getName().startsWith("Thread-")) {
                out.append("thread ").append(t.getName()).append(' ').append(t.getState()).append('\n');
                for (int k = 0; k < Math.min(12, st.length); k++) out.append("    at ").append(st[k]).append('\n');
            }
        });
        return out.toString();
    }
}
