package io.jnet.rds;

import static org.assertj.core.api.Assertions.assertThat;

import io.jnet.socket.Errno;
import io.jnet.socket.ErrnoException;
import io.jnet.socket.RdsSocket;
import io.jnet.socket.ReadinessListener;
import io.jnet.socket.SocketOption;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** The checker of {@link RdsTraffic} finds what it must: lost, duplicated, reordered and damaged messages. */
class RdsTrafficTest {
    static final InetSocketAddress FROM = new InetSocketAddress("10.0.0.1", 4000);
    static final InetSocketAddress TO = new InetSocketAddress("10.0.0.2", 4001);

    /** A socket whose sends are recorded and whose receives are fed by the test. */
    static final class FakeSocket implements RdsSocket {
        final InetSocketAddress local;
        final List<byte[]> sent = new ArrayList<>();
        final LinkedBlockingQueue<Object[]> in = new LinkedBlockingQueue<>();
        volatile boolean closed;

        FakeSocket(InetSocketAddress local) { this.local = local; }

        @Override public void bind(InetSocketAddress l) { }
        @Override public void connect(InetSocketAddress remote) { }

        @Override
        public void send(byte[] b, int off, int len, InetSocketAddress to) {
            byte[] m = new byte[len];
            System.arraycopy(b, off, m, 0, len);
            synchronized (sent) {
                sent.add(m);
            }
        }

        @Override public void send(ByteBuffer src, InetSocketAddress to) { throw new UnsupportedOperationException(); }

        @Override
        public Received receive(byte[] b, int off, int len) throws IOException {
            Object[] m;
            try {
                m = in.poll(50, TimeUnit.MILLISECONDS);
            } catch (InterruptedException e) {
                throw new IOException(e);
            }
            if (m == null) throw new ErrnoException(Errno.EAGAIN);
            byte[] d = (byte[]) m[0];
            int n = Math.min(len, d.length);
            System.arraycopy(d, 0, b, off, n);
            return new Received(n, d.length, (InetSocketAddress) m[1], 0);
        }

        @Override public Received receive(ByteBuffer dst) { throw new UnsupportedOperationException(); }
        @Override public <T> void setOption(SocketOption<T> option, T value) { }
        @Override public <T> T getOption(SocketOption<T> option) { return null; }
        @Override public InetSocketAddress localAddress() { return local; }
        @Override public void setBlocking(boolean blocking) { }
        @Override public boolean isBlocking() { return true; }
        @Override public int readyEvents() { return 0; }
        @Override public void addReadinessListener(ReadinessListener listener) { }
        @Override public void removeReadinessListener(ReadinessListener listener) { }
        @Override public void close() { closed = true; }
        @Override public boolean isClosed() { return closed; }
    }

    /** Sends {@code n} messages from a fake sender and returns them in order. */
    private static List<byte[]> messages(RdsTraffic t, int n) throws Exception {
        FakeSocket s = new FakeSocket(FROM);
        t.sendNext(s, List.of(TO), n, new byte[RdsSocket.MAX_MESSAGE_SIZE]);
        return s.sent;
    }

    private static RdsTraffic.StreamAccount deliver(RdsTraffic t, List<byte[]> ms) throws Exception {
        FakeSocket r = new FakeSocket(TO);
        t.startReceiver(r, false);
        for (byte[] m : ms) r.in.add(new Object[] {m, FROM});
        RdsFaultNet.await(() -> r.in.isEmpty(), 5000);
        Thread.sleep(100);
        return t.account(new RdsTraffic.Stream(FROM, TO));
    }

    @Test
    void aCleanStreamIsAccepted() throws Exception {
        try (RdsTraffic t = new RdsTraffic(1, RdsTraffic.mixed(RdsSocket.MAX_MESSAGE_SIZE))) {
            List<byte[]> ms = messages(t, 600);
            assertThat(ms).anySatisfy(m -> assertThat(m.length).isLessThan(RdsTraffic.HEADER));
            assertThat(ms).anySatisfy(m -> assertThat(m.length).isEqualTo(RdsSocket.MAX_MESSAGE_SIZE));
            RdsTraffic.StreamAccount a = deliver(t, ms);
            assertThat(a.clean()).as(a.toString()).isTrue();
            assertThat(a.accepted()).isEqualTo(600).isEqualTo(a.sent());
            assertThat(t.awaitDelivered(Duration.ofSeconds(1))).isTrue();
        }
    }

    @Test
    void lossDuplicationReorderingAndDamageAreCounted() throws Exception {
        try (RdsTraffic t = new RdsTraffic(2, RdsTraffic.fixed(100))) {
            List<byte[]> ms = new ArrayList<>(messages(t, 10));
            byte[] bad = ms.get(8).clone();
            bad[50] ^= 1;
            // 1 2 4 3 5 5 7 8 [9 damaged] 10: 3 late, 5 twice, 6 lost, 9 damaged (and so lost)
            List<byte[]> wire = List.of(ms.get(0), ms.get(1), ms.get(3), ms.get(2), ms.get(4), ms.get(4), ms.get(6),
                    ms.get(7), bad, ms.get(9));
            RdsTraffic.StreamAccount a = deliver(t, wire);
            assertThat(a.reordered()).isEqualTo(1);
            assertThat(a.duplicated()).isEqualTo(1);
            assertThat(a.corrupted()).isEqualTo(1);
            assertThat(a.lost()).as(a.toString()).isEqualTo(2); // 6 and 9
            assertThat(a.lastSeq()).isEqualTo(10);
            assertThat(a.clean()).isFalse();
        }
    }

    @Test
    void aShortMessageOutOfPlaceIsCaught() throws Exception {
        try (RdsTraffic t = new RdsTraffic(3, RdsTraffic.fixed(5))) {
            List<byte[]> ms = messages(t, 3);
            RdsTraffic.StreamAccount a = deliver(t, List.of(ms.get(0), ms.get(2)));
            assertThat(a.accepted()).isEqualTo(1);
            assertThat(a.corrupted()).isEqualTo(1);
        }
    }

    @Test
    void echoModeRecordsGapsInsteadOfLoss() throws Exception {
        try (RdsTraffic t = new RdsTraffic(4, RdsTraffic.fixed(64))) {
            FakeSocket me = new FakeSocket(FROM);
            t.sendNext(me, List.of(TO), 10, new byte[RdsSocket.MAX_MESSAGE_SIZE]);
            t.startReceiver(me, true);
            for (int i : new int[] {0, 1, 2, 6, 7, 8, 9}) me.in.add(new Object[] {me.sent.get(i), TO});
            RdsFaultNet.await(() -> me.in.isEmpty(), 5000);
            Thread.sleep(100);
            RdsTraffic.StreamAccount a = t.account(new RdsTraffic.Stream(FROM, TO));
            assertThat(a.clean()).isTrue();
            assertThat(a.gaps()).singleElement().satisfies(g -> assertThat(g).containsExactly(4, 6));
            assertThat(a.lastSeq()).isEqualTo(10);
        }
    }
}
