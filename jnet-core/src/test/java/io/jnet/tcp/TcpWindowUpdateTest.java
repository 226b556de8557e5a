package io.jnet.tcp;

import static org.assertj.core.api.Assertions.assertThat;

import io.jnet.socket.TcpServerSocket;
import io.jnet.socket.TcpSocket;
import io.jnet.stack.MibCounter;
import io.jnet.stack.NetNamespace;
import io.jnet.stack.VirtualClock;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.util.Arrays;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * Window updates sent by the reader (Linux tcp_cleanup_rbuf) on virtual time, over loopback where the
 * MSS (65483 bytes) is half the default receive buffer (tcp_rmem[1], 131072 bytes).
 */
class TcpWindowUpdateTest {
    /** The minimum RTO and first persist timeout (ms): no transaction may need a timer this long. */
    private static final long RTO_MIN_MS = 200;

    /**
     * netperf TCP_RR with -r 1048576,1048576 on one loopback namespace: each transaction (the whole
     * request read by the server, the whole response read by the client) completes on the data and ACKs
     * alone. The first 65483-byte segment of each direction leaves 53 bytes of the first 64 KiB window; the
     * reader that drains it must advertise the reopened window at once. When it did not, each direction
     * waited for the sender's persist timer (200 ms), and the first transaction took 402 virtual ms.
     */
    @Test
    void mebibyteRequestsAndResponsesOverLoopbackNeedNoTimer() throws Exception {
        VirtualClock clock = new VirtualClock();
        try (NetNamespace ns = NetNamespace.create("rr", clock)) {
            TcpServerSocket srv = TcpServerSocket.open(ns);
            srv.bind(new InetSocketAddress("127.0.0.1", 12865));
            srv.listen(4);
            TcpSocket client = TcpSocket.open(ns);
            VirtualNet.startConnect(client, new InetSocketAddress("127.0.0.1", 12865));
            assertThat(client.finishConnect()).as("loopback handshake completes synchronously").isTrue();
            TcpSocket server = srv.accept();
            server.setBlocking(false);
            byte[] request = new byte[1 << 20];
            byte[] response = new byte[1 << 20];
            Random random = new Random(8);
        for (int i = 0; i < 3; i++) {
                random.nextBytes(request);
                random.nextBytes(response);
                long ms = transaction(clock, client, server, request, response);
                assertThat(ms).as("virtual ms for transaction %d", i).isLessThan(RTO_MIN_MS);
            }
            assertThat(ns.mib().get(MibCounter.TcpExtTCPWinProbe)).as("window probes").isZero();
            assertThat(ns.mib().get(MibCounter.TcpRetransSegs)).as("retransmissions").isZero();
            assertThat(ns.internalErrors()).as("internal errors: %s", ns.lastInternalError()).isZero();
        }
    }

    /**
     * One request/response exchange with non-blocking calls in one thread (loopback delivers in the
     * sending thread): every call that can make progress is made; only when none can does virtual time
     * advance, 1 ms at a time. Returns the virtual milliseconds it took; fails after 10 s.
     */
    static long transaction(VirtualClock clock, TcpSocket client, TcpSocket server, byte[] request, byte[] response)
            throws IOException {
        byte[] gotRequest = new byte[request.length];
        byte[] gotResponse = new byte[response.length];
        int reqSent = 0, reqRead = 0, respSent = 0, respRead = 0;
        long ms = 0;
        while (respRead < response.length) {
            int before = reqSent + reqRead + respSent + respRead;
            if (reqSent < request.length) reqSent += client.write(request, reqSent, request.length - reqSent);
            if (reqRead < request.length) reqRead += Math.max(0, server.read(gotRequest, reqRead, request.length - reqRead));
            if (reqRead == request.length && respSent < response.length) {
                respSent += server.write(response, respSent, response.length - respSent);
            }
            if (respRead < response.length) respRead += Math.max(0, client.read(gotResponse, respRead, response.length - respRead));
            if (reqSent + reqRead + respSent + respRead == before) {
                assertThat(ms).as("transaction stuck: request %d sent, %d read; response %d sent, %d read",
                        reqSent, reqRead, respSent, respRead).isLessThan(10_000);
                clock.advanceMillis(1);
                ms++;
            }
        }
        assertThat(Arrays.equals(gotRequest, request)).as("request arrives intact").isTrue();
        assertThat(Arrays.equals(gotResponse, response)).as("response arrives intact").isTrue();
        return ms;
    }
}
