package io.jnet.unix;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import io.jnet.socket.Errno;
import io.jnet.socket.ErrnoException;
import io.jnet.socket.Events;
import io.jnet.socket.LocalServerSocket;
import io.jnet.socket.LocalSocket;
import io.jnet.socket.SocketOption;
import io.jnet.stack.NetNamespace;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.assertj.core.api.ThrowableAssert.ThrowingCallable;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** Local stream sockets against Linux's AF_UNIX SOCK_STREAM semantics (net/unix/af_unix.c, man 7 unix). */
@Timeout(30)
class LocalSocketTest {
    private NetNamespace ns;
    private final List<AutoCloseable> closeables = new ArrayList<>();
    private final ExecutorService pool = Executors.newVirtualThreadPerTaskExecutor();

    @BeforeEach
    void setUp() {
        ns = NetNamespace.create("unix-test");
    }

    @AfterEach
    void tearDown() throws Exception {
        pool.shutdownNow();
        assertThat(pool.awaitTermination(10, TimeUnit.SECONDS)).isTrue();
        for (AutoCloseable c : closeables) c.close();
        assertThat(ns.internalErrors()).as("%s", ns.lastInternalError()).isZero();
        assertThat(unix().socketCount()).as("sockets left open").isZero();
        ns.close();
    }

    private UnixProtocol unix() { return ns.extension(UnixProtocol.class); }

    private <T extends AutoCloseable> T track(T c) {
        closeables.add(c);
        return c;
    }

    private LocalServerSocket listen(String path, int backlog) throws IOException {
        LocalServerSocket l = track(LocalServerSocket.open(ns));
        l.bind(path);
        l.listen(backlog);
        return l;
    }

    private LocalSocket connect(String path) throws IOException {
        LocalSocket c = track(LocalSocket.open(ns));
        c.connect(path);
        return c;
    }

    private LocalSocket accept(LocalServerSocket l) throws IOException {
        return track(l.accept());
    }

    private LocalSocket[] pair() {
        LocalSocket.Pair p = LocalSocket.pair(ns);
        return new LocalSocket[] {track(p.first()), track(p.second())};
    }

    /** Runs {@code call} in another thread and returns once that thread sleeps in it (or it ended: a failure). */
    private <T> Future<T> blocked(java.util.concurrent.Callable<T> call) throws Exception {
        CompletableFuture<Thread> thread = new CompletableFuture<>();
        Future<T> f = pool.submit(() -> {
            thread.complete(Thread.currentThread());
            return call.call();
        });
        Thread t = thread.get(5, TimeUnit.SECONDS);
        long end = System.nanoTime() + 5_000_000_000L;
        while (t.getState() != Thread.State.WAITING && t.getState() != Thread.State.TIMED_WAITING
                && !f.isDone() && System.nanoTime() < end) {
            Thread.sleep(1);
        }
        assertThat(f.isDone()).as("the call blocks").isFalse();
        return f;
    }

    private static Errno errno(ThrowingCallable call) {
        ErrnoException e = catchThrowableOfType(ErrnoException.class, call);
        assertThat(e).as("an ErrnoException").isNotNull();
        return e.errno();
    }

    private static byte[] readExactly(LocalSocket s, int n) throws IOException {
        byte[] b = new byte[n];
        int got = 0;
        while (got < n) {
            int r = s.read(b, got, n - got);
            if (r < 0) throw new java.io.EOFException("end of stream after " + got + " of " + n);
            got += r;
        }
        return b;
    }

    // ---- names -----------------------------------------------------------------------------------

