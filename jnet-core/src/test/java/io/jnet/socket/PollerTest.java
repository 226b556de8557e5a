package io.jnet.socket;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.jnet.link.VethPair;
import io.jnet.socket.Poller.Ready;
import io.jnet.stack.NetNamespace;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(30)
class PollerTest {
    private static final Duration NOW = Duration.ZERO;
    private static final Duration LONG = Duration.ofSeconds(10);

    private NetNamespace ns;
    private Poller poller;
    private final List<AutoCloseable> closeables = new ArrayList<>();

    @BeforeEach
    void setUp() {
        ns = NetNamespace.create("poller");
        poller = openPoller(ns);
    }

    /** The poller every case uses; {@link PollerBusyPollTest} runs them all again with busy polling on. */
    Poller openPoller(NetNamespace ns) {
        return Poller.open();
    }

    @AfterEach
    void tearDown() throws Exception {
        poller.close();
        for (AutoCloseable c : closeables) c.close();
        assertThat(ns.internalErrors()).as("%s", ns.lastInternalError()).isZero();
        ns.close();
    }

    private <T extends AutoCloseable> T track(T c) {
        closeables.add(c);
        return c;
    }

    private UdpSocket udp() throws Exception {
        UdpSocket s = track(UdpSocket.open(ns));
        s.bind(new InetSocketAddress("127.0.0.1", 0));
        return s;
    }

    private static void send(UdpSocket from, UdpSocket to) throws Exception {
        from.send(new byte[] {1, 2, 3}, 0, 3, to.localAddress());
    }

    private List<Ready> poll(Duration timeout) {
        List<Ready> out = new ArrayList<>();
        int n = poller.poll(out, timeout);
        assertThat(n).isEqualTo(out.size());
        return out;
    }

    private static UdpSocket.Datagram drain(UdpSocket s) throws Exception {
        s.setBlocking(false);
        return s.receive(new byte[100], 0, 100);
    }

    // ---- UDP -------------------------------------------------------------------------------------

    @Test
    void levelTriggeredReportsWhileADatagramIsQueued() throws Exception {
        UdpSocket rx = udp();
        UdpSocket tx = udp();
        poller.register(rx, Events.POLLIN, "rx");
        assertThat(poll(NOW)).isEmpty();
        send(tx, rx);
        List<Ready> r = poll(LONG);
        assertThat(r).containsExactly(new Ready(rx, Events.POLLIN, "rx"));
        assertThat(poll(NOW)).containsExactly(new Ready(rx, Events.POLLIN, "rx")); // still ready: reported again
        assertThat(drain(rx)).isNotNull();
        assertThat(poll(NOW)).isEmpty();
    }

    @Test
    void edgeTriggeredReportsOncePerArrival() throws Exception {
        UdpSocket rx = udp();
        UdpSocket tx = udp();
        poller.register(rx, Events.POLLIN | Events.EPOLLET);
        send(tx, rx);
        assertThat(poll(LONG)).extracting(Ready::socket, Ready::events).containsExactly(org.assertj.core.groups.Tuple.tuple(rx, Events.POLLIN));
        assertThat(poll(NOW)).isEmpty(); // still readable, but no new edge
        send(tx, rx);
        assertThat(poll(NOW)).extracting(Ready::socket).containsExactly(rx);
        assertThat(poll(NOW)).isEmpty();
        // reading does not create an edge; modify re-arms (EPOLL_CTL_MOD)
        assertThat(drain(rx)).isNotNull();
        assertThat(poll(NOW)).isEmpty();
        poller.modify(rx, Events.POLLIN | Events.EPOLLET);
        assertThat(poll(NOW)).extracting(Ready::socket).containsExactly(rx); // one datagram still queued
        assertThat(drain(rx)).isNotNull();
        poller.modify(rx, Events.POLLIN | Events.EPOLLET);
        assertThat(poll(NOW)).isEmpty();
    }

