package io.jnet.socket;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.jnet.socket.Poller.Ready;
import io.jnet.socket.PollerTest.FakeSocket;
import io.jnet.stack.NetNamespace;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Busy polling in the {@link Poller} (Linux's net.core.busy_poll and EPIOCSPARAMS busy_poll_usecs): a wait
 * that finds nothing ready spins up to the busy-poll time before it parks. Real threads; what is checked is
 * whether a wait ended during the spin (counted by the poller) and that the spin keeps the wait's
 * semantics, never how fast. The spins are long (seconds) so that an event the test sends about 100 ms
 * after the wait began falls within them whatever the machine's load; each spin ends at that event.
 */
@Timeout(60)
class PollerBusyPollTest {
    private static final Duration LONG = Duration.ofSeconds(20);
    private static final int SPIN_US = 5_000_000;

    /** A connected loopback pair: {@code reader} is the accepted end, {@code writer} the client. */
    private record Pair(TcpSocket writer, TcpSocket reader) implements AutoCloseable {
        static Pair open(NetNamespace ns) throws Exception {
            try (TcpServerSocket srv = TcpServerSocket.open(ns)) {
                srv.bind(new InetSocketAddress("127.0.0.1", 0));
                srv.listen(4);
                TcpSocket c = TcpSocket.open(ns);
                c.connect(srv.localAddress());
                return new Pair(c, srv.accept());
            }
        }

        @Override
        public void close() throws Exception {
            writer.close();
            reader.close();
        }
    }

    /**
     * Starts {@code poller.poll(out, timeout)} in another thread, waits until it is about to poll and then
     * {@code afterMillis} more, runs {@code event}, and returns what the poll returned.
     */
    private static int pollWhile(Poller poller, List<Ready> out, Duration timeout, long afterMillis, ThrowingRunnable event)
            throws Exception {
        CountDownLatch started = new CountDownLatch(1);
        CompletableFuture<Integer> f = CompletableFuture.supplyAsync(() -> {
            started.countDown();
            return poller.poll(out, timeout);
        });
        started.await();
        Thread.sleep(afterMillis);
        event.run();
        return f.get(30, TimeUnit.SECONDS);
    }

    @FunctionalInterface
    private interface ThrowingRunnable {
        void run() throws Exception;
    }

    @Test
    void aWaitOnATcpSocketIsWokenByDataDuringTheSpin() throws Exception {
        try (NetNamespace ns = NetNamespace.create("busy-poll")) {
            ns.sysctl().set("net.core.busy_poll", Integer.toString(SPIN_US));
            try (Pair p = Pair.open(ns); Poller poller = Poller.open(ns)) {
                assertThat(poller.busyPollUsecs()).isEqualTo(SPIN_US);
                poller.register(p.reader(), Events.POLLIN, "reader");
                List<Ready> out = new ArrayList<>();
                int n = pollWhile(poller, out, LONG, 100, () -> p.writer().write(new byte[] {7}, 0, 1));
                assertThat(n).isEqualTo(1);
                assertThat(out).containsExactly(new Ready(p.reader(), Events.POLLIN, "reader"));
                assertThat(poller.busyPollWakes()).isEqualTo(1);
                byte[] b = new byte[4];
                assertThat(p.reader().read(b, 0, b.length)).isEqualTo(1);
                assertThat(b[0]).isEqualTo((byte) 7);
            }
        }
    }

    @Test
    void withoutBusyPollAWaitParksAndTheCounterStaysZero() throws Exception {
        try (NetNamespace ns = NetNamespace.create("busy-poll")) {
            try (Pair p = Pair.open(ns); Poller poller = Poller.open(ns); Poller plain = Poller.open()) {
                assertThat(poller.busyPollUsecs()).isZero(); // net.core.busy_poll defaults to 0, as in Linux
                assertThat(plain.busyPollUsecs()).isZero();
                poller.register(p.reader(), Events.POLLIN);
                List<Ready> out = new ArrayList<>();
                assertThat(pollWhile(poller, out, LONG, 100, () -> p.writer().write(new byte[1], 0, 1))).isEqualTo(1);
                assertThat(out).extracting(Ready::socket).containsExactly(p.reader());
                assertThat(poller.busyPollWakes()).isZero();
            }
        }
    }

    @Test
    void aTimedWaitWithNothingReadyEndsAtItsTimeoutNotAtTheEndOfTheSpin() throws Exception {
        try (NetNamespace ns = NetNamespace.create("busy-poll"); Pair p = Pair.open(ns); Poller poller = Poller.open()) {
            poller.setBusyPollUsecs(SPIN_US);
            poller.register(p.reader(), Events.POLLIN);
            long t0 = System.nanoTime();
            assertThat(poller.poll(new ArrayList<>(), Duration.ofMillis(100))).isZero();
            long took = System.nanoTime() - t0;
            assertThat(took).isGreaterThanOrEqualTo(TimeUnit.MILLISECONDS.toNanos(100));
            assertThat(took).as("the spin is cut at the timeout").isLessThan(TimeUnit.MICROSECONDS.toNanos(SPIN_US));
            assertThat(poller.busyPollWakes()).isZero();
            // a zero timeout never waits, so never spins
            t0 = System.nanoTime();
            assertThat(poller.poll(new ArrayList<>(), Duration.ZERO)).isZero();
            assertThat(System.nanoTime() - t0).isLessThan(TimeUnit.MICROSECONDS.toNanos(SPIN_US));
            assertThat(poller.busyPollWakes()).isZero();
        }
    }

    @Test
    void aSpinThatEndsWithNothingIsFollowedByParkingForTheRestOfTheTimeout() throws Exception {
        try (NetNamespace ns = NetNamespace.create("busy-poll"); Pair p = Pair.open(ns); Poller poller = Poller.open()) {
            poller.setBusyPollUsecs(20_000); // 20 ms of spin, then the poll parks; data comes at about 300 ms
            poller.register(p.reader(), Events.POLLIN);
            List<Ready> out = new ArrayList<>();
            assertThat(pollWhile(poller, out, LONG, 300, () -> p.writer().write(new byte[1], 0, 1))).isEqualTo(1);
            assertThat(out).extracting(Ready::socket).containsExactly(p.reader());
            assertThat(poller.busyPollWakes()).isZero();
        }
    }

    @Test
    void aWakeupDuringTheSpinEndsTheWaitWithoutParking() throws Exception {
        try (Poller poller = Poller.open()) {
            poller.setBusyPollUsecs(SPIN_US);
            poller.register(new FakeSocket(), Events.POLLIN);
            assertThat(pollWhile(poller, new ArrayList<>(), null, 100, poller::wakeup)).isZero();
            assertThat(poller.busyPollWakes()).isEqualTo(1);
        }
    }

    @Test
    void edgeTriggeredReportsOncePerChangeWhileSpinning() throws Exception {
        try (Poller poller = Poller.open()) {
            poller.setBusyPollUsecs(SPIN_US);
            FakeSocket lt = new FakeSocket();
            FakeSocket et = new FakeSocket();
            poller.register(lt, Events.POLLIN, "lt");
            poller.register(et, Events.POLLIN | Events.EPOLLET, "et");
            List<Ready> out = new ArrayList<>();
            assertThat(pollWhile(poller, out, LONG, 100, () -> et.set(Events.POLLIN))).isEqualTo(1);
            assertThat(out).extracting(Ready::attachment).containsExactly("et");
            assertThat(poller.busyPollWakes()).isEqualTo(1);
            // still readable but no new edge: a timed wait spins and ends empty at its timeout
            out.clear();
            assertThat(poller.poll(out, Duration.ofMillis(100))).isZero();
            assertThat(poller.busyPollWakes()).isEqualTo(1);
            // a new edge during the next spin is reported once more; the level-triggered one each time
            assertThat(pollWhile(poller, out, LONG, 100, () -> lt.set(Events.POLLIN))).isEqualTo(1);
            assertThat(out).extracting(Ready::attachment).containsExactly("lt");
            assertThat(poller.busyPollWakes()).isEqualTo(2);
            out.clear();
            et.set(Events.POLLIN);
            assertThat(poller.poll(out, LONG)).isEqualTo(2);
            assertThat(out).extracting(Ready::attachment).containsExactlyInAnyOrder("lt", "et");
            out.clear();
            assertThat(poller.poll(out, LONG)).isEqualTo(1);
            assertThat(out).extracting(Ready::attachment).containsExactly("lt");
            assertThat(poller.busyPollWakes()).isEqualTo(2); // these found the sockets ready: no spin at all
        }
    }

    @Test
    void closingThePollerDuringTheSpinEndsTheWait() throws Exception {
        Poller poller = Poller.open();
        poller.setBusyPollUsecs(SPIN_US);
        poller.register(new FakeSocket(), Events.POLLIN);
        CountDownLatch started = new CountDownLatch(1);
        CompletableFuture<Integer> f = CompletableFuture.supplyAsync(() -> {
            started.countDown();
            return poller.poll(new ArrayList<>(), LONG);
        });
        started.await();
        Thread.sleep(100);
        poller.close();
        assertThatThrownBy(() -> f.get(30, TimeUnit.SECONDS)).hasCauseInstanceOf(IllegalStateException.class);
        assertThat(poller.busyPollWakes()).isEqualTo(1);
    }

    @Test
    void theBusyPollTimeStartsAtTheNamespacesSysctlAndIsSetPerPoller() throws Exception {
        try (NetNamespace ns = NetNamespace.create("busy-poll")) {
            assertThat(ns.sysctl().dump()).contains("net.core.busy_poll");
            ns.sysctl().set("net.core.busy_poll", "50");
            try (Poller poller = Poller.open(ns)) {
                assertThat(poller.busyPollUsecs()).isEqualTo(50);
                ns.sysctl().set("net.core.busy_poll", "70"); // copied at open: only new pollers see it
                assertThat(poller.busyPollUsecs()).isEqualTo(50);
                try (Poller later = Poller.open(ns)) {
                    assertThat(later.busyPollUsecs()).isEqualTo(70);
                }
                poller.setBusyPollUsecs(0); // off for this poller, whatever the sysctl says
                assertThat(poller.busyPollUsecs()).isZero();
                poller.setBusyPollUsecs(Integer.MAX_VALUE);
                assertThat(poller.busyPollUsecs()).isEqualTo(Integer.MAX_VALUE);
                assertThatThrownBy(() -> poller.setBusyPollUsecs(-1))
                        .isInstanceOf(IllegalArgumentException.class)
                        .hasMessageContaining("busy poll")
                        .hasMessageContaining("-1");
                assertThat(poller.busyPollUsecs()).isEqualTo(Integer.MAX_VALUE);
                poller.close();
                assertThatThrownBy(() -> poller.setBusyPollUsecs(10)).isInstanceOf(IllegalStateException.class);
            }
            assertThatThrownBy(() -> ns.sysctl().set("net.core.busy_poll", "-1")).isInstanceOf(IllegalArgumentException.class);
            assertThatThrownBy(() -> Poller.open(null)).isInstanceOf(NullPointerException.class);
        }
    }

    /** Every {@link PollerTest} case again with a 50 us spin before each wait parks (as the socket suite's busy-poll path). */
    @Nested
    class EveryPollerCaseWithBusyPoll extends PollerTest {
        @Override
        Poller openPoller(NetNamespace ns) {
            ns.sysctl().set("net.core.busy_poll", "50");
            Poller p = Poller.open(ns);
            assertThat(p.busyPollUsecs()).isEqualTo(50);
            return p;
        }
    }
}