    @Test
    void aNameStaysTakenAfterItsSocketClosesUntilUnlinked() throws Exception {
        LocalServerSocket l = listen("/run/app.sock", 8);
        assertThat(ns.localNames().exists("/run/app.sock")).isTrue();
        LocalServerSocket other = track(LocalServerSocket.open(ns));
        assertThat(errno(() -> other.bind("/run/app.sock"))).isEqualTo(Errno.EADDRINUSE);
        l.close();
        // the socket file outlives the socket: connect is refused, bind still finds the name taken
        assertThat(ns.localNames().names()).containsExactly("/run/app.sock");
        LocalSocket c = track(LocalSocket.open(ns));
        assertThat(errno(() -> c.connect("/run/app.sock"))).isEqualTo(Errno.ECONNREFUSED);
        assertThat(errno(() -> other.bind("/run/app.sock"))).isEqualTo(Errno.EADDRINUSE);
        ns.unlink("/run/app.sock");
        assertThat(ns.localNames().exists("/run/app.sock")).isFalse();
        assertThat(errno(() -> c.connect("/run/app.sock"))).isEqualTo(Errno.ENOENT);
        other.bind("/run/app.sock");
        other.listen(8);
        c.connect("/run/app.sock");
        assertThat(c.isConnected()).isTrue();
        assertThat(errno(() -> ns.unlink("/no/such"))).isEqualTo(Errno.ENOENT);
    }

    @Test
    void connectNeedsAListeningSocketBehindTheName() throws Exception {
        LocalSocket c = track(LocalSocket.open(ns));
        assertThat(errno(() -> c.connect("missing"))).isEqualTo(Errno.ENOENT);
        LocalServerSocket bound = track(LocalServerSocket.open(ns));
        bound.bind("bound-only");
        assertThat(errno(() -> c.connect("bound-only"))).as("bound, not listening").isEqualTo(Errno.ECONNREFUSED);
        LocalSocket named = track(LocalSocket.open(ns));
        named.bind("a-client");
        assertThat(errno(() -> c.connect("a-client"))).as("a stream socket's name").isEqualTo(Errno.ECONNREFUSED);
        assertThat(c.isConnected()).isFalse();
        bound.listen(1);
        c.connect("bound-only");
        assertThat(c.isConnected()).isTrue();
        assertThat(errno(() -> c.connect("bound-only"))).isEqualTo(Errno.EISCONN);
    }

    @Test
    void unlinkingALiveListenersNameLeavesItBoundButUnreachable() throws Exception {
        LocalServerSocket l = listen("svc", 8);
        LocalSocket before = connect("svc");
        ns.unlink("svc");
        assertThat(l.localAddress()).isEqualTo("svc");
        LocalSocket c = track(LocalSocket.open(ns));
        assertThat(errno(() -> c.connect("svc"))).isEqualTo(Errno.ENOENT);
        // the queued connection is still there to accept, and works
        LocalSocket s = accept(l);
        before.write(new byte[] {7}, 0, 1);
        assertThat(readExactly(s, 1)).containsExactly(7);
        // another socket may take the name; new connections reach it, not the old listener
        LocalServerSocket l2 = listen("svc", 8);
        c.connect("svc");
        assertThat(l2.queued()).isEqualTo(1);
        assertThat(l.queued()).isZero();
        accept(l2);
    }

    @Test
    void badArgumentsAreEinval() throws Exception {
        LocalSocket s = track(LocalSocket.open(ns));
        assertThat(errno(() -> s.bind(""))).as("autobind (abstract) is not supported").isEqualTo(Errno.EINVAL);
        assertThat(errno(() -> s.bind("\0abstract"))).isEqualTo(Errno.EINVAL);
        assertThat(errno(() -> s.bind("x".repeat(109)))).isEqualTo(Errno.EINVAL);
        assertThat(errno(() -> s.bind("é".repeat(55)))).as("110 bytes in UTF-8").isEqualTo(Errno.EINVAL);
        assertThat(errno(() -> s.connect(""))).isEqualTo(Errno.EINVAL);
        assertThat(errno(() -> ns.unlink(""))).isEqualTo(Errno.EINVAL);
        s.bind("x".repeat(108)); // sun_path's 108 bytes
        assertThat(errno(() -> s.bind("another"))).as("a second name").isEqualTo(Errno.EINVAL);
        assertThat(errno(() -> s.bind("x".repeat(108)))).as("existing name first").isEqualTo(Errno.EADDRINUSE);
        assertThat(ns.localNames().exists("another")).as("the failed bind left no name").isFalse();

        LocalServerSocket l = track(LocalServerSocket.open(ns));
        assertThat(errno(() -> l.listen(1))).as("listen without a name").isEqualTo(Errno.EINVAL);
        assertThat(errno(l::accept)).as("accept before listen").isEqualTo(Errno.EINVAL);

        LocalSocket u = track(LocalSocket.open(ns));
        assertThat(errno(() -> u.read(new byte[1], 0, 1))).as("read unconnected").isEqualTo(Errno.EINVAL);
        assertThat(errno(() -> u.write(new byte[1], 0, 1))).as("write unconnected").isEqualTo(Errno.ENOTCONN);
        assertThat(errno(() -> u.setOption(SocketOption.TCP_NODELAY, true))).isEqualTo(Errno.EOPNOTSUPP);
        assertThat(errno(() -> u.getOption(SocketOption.TCP_NODELAY))).isEqualTo(Errno.EOPNOTSUPP);
        assertThat(errno(() -> u.setOption(SocketOption.TCP_CORK, true))).isEqualTo(Errno.EOPNOTSUPP);
        assertThat(errno(() -> u.getOption(SocketOption.TCP_CORK))).isEqualTo(Errno.EOPNOTSUPP);
        assertThat(errno(() -> u.setOption(SocketOption.SO_BUSY_POLL, -1))).isEqualTo(Errno.EINVAL);
        assertThat(errno(() -> u.setOption(SocketOption.SO_SNDBUF, -1))).isEqualTo(Errno.EINVAL);
        assertThat(errno(() -> u.setOption(SocketOption.SO_RCVTIMEO, Duration.ofMillis(-1)))).isEqualTo(Errno.EINVAL);
        // shutdown of an unconnected socket is no error on Linux (unix_shutdown only marks it)
        u.shutdownOutput();
        u.shutdownInput();
    }