    @Test
    void oneShotReportsOnceUntilModifiedAgain() throws Exception {
        UdpSocket rx = udp();
        UdpSocket tx = udp();
        poller.register(rx, Events.POLLIN | Events.EPOLLONESHOT, "rx");
        assertThat(poll(NOW)).isEmpty();
        send(tx, rx);
        assertThat(poll(LONG)).extracting(Ready::socket, Ready::events, Ready::attachment)
                .containsExactly(org.assertj.core.groups.Tuple.tuple(rx, Events.POLLIN, "rx"));
        // disarmed: neither the datagram still queued (level) nor a new one (edge) reports it again
        assertThat(poll(NOW)).isEmpty();
        send(tx, rx);
        assertThat(poll(NOW)).isEmpty();
        // EPOLL_CTL_MOD arms it again: reported at once, as it is ready, and once only
        poller.modify(rx, Events.POLLIN | Events.EPOLLONESHOT);
        assertThat(poll(NOW)).extracting(Ready::socket).containsExactly(rx);
        assertThat(poll(NOW)).isEmpty();
        // without EPOLLONESHOT the registration is level-triggered again
        poller.modify(rx, Events.POLLIN);
        assertThat(poll(NOW)).extracting(Ready::socket).containsExactly(rx);
        assertThat(poll(NOW)).extracting(Ready::socket).containsExactly(rx);
    }

    @Test
    void disarmedOneShotReportsNotEvenAnError() throws Exception {
        UdpSocket s = track(UdpSocket.open(ns));
        poller.register(s, Events.POLLOUT | Events.EPOLLONESHOT | Events.EPOLLET);
        assertThat(poll(NOW)).extracting(Ready::events).containsExactly(Events.POLLOUT);
        s.connect(new InetSocketAddress("127.0.0.1", 9)); // nobody there: ICMP port unreachable comes back
        s.send(new byte[1], 0, 1, null);
        assertThat(poll(Duration.ofMillis(200))).as("EPOLLERR is not reported to a disarmed item either").isEmpty();
        poller.modify(s, Events.POLLIN | Events.EPOLLONESHOT);
        assertThat(poll(NOW)).extracting(Ready::events).containsExactly(Events.POLLERR);
        assertThat(poll(NOW)).isEmpty();
    }

    @Test
    void udpIsAlwaysWritableAndErrorsAreAlwaysReported() throws Exception {
        UdpSocket s = track(UdpSocket.open(ns));
        poller.register(s, Events.POLLOUT | Events.POLLIN);
        assertThat(poll(NOW)).extracting(Ready::events).containsExactly(Events.POLLOUT);
        poller.modify(s, Events.POLLIN);
        assertThat(poll(NOW)).isEmpty();
        s.connect(new InetSocketAddress("127.0.0.1", 9)); // nobody there: ICMP port unreachable comes back
        s.send(new byte[1], 0, 1, null);
        assertThat(poll(LONG)).extracting(Ready::events).containsExactly(Events.POLLERR);
        assertThatThrownBy(() -> s.receive(new byte[1], 0, 1))
                .isInstanceOfSatisfying(ErrnoException.class, e -> assertThat(e.errno()).isEqualTo(Errno.ECONNREFUSED));
        assertThat(poll(NOW)).isEmpty();
    }

    @Test
    void maxEventsLimitsOneCallAndTheRestComeNext() throws Exception {
        UdpSocket tx = udp();
        List<UdpSocket> rx = List.of(udp(), udp(), udp());
        for (UdpSocket s : rx) poller.register(s, Events.POLLIN);
        for (UdpSocket s : rx) send(tx, s);
        List<Ready> first = new ArrayList<>();
        assertThat(poller.poll(first, 2, LONG)).isEqualTo(2);
        List<Ready> second = new ArrayList<>();
        assertThat(poller.poll(second, 2, LONG)).isEqualTo(2);
        List<PollableSocket> seen = new ArrayList<>();
        first.forEach(r -> seen.add(r.socket()));
        second.forEach(r -> seen.add(r.socket()));
        assertThat(seen).containsAll(rx); // the third socket was not starved by the level-triggered two
    }

    @Test
    void blockedPollIsWokenByADatagramFromAnotherThread() throws Exception {
        UdpSocket rx = udp();
        UdpSocket tx = udp();
        poller.register(rx, Events.POLLIN);
        CompletableFuture<List<Ready>> f = CompletableFuture.supplyAsync(() -> poll(null));
        Thread.sleep(50);
        send(tx, rx);
        assertThat(f.get(10, TimeUnit.SECONDS)).extracting(Ready::socket).containsExactly(rx);
    }

