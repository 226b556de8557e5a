package io.jnet.tcp;

import io.jnet.stack.MibCounter;
import io.jnet.stack.NetNamespace;
import io.jnet.testing.TcpTransfers;
import io.jnet.testing.TcpTransfers.Connection;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import org.junit.jupiter.api.Test;

/**
 * Loopback delivers the segments of one connection in the order they were sent, whichever threads send them:
 * the writing threads send data while the thread that processes the peer's ACKs sends what those ACKs let out
 * (from receive context, so it waits until that thread's current frame is done). On lossless loopback nothing
 * may arrive out of order and nothing may be retransmitted. Without the ordered receive queue 3 of 5 runs caught
 * an overtaking (TcpExtTCPOFOQueue 5, TcpExtTCPDSACKRecv 1, TcpRetransSegs 1; or TcpExtPAWSEstab 2, an ACK
 * overtaken); LoopbackOrderTest shows the same every time.
 */
class TcpLoopbackOrderTest {
    private static final int CHUNK = 65536;
    private static final int CHUNKS = 4096;
    private static final int WRITERS = 4;

    private static final int REQUEST = 100_000;
    private static final int ANSWER = 256;
    private static final int REQUESTS = 3200;
    private static final int REQUEST_WRITERS = 16;

    /** Large requests one way and small answers the other, each side writing from several threads. */
    @Test
    void requestsAndAnswersOverLoopbackAreNeitherReorderedNorRetransmitted() throws Exception {
        ExecutorService pool = Executors.newCachedThreadPool();
        try (pool; NetNamespace ns = NetNamespace.create("lo-order2")) {
            try (Connection conn = TcpTransfers.connect(ns, ns, "127.0.0.1")) {
                TcpTransfers.requestsAndAnswers(conn, pool, REQUESTS, REQUEST, ANSWER, REQUEST_WRITERS);
            }
            assertInOrder(ns);
        }
    }

    /** {@link #WRITERS} threads write {@link #CHUNKS} chunks of {@link #CHUNK} bytes; one reads them. */
    @Test
    void aBulkTransferOverLoopbackIsNeitherReorderedNorRetransmitted() throws Exception {
        ExecutorService pool = Executors.newCachedThreadPool();
        try (pool; NetNamespace ns = NetNamespace.create("lo-order")) {
            try (Connection conn = TcpTransfers.connect(ns, ns, "127.0.0.1")) {
                TcpTransfers.parallelWrites(conn, pool, CHUNKS, CHUNK, WRITERS);
            }
            assertInOrder(ns);
        }
    }

    /** Nothing arrived out of order (data or ACKs) and nothing was retransmitted, spuriously or not. */
    private static void assertInOrder(NetNamespace ns) {
        TcpTransfers.assertZero(ns, MibCounter.TcpExtPAWSEstab, MibCounter.TcpExtTCPOFOQueue, MibCounter.TcpExtTCPSACKReorder,
                MibCounter.TcpExtTCPDSACKRecv, MibCounter.TcpRetransSegs);
    }
}