    @Test
    void addressesAreWhatGetsocknameAndGetpeernameReport() throws Exception {
        LocalServerSocket l = listen("/srv", 8);
        LocalSocket anon = connect("/srv");
        LocalSocket named = track(LocalSocket.open(ns));
        named.bind("/client");
        named.connect("/srv");
        LocalSocket a = accept(l);
        LocalSocket b = accept(l);
        assertThat(anon.localAddress()).as("not autobound: no SO_PASSCRED").isNull();
        assertThat(anon.remoteAddress()).isEqualTo("/srv");
        assertThat(a.localAddress()).as("the listener's name").isEqualTo("/srv");
        assertThat(a.remoteAddress()).isNull();
        assertThat(b.remoteAddress()).isEqualTo("/client");
        assertThat(named.localAddress()).isEqualTo("/client");
        assertThat(a.state()).isEqualTo("ESTAB");
        LocalSocket[] p = pair();
        assertThat(p[0].localAddress()).isNull();
        assertThat(p[0].remoteAddress()).isNull();
        assertThat(p[0].isConnected()).isTrue();
        a.close();
        assertThat(a.state()).isEqualTo("UNCONN");
        assertThat(a.isConnected()).isFalse();
        assertThat(track(LocalSocket.open(ns)).state()).isEqualTo("UNCONN");
    }

    @Test
    void socketPairCarriesBothDirectionsAndConnectCompletesBeforeAccept() throws Exception {
        LocalSocket[] p = pair();
        p[0].write(new byte[] {1, 2, 3}, 0, 3);
        p[1].write(new byte[] {9}, 0, 1);
        assertThat(readExactly(p[1], 3)).containsExactly(1, 2, 3);
        assertThat(readExactly(p[0], 1)).containsExactly(9);

        LocalServerSocket l = listen("early", 4);
        LocalSocket c = connect("early");
        c.write(new byte[] {5, 6}, 0, 2); // written before the accept, kept for it
        assertThat(l.queued()).isEqualTo(1);
        LocalSocket s = accept(l);
        assertThat(l.queued()).isZero();
        assertThat(s.inq()).isEqualTo(2);
        assertThat(readExactly(s, 2)).containsExactly(5, 6);
    }

    // ---- close, shutdown ---------------------------------------------------------------------------