    @Test
    void edgeTriggeredDrainLoopLosesNoDatagramWithConcurrentSenders() throws Exception {
        UdpSocket rx = udp();
        rx.setBlocking(false);
        int senders = 3, perSender = 2000, total = senders * perSender;
        poller.register(rx, Events.POLLIN | Events.EPOLLET);
        List<CompletableFuture<Void>> sending = new ArrayList<>();
        for (int t = 0; t < senders; t++) {
            UdpSocket tx = udp();
            sending.add(CompletableFuture.runAsync(() -> {
                try {
                    for (int i = 0; i < perSender; i++) send(tx, rx);
                } catch (Exception e) {
                    throw new RuntimeException(e);
                }
            }));
        }
        long received = 0;
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        byte[] buf = new byte[16];
        while (received + ns.mib().get("UdpRcvbufErrors") < total && System.nanoTime() < deadline) {
            List<Ready> ready = poll(Duration.ofMillis(200));
            if (ready.isEmpty()) continue;
            while (rx.receive(buf, 0, buf.length) != null) received++; // drain: the edge will not repeat
        }
        CompletableFuture.allOf(sending.toArray(new CompletableFuture[0])).get(10, TimeUnit.SECONDS);
        assertThat(received + ns.mib().get("UdpRcvbufErrors")).isEqualTo(total);
        assertThat(received).isPositive();
    }

    // ---- TCP -------------------------------------------------------------------------------------

    private TcpServerSocket listener() throws Exception {
        TcpServerSocket srv = track(TcpServerSocket.open(ns));
        srv.bind(new InetSocketAddress("127.0.0.1", 0));
        srv.listen(16);
        return srv;
    }

    @Test
    void listenerIsReadableWhenAConnectionIsWaitingToBeAccepted() throws Exception {
        TcpServerSocket srv = listener();
        poller.register(srv, Events.POLLIN);
        assertThat(poll(NOW)).isEmpty();
        TcpSocket c = track(TcpSocket.open(ns));
        c.connect(srv.localAddress());
        assertThat(poll(LONG)).containsExactly(new Ready(srv, Events.POLLIN, null));
        TcpSocket accepted = track(srv.accept());
        assertThat(accepted).isNotNull();
        assertThat(poll(NOW)).isEmpty();
    }

    @Test
    void nonBlockingConnectCompletesWithPollout() throws Exception {
        TcpServerSocket srv = listener();
        TcpSocket c = track(TcpSocket.open(ns));
        c.setBlocking(false);
        assertThatThrownBy(() -> c.connect(srv.localAddress()))
                .isInstanceOfSatisfying(ErrnoException.class, e -> assertThat(e.errno()).isEqualTo(Errno.EINPROGRESS));
        poller.register(c, Events.POLLOUT);
        List<Ready> r = poll(LONG);
        assertThat(r).hasSize(1);
        assertThat(r.get(0).events() & Events.POLLOUT).isNotZero();
        assertThat(c.finishConnect()).isTrue();
    }

    @Test
    void nonBlockingConnectToAClosedPortReportsAnError() throws Exception {
        TcpSocket c = track(TcpSocket.open(ns));
        c.setBlocking(false);
        assertThatThrownBy(() -> c.connect(new InetSocketAddress("127.0.0.1", 1)))
                .isInstanceOfSatisfying(ErrnoException.class, e -> assertThat(e.errno()).isEqualTo(Errno.EINPROGRESS));
        poller.register(c, Events.POLLOUT);
        List<Ready> r = poll(LONG);
        assertThat(r).hasSize(1);
        assertThat(r.get(0).events() & Events.POLLERR).isNotZero();
        assertThatThrownBy(c::finishConnect)
                .isInstanceOfSatisfying(ErrnoException.class, e -> assertThat(e.errno()).isEqualTo(Errno.ECONNREFUSED));
    }

