package io.jnet.link;

import io.jnet.socket.UdpSocket;
import io.jnet.stack.NetNamespace;
import io.jnet.topology.Topology;
import java.net.InetSocketAddress;
import org.junit.jupiter.api.Test;

/**
 * A veth pair hands its frames to the peer in the order they were transmitted, whichever threads transmit them
 * (Linux's veth feeds one receive queue that one CPU processes in order). A frame sent from receive context waits
 * in its thread's backlog until the current work is done; a frame another thread sends meanwhile must not
 * overtake it.
 */
class VethOrderTest {
    private static final InetSocketAddress TO = new InetSocketAddress("10.0.0.2", 7000);

    @Test
    void aFrameWaitingInOneThreadsBacklogIsNotOvertakenByALaterOneFromAnotherThread() throws Exception {
        try (NetNamespace a = NetNamespace.create("vorder-a"); NetNamespace b = NetNamespace.create("vorder-b")) {
            Topology.link(a, b, "veth0", "10.0.0.1/24", "10.0.0.2/24");
            try (UdpSocket tx = UdpSocket.open(a); UdpSocket rx = UdpSocket.open(b)) {
                rx.bind(TO);
                FrameOrder.assertNotOvertaken(tx, rx, TO);
            }
        }
    }
}