    @Test
    void peerCloseGivesTheRemainingDataThenEndOfStreamAndEpipeToWriters() throws Exception {
        LocalSocket[] p = pair();
        p[1].write(new byte[] {1, 2, 3}, 0, 3);
        p[1].close();
        assertThat(p[0].readyEvents() & (Events.POLLIN | Events.POLLHUP | Events.POLLRDHUP | Events.POLLERR))
                .isEqualTo(Events.POLLIN | Events.POLLHUP | Events.POLLRDHUP);
        assertThat(readExactly(p[0], 3)).containsExactly(1, 2, 3);
        byte[] b = new byte[8];
        assertThat(p[0].read(b, 0, 8)).isEqualTo(-1);
        assertThat(p[0].read(b, 0, 8)).as("sticky").isEqualTo(-1);
        assertThat(errno(() -> p[0].write(b, 0, 1))).isEqualTo(Errno.EPIPE);
        assertThat(p[0].isConnected()).as("the survivor stays connected, as Linux's").isTrue();
        assertThat(errno(() -> p[1].read(b, 0, 1))).as("after close").isEqualTo(Errno.EBADF);
        assertThat(errno(() -> p[1].write(b, 0, 1))).isEqualTo(Errno.EBADF);
        assertThat(errno(p[1]::shutdownOutput)).isEqualTo(Errno.EBADF);
        p[1].close(); // idempotent
    }

    @Test
    void closingWithUnreadDataResetsThePeerAfterItsData() throws Exception {
        LocalServerSocket l = listen("srv", 8);
        LocalSocket c = connect("srv");
        LocalSocket s = accept(l);
        c.write(new byte[100], 0, 100); // s never reads these
        s.write(new byte[] {4, 5}, 0, 2);
        s.close(); // unix_release_sock: skb in the closer's queue -> peer sk_err = ECONNRESET
        assertThat(c.readyEvents() & Events.POLLERR).isEqualTo(Events.POLLERR);
        assertThat(c.outq()).as("the closer's queue is gone").isZero();
        assertThat(readExactly(c, 2)).as("data first").containsExactly(4, 5);
        assertThat(errno(() -> c.read(new byte[4], 0, 4))).isEqualTo(Errno.ECONNRESET);
        assertThat(c.read(new byte[4], 0, 4)).as("then end of stream").isEqualTo(-1);
        assertThat(c.readyEvents() & Events.POLLERR).isZero();
        assertThat(errno(() -> c.write(new byte[1], 0, 1))).isEqualTo(Errno.EPIPE);
    }

    @Test
    void closingWithEverythingReadIsAnOrderlyEnd() throws Exception {
        LocalSocket[] p = pair();
        p[0].write(new byte[10], 0, 10);
        readExactly(p[1], 10);
        p[1].close();
        assertThat(p[0].readyEvents() & Events.POLLERR).isZero();
        assertThat(p[0].read(new byte[4], 0, 4)).isEqualTo(-1);
    }

    @Test
    void aListenerClosingWithQueuedConnectionsResetsTheirClients() throws Exception {
        LocalServerSocket l = listen("srv", 8);
        LocalSocket c = connect("srv");
        LocalSocket d = connect("srv");
        c.write(new byte[] {1}, 0, 1);
        l.close();
        for (LocalSocket x : List.of(c, d)) {
            assertThat(errno(() -> x.read(new byte[4], 0, 4))).isEqualTo(Errno.ECONNRESET);
            assertThat(x.read(new byte[4], 0, 4)).isEqualTo(-1);
            assertThat(errno(() -> x.write(new byte[1], 0, 1))).isEqualTo(Errno.EPIPE);
        }
        assertThat(errno(l::accept)).isEqualTo(Errno.EBADF);
    }

    @Test
    void shutdownOutputEndsThePeersInputAndShutdownInputItsOutput() throws Exception {
        LocalSocket[] p = pair();
        p[0].write(new byte[] {1, 2}, 0, 2);
        p[0].shutdownOutput();
        assertThat(errno(() -> p[0].write(new byte[1], 0, 1))).isEqualTo(Errno.EPIPE);
        assertThat(p[1].readyEvents() & (Events.POLLIN | Events.POLLRDHUP | Events.POLLHUP))
                .isEqualTo(Events.POLLIN | Events.POLLRDHUP);
        assertThat(readExactly(p[1], 2)).containsExactly(1, 2);
        assertThat(p[1].read(new byte[2], 0, 2)).isEqualTo(-1);
        // the other direction still works
        p[1].write(new byte[] {3}, 0, 1);
        assertThat(readExactly(p[0], 1)).containsExactly(3);

        // SHUT_RD: the peer may not write any more; what was queued stays readable
        p[1].write(new byte[] {4, 5}, 0, 2);
        p[0].shutdownInput();
        assertThat(errno(() -> p[1].write(new byte[1], 0, 1))).isEqualTo(Errno.EPIPE);
        assertThat(readExactly(p[0], 2)).containsExactly(4, 5);
        assertThat(p[0].read(new byte[2], 0, 2)).isEqualTo(-1);
        assertThat(p[0].readyEvents() & Events.POLLHUP).as("both directions shut").isEqualTo(Events.POLLHUP);
        assertThat(p[1].readyEvents() & Events.POLLHUP).isEqualTo(Events.POLLHUP);
    }

