package io.jnet.link;

import static org.assertj.core.api.Assertions.assertThat;

import io.jnet.socket.UdpSocket;
import io.jnet.stack.NetNamespace;
import io.jnet.stack.SoftIrq;
import java.io.IOException;
import java.io.UncheckedIOException;
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
        try (NetNamespace ns = NetNamespace.create("loorder")) {
            try (UdpSocket tx = UdpSocket.open(ns); UdpSocket rx = UdpSocket.open(ns)) {
                rx.bind(TO);
                send(tx, 0);
                assertThat(next(rx)).isZero();

                SoftIrq.runBottomHalf(() -> {
                    send(tx, 1); // from receive context: processed once this work returns
                    Thread other = Thread.ofPlatform().start(() -> send(tx, 2));
                    try {
                        other.join(10_000);
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                    }
                    assertThat(other.isAlive()).as("the second sender returned").isFalse();
                });

                assertThat(next(rx)).as("first datagram received").isEqualTo(1);
                assertThat(next(rx)).as("second datagram received").isEqualTo(2);
            }
        }
    }

    private static void send(UdpSocket s, int value) {
        try {
            s.send(new byte[] {(byte) value}, 0, 1, TO);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static int next(UdpSocket s) throws IOException {
        byte[] b = new byte[1];
        assertThat(s.receive(b, 0, 1)).isNotNull();
        return b[0];
    }
}
