package io.jnet.link;

import io.jnet.socket.UdpSocket;
import io.jnet.stack.NetNamespace;
import java.net.InetSocketAddress;
import org.junit.jupiter.api.Test;

/**
 * The loopback device hands its frames back in the order they were transmitted, whichever threads transmit them.
 * A frame sent from receive context (TCP answering an ACK) waits in its thread's backlog until the current work is
 * done; a frame of the same flow another thread sends meanwhile (the application writing) must not overtake it.
 */
class LoopbackOrderTest {
    private static final InetSocketAddress TO = new InetSocketAddress("127.0.0.1", 7000);

    @Test
    void aFrameWaitingInOneThreadsBacklogIsNotOvertakenByALaterOneFromAnotherThread() throws Exception {
        try (NetNamespace ns = NetNamespace.create("loorder");
                UdpSocket tx = UdpSocket.open(ns);
                UdpSocket rx = UdpSocket.open(ns)) {
            rx.bind(TO);
            FrameOrder.assertNotOvertaken(tx, rx, TO);
        }
    }
}