    // ---- blocking, timeouts, non-blocking ----------------------------------------------------------

    @Test
    void nonBlockingCallsReturnWhereTheyWouldBlock() throws Exception {
        LocalServerSocket l = listen("srv", 0);
        l.setBlocking(false);
        assertThat(l.accept()).isNull();
        LocalSocket c = connect("srv"); // backlog 0: one connection fits (Linux: full when more than the backlog)
        LocalSocket d = track(LocalSocket.open(ns));
        d.setBlocking(false);
        assertThat(errno(() -> d.connect("srv"))).as("queue full: EAGAIN, not EINPROGRESS").isEqualTo(Errno.EAGAIN);
        LocalSocket s = accept(l);
        d.connect("srv");
        assertThat(d.isConnected()).isTrue();

        c.setBlocking(false);
        assertThat(c.read(new byte[4], 0, 4)).isZero();
        c.setOption(SocketOption.SO_SNDBUF, 5000); // 10000 after doubling
        int sndbuf = c.getOption(SocketOption.SO_SNDBUF);
        assertThat(sndbuf).isEqualTo(10000);
        byte[] big = new byte[64 * 1024];
        assertThat(c.write(big, 0, big.length)).isEqualTo(sndbuf);
        assertThat(c.write(big, 0, big.length)).isZero();
        assertThat(c.outq()).isEqualTo(sndbuf);
        assertThat(readExactly(s, 1000)).hasSize(1000);
        assertThat(c.write(big, 0, big.length)).isEqualTo(1000);
    }

    @Test
    void timeoutsExpireWithEagain() throws Exception {
        LocalServerSocket l = listen("srv", 0);
        LocalSocket c = connect("srv");
        LocalSocket s = accept(l);
        s.setOption(SocketOption.SO_RCVTIMEO, Duration.ofMillis(50));
        assertThat(s.getOption(SocketOption.SO_RCVTIMEO)).isEqualTo(Duration.ofMillis(50));
        assertThat(errno(() -> s.read(new byte[4], 0, 4))).isEqualTo(Errno.EAGAIN);
        c.write(new byte[] {1}, 0, 1);
        assertThat(readExactly(s, 1)).as("still usable").containsExactly(1);

        c.setOption(SocketOption.SO_SNDBUF, 4096);
        c.setOption(SocketOption.SO_SNDTIMEO, Duration.ofMillis(50));
        byte[] big = new byte[100_000];
        assertThat(c.write(big, 0, big.length)).as("a partial count when some bytes went").isEqualTo(8192);
        assertThat(errno(() -> c.write(big, 0, big.length))).isEqualTo(Errno.EAGAIN);

        l.setOption(SocketOption.SO_RCVTIMEO, Duration.ofMillis(50));
        assertThat(errno(l::accept)).isEqualTo(Errno.EAGAIN);

        // a connect waiting for queue room is bounded by SO_SNDTIMEO
        connect("srv"); // fills the queue (backlog 0 holds one)
        LocalSocket d = track(LocalSocket.open(ns));
        d.setOption(SocketOption.SO_SNDTIMEO, Duration.ofMillis(50));
        assertThat(errno(() -> d.connect("srv"))).isEqualTo(Errno.EAGAIN);
        assertThat(d.isConnected()).isFalse();
    }