    @Test
    void tcpLevelVersusEdgeTriggeredAcrossAVeth() throws Exception {
        try (NetNamespace peer = NetNamespace.create("poller-peer")) {
            VethPair p = VethPair.create("veth0", "veth1");
            ns.attach(p.a());
            peer.attach(p.b());
            ns.addAddress("veth0", "10.9.0.1/24");
            peer.addAddress("veth1", "10.9.0.2/24");
            TcpServerSocket srv = track(TcpServerSocket.open(peer));
            srv.bind(new InetSocketAddress("10.9.0.2", 8080));
            srv.listen(4);
            TcpSocket level = track(TcpSocket.open(ns));
            TcpSocket edge = track(TcpSocket.open(ns));
            level.connect(srv.localAddress());
            edge.connect(srv.localAddress());
            TcpSocket toLevel = track(srv.accept());
            TcpSocket toEdge = track(srv.accept());
            poller.register(level, Events.POLLIN, "level");
            poller.register(edge, Events.POLLIN | Events.EPOLLET, "edge");
            assertThat(poll(NOW)).isEmpty();

            toLevel.write(new byte[100], 0, 100);
            toEdge.write(new byte[100], 0, 100);
            assertThat(poll(LONG)).extracting(Ready::attachment).containsExactlyInAnyOrder("level", "edge");
            assertThat(poll(NOW)).extracting(Ready::attachment).containsExactly("level");
            assertThat(poll(NOW)).extracting(Ready::attachment).containsExactly("level");

            toEdge.write(new byte[10], 0, 10); // new data: a new edge
            assertThat(poll(NOW)).extracting(Ready::attachment).containsExactlyInAnyOrder("level", "edge");

            byte[] buf = new byte[200];
            assertThat(level.read(buf, 0, buf.length)).isEqualTo(100);
            assertThat(poll(NOW)).isEmpty();

            toLevel.close(); // FIN: readable (end of stream) and RDHUP
            List<Ready> r = poll(LONG);
            assertThat(r).extracting(Ready::attachment).containsExactly("level");
            assertThat(r.get(0).events() & Events.POLLIN).isNotZero();
        }
    }

    // ---- timeouts, wakeup, lifecycle ------------------------------------------------------------

    @Test
    void pollTimesOutWithNothingReady() throws Exception {
        poller.register(udp(), Events.POLLIN);
        long t0 = System.nanoTime();
        assertThat(poll(Duration.ofMillis(100))).isEmpty();
        assertThat(System.nanoTime() - t0).isGreaterThanOrEqualTo(TimeUnit.MILLISECONDS.toNanos(100));
    }

    @Test
    void wakeupEndsABlockedPollAndAPendingWakeupTheNextOne() throws Exception {
        poller.register(udp(), Events.POLLIN);
        CountDownLatch started = new CountDownLatch(1);
        CompletableFuture<Integer> f = CompletableFuture.supplyAsync(() -> {
            started.countDown();
            return poller.poll(new ArrayList<>(), null);
        });
        started.await();
        Thread.sleep(50);
        poller.wakeup();
        assertThat(f.get(10, TimeUnit.SECONDS)).isZero();
        // a wakeup with no poll in progress makes the next poll return at once, once
        poller.wakeup();
        assertThat(poller.poll(new ArrayList<>(), null)).isZero();
        assertThat(poll(Duration.ofMillis(20))).isEmpty();
    }

    @Test
    void interruptEndsAPollWithTheFlagSet() throws Exception {
        poller.register(udp(), Events.POLLIN);
        Thread.currentThread().interrupt();
        try {
            assertThat(poller.poll(new ArrayList<>(), null)).isZero();
            assertThat(Thread.currentThread().isInterrupted()).isTrue();
        } finally {
            Thread.interrupted();
        }
    }

