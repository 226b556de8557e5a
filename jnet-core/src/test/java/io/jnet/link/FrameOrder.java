package io.jnet.link;

import static org.assertj.core.api.Assertions.assertThat;

import io.jnet.socket.UdpSocket;
import io.jnet.stack.SoftIrq;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;

/**
 * The order check the device tests share: a datagram sent from receive context waits in its thread's backlog until
 * the current work is done; one that another thread sends meanwhile must not overtake it.
 */
final class FrameOrder {
    private FrameOrder() {}

    /**
     * Sends datagram 0 from {@code tx} to {@code to} (resolving the neighbour) and checks {@code rx}, bound to
     * {@code to}, gets it; then sends datagram 1 from receive context and datagram 2 from another thread while that
     * work is still running, and checks {@code rx} gets 1 before 2.
     */
    static void assertNotOvertaken(UdpSocket tx, UdpSocket rx, InetSocketAddress to) throws IOException {
        send(tx, 0, to);
        assertThat(next(rx)).isZero();

        SoftIrq.runBottomHalf(() -> {
            send(tx, 1, to); // from receive context: processed once this work returns
            Thread other = Thread.ofPlatform().start(() -> send(tx, 2, to));
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

    private static void send(UdpSocket s, int value, InetSocketAddress to) {
        try {
            s.send(new byte[] {(byte) value}, 0, 1, to);
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