    @Test
    void aBlockingConnectWaitsForRoomInTheQueue() throws Exception {
        LocalServerSocket l = listen("srv", 1);
        connect("srv");
        connect("srv"); // backlog 1: two fit
        LocalSocket third = track(LocalSocket.open(ns));
        Future<Void> connecting = blocked(() -> {
            third.connect("srv");
            return null;
        });
        accept(l);
        connecting.get(5, TimeUnit.SECONDS);
        assertThat(third.isConnected()).isTrue();
        assertThat(l.queued()).isEqualTo(2);

        // a waiting connect learns of the listener's close: the name then refuses
        LocalSocket fourth = track(LocalSocket.open(ns));
        Future<Errno> refused = blocked(() -> errno(() -> fourth.connect("srv")));
        l.close();
        assertThat(refused.get(5, TimeUnit.SECONDS)).isEqualTo(Errno.ECONNREFUSED);
    }

    @Test
    void aLargerBacklogLetsWaitingConnectsIn() throws Exception {
        LocalServerSocket l = listen("srv", 0);
        connect("srv");
        LocalSocket second = track(LocalSocket.open(ns));
        Future<Void> connecting = blocked(() -> {
            second.connect("srv");
            return null;
        });
        l.listen(5);
        connecting.get(5, TimeUnit.SECONDS);
        assertThat(l.queued()).isEqualTo(2);
        l.listen(-1); // negative: net.core.somaxconn, as Linux's unsigned comparison
        for (int i = 0; i < 20; i++) connect("srv");
        assertThat(l.queued()).isEqualTo(22);
    }

    @Test
    void closeFromAnotherThreadEndsBlockedCalls() throws Exception {
        LocalSocket[] p = pair();
        Future<Integer> reader = blocked(() -> p[0].read(new byte[8], 0, 8));
        LocalSocket[] q = pair();
        q[0].setOption(SocketOption.SO_SNDBUF, 4096);
        Future<Integer> writer = blocked(() -> q[0].write(new byte[1 << 20], 0, 1 << 20));
        LocalServerSocket l = listen("srv", 1);
        Future<Errno> acceptor = blocked(() -> errno(l::accept));
        p[0].close();
        q[0].close();
        l.close();
        assertThat(reader.get(5, TimeUnit.SECONDS)).isEqualTo(-1);
        // as Linux's unix_stream_sendmsg: the bytes that went are reported (an error only when none went)
        assertThat(writer.get(5, TimeUnit.SECONDS)).isEqualTo(8192);
        assertThat(acceptor.get(5, TimeUnit.SECONDS)).isEqualTo(Errno.EBADF);
        // the peers see an orderly end (the closers left nothing unread): first what was written, then EOF
        assertThat(p[1].read(new byte[1], 0, 1)).isEqualTo(-1);
        assertThat(readExactly(q[1], 8192)).as("what the writer got in before it blocked").hasSize(8192);
        assertThat(q[1].read(new byte[1], 0, 1)).isEqualTo(-1);
    }

    // ---- ioctls, options ---------------------------------------------------------------------------

    @Test
    void inqAndOutqCountUnreadBytes() throws Exception {
        LocalSocket[] p = pair();
        p[0].write(new byte[1000], 0, 1000);
        assertThat(p[0].outq()).isEqualTo(1000);
        assertThat(p[1].inq()).isEqualTo(1000);
        assertThat(p[1].available()).isEqualTo(1000);
        assertThat(p[1].read(new byte[400], 0, 400)).isEqualTo(400);
        assertThat(p[0].outq()).isEqualTo(600);
        assertThat(p[1].inq()).isEqualTo(600);
        p[1].close();
        assertThat(p[0].outq()).isZero();
        assertThat(errno(p[1]::inq)).isEqualTo(Errno.EBADF);
        LocalSocket u = track(LocalSocket.open(ns));
        assertThat(u.inq()).isZero();
        assertThat(u.outq()).isZero();
    }