    @Test
    void registrationErrors() throws Exception {
        UdpSocket s = udp();
        poller.register(s, Events.POLLIN);
        assertThat(poller.isRegistered(s)).isTrue();
        assertThatThrownBy(() -> poller.register(s, Events.POLLIN)).isInstanceOf(IllegalArgumentException.class);
        // an unknown bit (this case once used 0x4000_0000, which is EPOLLONESHOT's, now accepted)
        assertThatThrownBy(() -> poller.register(udp(), 0x0400_0000)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> poller.register(udp(), Events.POLLIN | Events.EPOLLEXCLUSIVE))
                .isInstanceOf(UnsupportedOperationException.class).hasMessageContaining("EPOLLEXCLUSIVE");
        assertThatThrownBy(() -> poller.modify(s, Events.POLLIN | Events.EPOLLEXCLUSIVE))
                .isInstanceOf(UnsupportedOperationException.class);
        UdpSocket other = udp();
        assertThatThrownBy(() -> poller.modify(other, Events.POLLIN)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> poller.unregister(other)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> poller.poll(new ArrayList<>(), 0, NOW)).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void unregisteredAndClosedSocketsAreNotReported() throws Exception {
        UdpSocket a = udp();
        UdpSocket b = udp();
        UdpSocket tx = udp();
        poller.register(a, Events.POLLIN);
        poller.register(b, Events.POLLIN);
        send(tx, a);
        send(tx, b);
        poller.unregister(a);
        b.close();
        assertThat(poll(NOW)).isEmpty();
        assertThat(poller.size()).isZero(); // the closed socket was dropped
        poller.register(a, Events.POLLIN);
        assertThat(poll(NOW)).extracting(Ready::socket).containsExactly(a);
    }

    /** A socket whose readiness the test sets, counting its listeners. */
    static final class FakeSocket implements PollableSocket {
        final List<ReadinessListener> listeners = new java.util.concurrent.CopyOnWriteArrayList<>();
        volatile int ready;
        volatile boolean closed;

        void set(int events) {
            ready = events;
            for (ReadinessListener l : listeners) l.readinessChanged(this);
        }

        @Override public void setBlocking(boolean blocking) { }
        @Override public boolean isBlocking() { return false; }
        @Override public int readyEvents() { return ready; }
        @Override public void addReadinessListener(ReadinessListener l) { listeners.add(l); }
        @Override public void removeReadinessListener(ReadinessListener l) { listeners.remove(l); }
        @Override public void close() { closed = true; set(Events.POLLHUP); }
        @Override public boolean isClosed() { return closed; }
    }

    @Test
    void readinessIsSeenThroughCallbacksThenLevelRepeatsAndEdgeDoesNot() {
        FakeSocket lt = new FakeSocket();
        FakeSocket et = new FakeSocket();
        poller.register(lt, Events.POLLIN);
        poller.register(et, Events.POLLIN | Events.EPOLLET);
        assertThat(poll(NOW)).isEmpty();
        lt.ready = Events.POLLIN; // ready without a callback: not looked at (epoll's ready list is fed by callbacks)
        et.ready = Events.POLLIN;
        assertThat(poll(NOW)).isEmpty();
        lt.set(Events.POLLIN);
        et.set(Events.POLLIN);
        assertThat(poll(NOW)).extracting(Ready::socket).containsExactlyInAnyOrder(lt, et);
        assertThat(poll(NOW)).extracting(Ready::socket).containsExactly(lt);
        et.set(Events.POLLOUT); // a callback, but not for the interest set
        assertThat(poll(NOW)).extracting(Ready::socket).containsExactly(lt);
        et.set(Events.POLLOUT | Events.POLLERR); // errors are reported whatever the interest
        assertThat(poll(NOW)).extracting(Ready::socket, Ready::events).containsExactlyInAnyOrder(
                org.assertj.core.groups.Tuple.tuple(lt, Events.POLLIN), org.assertj.core.groups.Tuple.tuple(et, Events.POLLERR));
        lt.set(0);
        assertThat(poll(NOW)).isEmpty();
        assertThat(lt.listeners).hasSize(1);
        poller.unregister(lt);
        assertThat(lt.listeners).isEmpty();
    }

    @Test
    void closingThePollerRemovesItsListenersAndEndsBlockedPolls() throws Exception {
        FakeSocket s = new FakeSocket();
        poller.register(s, Events.POLLIN);
        assertThat(s.listeners).hasSize(1);
        CountDownLatch started = new CountDownLatch(1);
        CompletableFuture<Throwable> f = CompletableFuture.supplyAsync(() -> {
            started.countDown();
            try {
                poller.poll(new ArrayList<>(), null);
                return null;
            } catch (RuntimeException e) {
                return e;
            }
        });
        started.await();
        Thread.sleep(50);
        poller.close();
        assertThat(f.get(10, TimeUnit.SECONDS)).isInstanceOf(IllegalStateException.class);
        assertThat(poller.isClosed()).isTrue();
        assertThat(s.listeners).isEmpty();
        assertThatThrownBy(() -> poller.register(s, Events.POLLIN)).isInstanceOf(IllegalStateException.class);
        poller.close(); // idempotent
    }
}
