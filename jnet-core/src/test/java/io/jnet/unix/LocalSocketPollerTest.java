package io.jnet.unix;

import static org.assertj.core.api.Assertions.assertThat;

import io.jnet.socket.Events;
import io.jnet.socket.LocalServerSocket;
import io.jnet.socket.LocalSocket;
import io.jnet.socket.Poller;
import io.jnet.socket.Poller.Ready;
import io.jnet.socket.SocketOption;
import io.jnet.stack.NetNamespace;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** {@link Poller} over local stream sockets, level- and edge-triggered, with unix_poll's bits. */
@Timeout(30)
class LocalSocketPollerTest {
    private static final Duration NOW = Duration.ZERO;
    private static final Duration LONG = Duration.ofSeconds(10);

    private NetNamespace ns;
    private Poller poller;
    private final List<AutoCloseable> closeables = new ArrayList<>();

    @BeforeEach
    void setUp() {
        ns = NetNamespace.create("unix-poll");
        poller = Poller.open();
    }

    @AfterEach
    void tearDown() throws Exception {
        poller.close();
        for (AutoCloseable c : closeables) c.close();
        assertThat(ns.internalErrors()).as("%s", ns.lastInternalError()).isZero();
        ns.close();
    }

    private LocalSocket[] pair() {
        LocalSocket.Pair p = LocalSocket.pair(ns);
        closeables.add(p.first());
        closeables.add(p.second());
        return new LocalSocket[] {p.first(), p.second()};
    }

    private List<Ready> poll(Duration timeout) {
        List<Ready> out = new ArrayList<>();
        int n = poller.poll(out, timeout);
        assertThat(n).isEqualTo(out.size());
        return out;
    }

    private static int events(List<Ready> r) {
        assertThat(r).hasSize(1);
        return r.getFirst().events();
    }

    @Test
    void levelTriggeredReportsPollinWhileDataIsUnread() throws Exception {
        LocalSocket[] p = pair();
        poller.register(p[1], Events.POLLIN, "rx");
        assertThat(poll(NOW)).isEmpty();
        p[0].write(new byte[] {1, 2}, 0, 2);
        List<Ready> r = poll(LONG);
        assertThat(events(r)).isEqualTo(Events.POLLIN);
        assertThat(r.getFirst().attachment()).isEqualTo("rx");
        assertThat(events(poll(NOW))).as("still unread").isEqualTo(Events.POLLIN);
        p[1].read(new byte[1], 0, 1);
        assertThat(events(poll(NOW))).as("one byte left").isEqualTo(Events.POLLIN);
        p[1].read(new byte[1], 0, 1);
        assertThat(poll(NOW)).isEmpty();
    }

    @Test
    void edgeTriggeredReportsEachArrivalOnce() throws Exception {
        LocalSocket[] p = pair();
        poller.register(p[1], Events.POLLIN | Events.EPOLLET);
        assertThat(poll(NOW)).isEmpty();
        p[0].write(new byte[] {1}, 0, 1);
        assertThat(events(poll(LONG))).isEqualTo(Events.POLLIN);
        assertThat(poll(NOW)).as("not again while nothing new came").isEmpty();
        p[0].write(new byte[] {2}, 0, 1);
        assertThat(events(poll(LONG))).as("new data: a new edge, though the first byte is unread").isEqualTo(Events.POLLIN);
        assertThat(poll(NOW)).isEmpty();
    }

    @Test
    void pollWakesWhenDataArrivesFromAnotherThread() throws Exception {
        LocalSocket[] p = pair();
        poller.register(p[1], Events.POLLIN | Events.EPOLLET);
        CompletableFuture<List<Ready>> waiting = CompletableFuture.supplyAsync(() -> poll(LONG));
        Thread.sleep(50);
        p[0].write(new byte[] {1}, 0, 1);
        assertThat(events(waiting.get(5, TimeUnit.SECONDS))).isEqualTo(Events.POLLIN);
    }

    @Test
    void polloutFollowsAQuarterOfTheSendBufferBothWays() throws Exception {
        LocalSocket[] p = pair();
        p[0].setBlocking(false);
        p[0].setOption(SocketOption.SO_SNDBUF, 4096);
        int limit = p[0].getOption(SocketOption.SO_SNDBUF);
        poller.register(p[0], Events.POLLOUT | Events.EPOLLET);
        assertThat(events(poll(NOW))).isEqualTo(Events.POLLOUT);
        assertThat(p[0].write(new byte[limit * 2], 0, limit * 2)).isEqualTo(limit);
        assertThat(poll(NOW)).isEmpty();
        assertThat(p[0].readyEvents() & Events.POLLOUT).isZero();
        byte[] b = new byte[limit];
        assertThat(p[1].read(b, 0, limit / 2)).isEqualTo(limit / 2);
        assertThat(poll(NOW)).as("half unread: not writable (unix_writable)").isEmpty();
        assertThat(p[1].read(b, 0, limit / 4)).isEqualTo(limit / 4);
        assertThat(events(poll(LONG))).as("a quarter unread: the edge").isEqualTo(Events.POLLOUT);
        assertThat(poll(NOW)).isEmpty();
    }

    @Test
    void peerCloseAndShutdownRaiseHupAndRdhup() throws Exception {
        LocalSocket[] p = pair();
        poller.register(p[0], Events.POLLIN | Events.POLLRDHUP | Events.EPOLLET);
        p[1].shutdownOutput();
        assertThat(events(poll(LONG))).isEqualTo(Events.POLLIN | Events.POLLRDHUP);
        p[1].close();
        assertThat(events(poll(LONG))).as("both directions shut: POLLHUP, always reported")
                .isEqualTo(Events.POLLIN | Events.POLLRDHUP | Events.POLLHUP);

        LocalSocket[] q = pair();
        q[1].write(new byte[1], 0, 1); // q[0] never reads it
        poller.register(q[1], Events.POLLIN);
        q[0].close();
        assertThat(events(poll(LONG)) & (Events.POLLERR | Events.POLLHUP)).as("ECONNRESET pending")
                .isEqualTo(Events.POLLERR | Events.POLLHUP);
    }

    @Test
    void aListenerIsReadableWithAConnectionQueued() throws Exception {
        LocalServerSocket l = LocalServerSocket.open(ns);
        closeables.add(l);
        l.bind("srv");
        assertThat(l.readyEvents()).as("unconnected: POLLOUT|POLLHUP, as Linux").isEqualTo(Events.POLLOUT | Events.POLLHUP);
        l.listen(4);
        poller.register(l, Events.POLLIN | Events.EPOLLET);
        assertThat(poll(NOW)).isEmpty();
        LocalSocket c = LocalSocket.open(ns);
        closeables.add(c);
        assertThat(c.readyEvents()).as("a new stream socket").isEqualTo(Events.POLLOUT | Events.POLLHUP);
        c.connect("srv");
        assertThat(c.readyEvents()).isEqualTo(Events.POLLOUT);
        assertThat(events(poll(LONG))).isEqualTo(Events.POLLIN);
        closeables.add(l.accept());
        assertThat(l.readyEvents()).isZero();
    }

    @Test
    void aClosedSocketLeavesThePoller() {
        LocalSocket[] p = pair();
        poller.register(p[0], Events.POLLIN);
        p[0].close();
        assertThat(poll(NOW)).isEmpty();
        assertThat(poller.isRegistered(p[0])).isFalse();
    }
}