    @Test
    void optionsStartAtTheSysctlsAndFollowLinuxRules() throws Exception {
        ns.sysctl().set("net.core.busy_read", "25");
        LocalSocket s = track(LocalSocket.open(ns));
        assertThat(s.getOption(SocketOption.SO_SNDBUF)).as("net.core.wmem_default").isEqualTo(212992);
        assertThat(s.getOption(SocketOption.SO_RCVBUF)).as("net.core.rmem_default").isEqualTo(212992);
        assertThat(s.getOption(SocketOption.SO_BUSY_POLL)).isEqualTo(25);
        s.setOption(SocketOption.SO_SNDBUF, 1);
        assertThat(s.getOption(SocketOption.SO_SNDBUF)).as("SOCK_MIN_SNDBUF").isEqualTo(4608);
        s.setOption(SocketOption.SO_SNDBUF, 1 << 30);
        assertThat(s.getOption(SocketOption.SO_SNDBUF)).as("2 x net.core.wmem_max").isEqualTo(2 * 212992);
        s.setOption(SocketOption.SO_RCVBUF, 1);
        assertThat(s.getOption(SocketOption.SO_RCVBUF)).isEqualTo(2304);
        s.setOption(SocketOption.SO_LINGER, Duration.ZERO);
        assertThat(s.getOption(SocketOption.SO_LINGER)).isEqualTo(Duration.ZERO);
        s.setOption(SocketOption.SO_LINGER, null);
        assertThat(s.getOption(SocketOption.SO_LINGER)).isNull();
        s.setOption(SocketOption.SO_KEEPALIVE, true);
        assertThat(s.getOption(SocketOption.SO_KEEPALIVE)).isTrue();
        LocalServerSocket l = track(LocalServerSocket.open(ns));
        l.setOption(SocketOption.SO_SNDBUF, 50_000);
        l.bind("srv");
        l.listen(1);
        connect("srv");
        LocalSocket a = accept(l);
        assertThat(a.getOption(SocketOption.SO_SNDBUF)).as("not inherited from the listener").isEqualTo(212992);
        s.close();
        assertThat(errno(() -> s.getOption(SocketOption.SO_SNDBUF))).isEqualTo(Errno.EBADF);
    }

    @Test
    void aBlockedReadSpinsForSoBusyPollBeforeItSleeps() throws Exception {
        LocalSocket[] p = pair();
        LocalSocketImpl reader = (LocalSocketImpl) p[0];
        p[0].setOption(SocketOption.SO_BUSY_POLL, 5_000_000); // 5 s: the write comes within the spin
        Future<?> writer = pool.submit(() -> {
            Thread.sleep(300);
            return p[1].write(new byte[] {42}, 0, 1);
        });
        assertThat(readExactly(p[0], 1)).containsExactly(42);
        writer.get(5, TimeUnit.SECONDS);
        assertThat(reader.lock.busyPollWakes()).as("woken while spinning").isEqualTo(1);

        LocalSocket[] q = pair();
        q[0].setOption(SocketOption.SO_BUSY_POLL, 0);
        Future<?> w2 = pool.submit(() -> {
            Thread.sleep(50);
            return q[1].write(new byte[] {43}, 0, 1);
        });
        assertThat(readExactly(q[0], 1)).containsExactly(43);
        w2.get(5, TimeUnit.SECONDS);
        assertThat(((LocalSocketImpl) q[0]).lock.busyPollWakes()).isZero();
    }

    @Test
    void namespaceCloseClosesEverySocket() throws Exception {
        NetNamespace other = NetNamespace.create("unix-other");
        LocalServerSocket l = LocalServerSocket.open(other);
        l.bind("srv");
        l.listen(4);
        LocalSocket c = LocalSocket.open(other);
        c.connect("srv");
        LocalSocket.Pair p = LocalSocket.pair(other);
        Future<Integer> blocked = blocked(() -> p.first().read(new byte[1], 0, 1));
        other.close();
        assertThat(blocked.get(5, TimeUnit.SECONDS)).isEqualTo(-1);
        assertThat(l.isClosed()).isTrue();
        assertThat(c.isClosed()).isTrue();
        assertThat(other.extension(UnixProtocol.class).socketCount()).isZero();
        assertThat(other.internalErrors()).isZero();
        assertThatThrownBy(() -> LocalSocket.open(other)).isInstanceOf(IllegalStateException.class);
    }

    @Test
    void namespacesHaveTheirOwnNames() throws Exception {
        listen("shared-name", 1);
        try (NetNamespace other = NetNamespace.create("unix-other2")) {
            LocalSocket c = LocalSocket.open(other);
            assertThat(errno(() -> c.connect("shared-name"))).isEqualTo(Errno.ENOENT);
            LocalServerSocket l = LocalServerSocket.open(other);
            l.bind("shared-name");
        }
    }
}
