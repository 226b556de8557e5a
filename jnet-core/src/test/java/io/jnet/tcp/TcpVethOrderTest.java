package io.jnet.tcp;

import io.jnet.stack.MibCounter;
import io.jnet.stack.NetNamespace;
import io.jnet.testing.TcpTransfers;
import io.jnet.testing.TcpTransfers.Connection;
import io.jnet.topology.Topology;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import org.junit.jupiter.api.Test;

/**
 * A veth pair delivers the frames of one connection in the order they were sent, whichever threads send them
 * (Linux's veth feeds one receive queue per device in transmit order). Two-way traffic, large requests one way
 * and small answers the other, sends data both from the writing thread and from the thread that processes the
 * peer's ACKs; on a lossless link nothing may arrive out of order and nothing may be retransmitted.
 */
class TcpVethOrderTest {
    private static final int REQUEST = 100_000;
    private static final int ANSWER = 256;
    private static final int REQUESTS = 3200;
    private static final int WRITERS = 16;

    @Test
    void requestsAndAnswersOnALosslessVethAreNeitherReorderedNorRetransmitted() throws Exception {
        ExecutorService pool = Executors.newCachedThreadPool();
        try (pool; NetNamespace a = NetNamespace.create("order-a"); NetNamespace b = NetNamespace.create("order-b")) {
            Topology.link(a, b, "veth0", "10.0.0.1/24", "10.0.0.2/24");
            try (Connection conn = TcpTransfers.connect(a, b, "10.0.0.2")) {
                TcpTransfers.requestsAndAnswers(conn, pool, REQUESTS, REQUEST, ANSWER, WRITERS);
            }
            for (NetNamespace ns : new NetNamespace[] {a, b}) {
                TcpTransfers.assertZero(ns, MibCounter.TcpExtPAWSEstab, MibCounter.TcpExtTCPOFOQueue,
                        MibCounter.TcpExtTCPDSACKOldSent, MibCounter.TcpRetransSegs);
            }
        }
    }
}
