package io.jnet.tcp;

import static org.assertj.core.api.Assertions.assertThat;

import io.jnet.socket.SocketOption;
import io.jnet.socket.TcpServerSocket;
import io.jnet.socket.TcpSocket;
import io.jnet.stack.MibCounter;
import io.jnet.stack.NetNamespace;
import io.jnet.stack.Sysctls;
import io.jnet.stack.VirtualClock;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.util.Arrays;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * TCP memory accounting and pressure (net.ipv4.tcp_mem, {@link TcpMemory}) on one loopback namespace on virtual
 * time, where a segment is up to 65483 bytes (17 pages of charge): a bulk transfer to a paused reader enters
 * pressure and shows its effects, the hard limit stops a writer, and every page comes back.
 */
class TcpMemoryPressureTest {
    private static final int PORT = 7100;

    /** One namespace with a connected, non-blocking pair: [client (writer), server side (reader)]. */
    private static TcpConnection[] pair(NetNamespace ns) throws IOException {
        TcpServerSocket srv = TcpServerSocket.open(ns);
        srv.bind(new InetSocketAddress("127.0.0.1", PORT));
        srv.listen(4);
        TcpSocket client = TcpSocket.open(ns);
        VirtualNet.startConnect(client, new InetSocketAddress("127.0.0.1", PORT));
        assertThat(client.finishConnect()).isTrue();
        TcpSocket server = srv.accept();
        server.setBlocking(false);
        srv.close();
        return new TcpConnection[] {(TcpConnection) client, (TcpConnection) server};
    }

    private static byte[] pattern(int n, long seed) {
        byte[] b = new byte[n];
        new Random(seed).nextBytes(b);
        return b;
    }

    /**
     * Moves {@code data[sent..]} from writer to reader, reading only while {@code read}; returns the new
     * [sent, received] after the first round in which nothing moved at all (time advanced 1 ms each idle round,
     * up to {@code maxIdleMs}).
     */
    private static int[] pump(VirtualClock clock, TcpConnection w, TcpConnection r, byte[] data, byte[] got,
            int sent, int received, boolean read, long maxIdleMs) throws IOException {
        long idle = 0;
        while (received < data.length) {
            int before = sent + received;
            if (sent < data.length) sent += w.write(data, sent, data.length - sent);
            if (read) received += Math.max(0, r.read(got, received, data.length - received));
            if (sent + received == before) {
                if (idle++ >= maxIdleMs) break;
                clock.advanceMillis(1);
            } else {
                idle = 0;
            }
        }
        return new int[] {sent, received};
    }

    @Test
    void defaultTcpMemIsLinuxTcpInitMemOverTheHeap() {
        int[] d = Sysctls.defaultTcpMem();
        long limit = Math.max(Runtime.getRuntime().maxMemory() / 4096 / 16, 128);
        assertThat(d).containsExactly((int) (limit / 4 * 3), (int) limit, (int) (limit / 4 * 3) * 2);
        try (NetNamespace ns = NetNamespace.create("tcpmem-default")) {
            assertThat(ns.sysctl().get("net.ipv4.tcp_mem").split("\\s+")).containsExactly("" + d[0], "" + d[1], "" + d[2]);
            ns.sysctl().set("net.ipv4.tcp_mem", "1 2 4");
            assertThat(ns.sysctl().tcpMem.intValue(2)).isEqualTo(4);
        }
    }

    /**
     * Pressure is entered above tcp_mem[1] (counted once) and left below tcp_mem[0]; the chrono counter reads
     * the time under pressure while it lasts and keeps it after.
     */
    @Test
    void pressureStateAndChronoFollowTheCount() throws Exception {
        VirtualClock clock = new VirtualClock();
        try (NetNamespace ns = NetNamespace.create("tcpmem-state", clock)) {
            TcpMemory mem = ns.extension(TcpProtocol.class).memory();
            ns.sysctl().set("net.ipv4.tcp_mem", "4 8 16");
            TcpConnection c = (TcpConnection) TcpSocket.open(ns);
            mem.forceSchedule(c, 8 * TcpMemory.PAGE_SIZE);
            assertThat(mem.allocatedPages()).isEqualTo(8);
            assertThat(mem.underPressure()).as("at tcp_mem[1], not above").isFalse();
            mem.forceSchedule(c, 8 * TcpMemory.PAGE_SIZE + 1); // one byte more than the 8 pages held: a ninth page
            assertThat(c.memPages).isEqualTo(9);
            assertThat(mem.underPressure()).isTrue();
            assertThat(ns.mib().get(MibCounter.TcpExtTCPMemoryPressures)).isEqualTo(1);
            clock.advanceMillis(30);
            assertThat(ns.mib().get(MibCounter.TcpExtTCPMemoryPressuresChrono)).as("read during pressure").isEqualTo(30);
            mem.enterPressure();
            assertThat(ns.mib().get(MibCounter.TcpExtTCPMemoryPressures)).as("once per entry").isEqualTo(1);
            mem.reclaim(c); // nothing queued: every page goes back, the count falls below tcp_mem[0]
            assertThat(c.memPages).isZero();
            assertThat(mem.allocatedPages()).isZero();
            assertThat(mem.underPressure()).isFalse();
            clock.advanceMillis(30);
            assertThat(ns.mib().get(MibCounter.TcpExtTCPMemoryPressuresChrono)).as("kept after").isEqualTo(30);
            c.close();
        }
    }

    /** With a large tcp_mem, charges go through the stripes' reserves, and allocatedPages() still reads them exactly. */
    @Test
    void stripeReservesKeepTheCountExact() throws Exception {
        try (NetNamespace ns = NetNamespace.create("tcpmem-rsv")) {
            TcpMemory mem = ns.extension(TcpProtocol.class).memory();
            ns.sysctl().set("net.ipv4.tcp_mem", "1048576 1048576 2097152");
            assertThat(mem.reserve()).isEqualTo(TcpMemory.MAX_RESERVE);
            TcpConnection c = (TcpConnection) TcpSocket.open(ns);
            for (int i = 1; i <= 300; i++) {
                mem.forceSchedule(c, (long) i * TcpMemory.PAGE_SIZE);
                assertThat(mem.allocatedPages()).isEqualTo(i);
                mem.reclaim(c);
                assertThat(mem.allocatedPages()).isZero();
            }
            c.close();
        }
    }

    /**
     * The writer's send buffer grows while memory is plentiful; then tcp_mem is lowered and the reader pauses:
     * the writer's queue and the reader's queue push the count over tcp_mem[1] (pressure entered once), the send
     * buffer is moderated, the receive queue is pruned; when the reader drains, pressure ends (chrono counted),
     * every byte arrives once and in order, and closing both returns every page.
     */
    @Test
    void bulkTransferToAPausedReaderEntersAndLeavesPressure() throws Exception {
        VirtualClock clock = new VirtualClock();
        try (NetNamespace ns = NetNamespace.create("tcpmem-bulk", clock)) {
            TcpMemory mem = ns.extension(TcpProtocol.class).memory();
            TcpConnection[] p = pair(ns);
            TcpConnection w = p[0], r = p[1];
            // warm-up with a reader that keeps up: the send buffer autotunes upward
            byte[] warm = pattern(4 << 20, 1);
            byte[] warmGot = new byte[warm.length];
            int[] st = pump(clock, w, r, warm, warmGot, 0, 0, true, 10_000);
            assertThat(st[1]).isEqualTo(warm.length);
            assertThat(Arrays.equals(warm, warmGot)).isTrue();
            int sndbufBefore = w.sndbuf;
            assertThat(sndbufBefore).as("autotuned send buffer").isGreaterThan(256 * 1024);
            assertThat(mem.underPressure()).isFalse();

            ns.sysctl().set("net.ipv4.tcp_mem", "8 16 32"); // 32 KiB, 64 KiB, 128 KiB: two loopback segments
            long pressures = ns.mib().get(MibCounter.TcpExtTCPMemoryPressures);
            long pruneCalled = ns.mib().get(MibCounter.TcpExtPruneCalled);
            byte[] data = pattern(3 << 20, 2);
            byte[] got = new byte[data.length];
            st = pump(clock, w, r, data, got, 0, 0, false, 50);
            System.out.printf("paused reader: sent %d, allocated %d pages, sndbuf %d -> %d, rcvbuf %d, counters %s%n",
                    st[0], mem.allocatedPages(), sndbufBefore, w.sndbuf, r.rcvbuf, counters(ns));
            assertThat(mem.underPressure()).as("under pressure").isTrue();
            assertThat(ns.mib().get(MibCounter.TcpExtTCPMemoryPressures)).as("pressure entered once").isEqualTo(pressures + 1);
            assertThat(ns.mib().get(MibCounter.TcpExtTCPMemoryPressuresChrono)).as("chrono while under pressure").isPositive();
            assertThat(w.sndbuf).as("send buffer moderated (sk_stream_moderate_sndbuf)").isLessThan(sndbufBefore);
            assertThat(w.sndbuf).isLessThanOrEqualTo((int) Math.max(TcpSocketOptions.SOCK_MIN_SNDBUF, w.writeQueue.bytes()));
            assertThat(ns.mib().get(MibCounter.TcpExtPruneCalled)).as("receive queue pruned").isGreaterThan(pruneCalled);
            assertThat(mem.allocatedPages()).as("allocated within the hard limit plus forced charges")
                    .isLessThanOrEqualTo(32 + 2 * 17);

            st = pump(clock, w, r, data, got, st[0], st[1], true, 10_000);
            assertThat(st[1]).isEqualTo(data.length);
            assertThat(Arrays.equals(data, got)).as("every byte once, in order").isTrue();
            // the last ACKs and window updates
            for (int i = 0; i < 500 && (w.writeQueue.size() > 0 || mem.underPressure()); i++) clock.advanceMillis(1);
            System.out.printf("drained: allocated %d pages, counters %s%n", mem.allocatedPages(), counters(ns));
            assertThat(mem.underPressure()).as("pressure left").isFalse();
            long chrono = ns.mib().get(MibCounter.TcpExtTCPMemoryPressuresChrono);
            assertThat(chrono).as("ms under pressure").isPositive();
            assertThat(mem.allocatedPages()).as("nothing queued, at most a page of forward allocation each").isLessThanOrEqualTo(2);
            w.close();
            r.close();
            for (int i = 0; i < 100; i++) clock.advanceMillis(1);
            assertThat(mem.allocatedPages()).as("every page back after close").isZero();
            assertThat(ns.mib().get(MibCounter.TcpExtTCPMemoryPressuresChrono)).as("chrono stays").isEqualTo(chrono);
            assertThat(ns.internalErrors()).as("internal errors: %s", ns.lastInternalError()).isZero();
        }
    }

    /**
     * Above tcp_mem[2] a writer whose SO_SNDBUF would take far more cannot queue more (its writes return 0 as for
     * a full send buffer); when the reader drains, it resumes, and the data arrives intact.
     */
    @Test
    void hardLimitBlocksTheWriterUntilTheReaderDrains() throws Exception {
        VirtualClock clock = new VirtualClock();
        try (NetNamespace ns = NetNamespace.create("tcpmem-hard", clock)) {
            TcpMemory mem = ns.extension(TcpProtocol.class).memory();
            ns.sysctl().set("net.ipv4.tcp_mem", "16 64 64"); // hard limit 256 KiB, where pressure begins too
            TcpConnection[] p = pair(ns);
            TcpConnection w = p[0], r = p[1];
            w.setOption(SocketOption.SO_SNDBUF, 4 << 20); // the send buffer alone would take 8 MiB
            byte[] data = pattern(2 << 20, 3);
            byte[] got = new byte[data.length];
            int[] st = pump(clock, w, r, data, got, 0, 0, false, 50);
            System.out.printf("hard limit: sent %d of %d, allocated %d pages, write queue %d bytes, counters %s%n",
                    st[0], data.length, mem.allocatedPages(), w.writeQueue.bytes(), counters(ns));
            assertThat(st[0]).as("writer stopped by memory").isLessThan(1 << 20);
            assertThat(w.memLimited).as("stopped by TCP memory, not the send buffer").isTrue();
            assertThat(TcpOutput.sendSpace(w)).as("send buffer room left").isPositive();
            assertThat(w.write(data, st[0], data.length - st[0])).as("still refused").isZero();
            assertThat(mem.allocatedPages()).isLessThanOrEqualTo(64 + 2 * 17);
            assertThat(mem.underPressure()).isTrue();

            st = pump(clock, w, r, data, got, st[0], st[1], true, 10_000);
            assertThat(st).containsExactly(data.length, data.length);
            assertThat(Arrays.equals(data, got)).as("every byte once, in order").isTrue();
            w.close();
            r.close();
            for (int i = 0; i < 100; i++) clock.advanceMillis(1);
            assertThat(mem.allocatedPages()).isZero();
            assertThat(mem.underPressure()).isFalse();
            assertThat(ns.internalErrors()).as("internal errors: %s", ns.lastInternalError()).isZero();
        }
    }

    /**
     * A blocking writer stopped by the hard limit waits (sk_stream_wait_memory) instead of spinning or failing,
     * and finishes once the reader drains; real time, two threads.
     */
    @Test
    void blockingWriterWaitsForMemoryAndFinishes() throws Exception {
        try (NetNamespace ns = NetNamespace.create("tcpmem-blocking")) {
            TcpMemory mem = ns.extension(TcpProtocol.class).memory();
            ns.sysctl().set("net.ipv4.tcp_mem", "16 64 64");
            TcpConnection[] p = pair(ns);
            TcpConnection w = p[0], r = p[1];
            w.setBlocking(true);
            w.setOption(SocketOption.SO_SNDBUF, 4 << 20);
            byte[] data = pattern(2 << 20, 8);
            byte[] got = new byte[data.length];
            java.util.concurrent.atomic.AtomicReference<Throwable> failure = new java.util.concurrent.atomic.AtomicReference<>();
            Thread writer = new Thread(() -> {
                try {
                    int off = 0;
                    while (off < data.length) off += w.write(data, off, data.length - off);
                } catch (Throwable t) {
                    failure.set(t);
                }
            }, "tcpmem-writer");
            writer.start();
            long deadline = System.nanoTime() + 10_000_000_000L;
            while (!w.memLimited && System.nanoTime() < deadline) Thread.onSpinWait();
            assertThat(w.memLimited).as("writer stopped by TCP memory").isTrue();
            assertThat(writer.isAlive()).as("writer waits").isTrue();
            int received = 0;
            while (received < data.length && System.nanoTime() < deadline) {
                received += Math.max(0, r.read(got, received, data.length - received));
            }
            writer.join(10_000);
            assertThat(failure.get()).isNull();
            assertThat(writer.isAlive()).isFalse();
            assertThat(received).isEqualTo(data.length);
            assertThat(Arrays.equals(data, got)).as("every byte once, in order").isTrue();
            w.close();
            r.close();
            assertThat(ns.internalErrors()).as("internal errors: %s", ns.lastInternalError()).isZero();
            long end = System.nanoTime() + 5_000_000_000L;
            while (mem.allocatedPages() != 0 && System.nanoTime() < end) Thread.onSpinWait();
            assertThat(mem.allocatedPages()).isZero();
        }
    }

    /**
     * While one connection holds the namespace over tcp_mem[2], another connection's receiver keeps its first
     * segment but drops the next (TcpExtTCPRcvQDrop) without acknowledging it; the sender retransmits, and once
     * the memory is freed the data arrives once, in order.
     */
    @Test
    void segmentsDroppedOverTheHardLimitAreRetransmitted() throws Exception {
        VirtualClock clock = new VirtualClock();
        try (NetNamespace ns = NetNamespace.create("tcpmem-drop", clock)) {
            TcpMemory mem = ns.extension(TcpProtocol.class).memory();
            ns.sysctl().set("net.ipv4.tcp_mem", "4 8 16");
            TcpServerSocket srv = TcpServerSocket.open(ns);
            srv.bind(new InetSocketAddress("127.0.0.1", PORT));
            srv.listen(4);
            TcpConnection[] a = new TcpConnection[2], b = new TcpConnection[2];
            for (TcpConnection[] p : new TcpConnection[][] {a, b}) {
                TcpSocket client = TcpSocket.open(ns);
                VirtualNet.startConnect(client, new InetSocketAddress("127.0.0.1", PORT));
                assertThat(client.finishConnect()).isTrue();
                p[0] = (TcpConnection) client;
                p[1] = (TcpConnection) srv.accept();
                p[1].setBlocking(false);
            }
            // a fills the memory: its reader does not read
            byte[] big = pattern(1 << 20, 6);
            byte[] bigGot = new byte[big.length];
            int[] sa = pump(clock, a[0], a[1], big, bigGot, 0, 0, false, 20);
            assertThat(mem.allocatedPages()).as("over the hard limit").isGreaterThan(16);
            // b's first write lands in its empty receive queue; the second finds the memory refused
            byte[] small = pattern(20_000, 7);
            byte[] smallGot = new byte[small.length];
            assertThat(b[0].write(small, 0, 10_000)).isEqualTo(10_000);
            clock.advanceMillis(1);
            assertThat(b[1].rmemAlloc()).as("first segment kept").isPositive();
            long drops = ns.mib().get(MibCounter.TcpExtTCPRcvQDrop);
            assertThat(b[0].write(small, 10_000, 10_000)).isEqualTo(10_000);
            clock.advanceMillis(1);
            assertThat(ns.mib().get(MibCounter.TcpExtTCPRcvQDrop)).as("second segment dropped").isGreaterThan(drops);
            assertThat(b[0].outq()).as("not acknowledged").isEqualTo(10_000);
            for (int i = 0; i < 1000; i++) clock.advanceMillis(1);
            assertThat(ns.mib().get(MibCounter.TcpRetransSegs)).as("retransmitted").isPositive();
            // a drains and goes away: the memory comes back and b's retransmission is taken
            sa = pump(clock, a[0], a[1], big, bigGot, sa[0], sa[1], true, 10_000);
            assertThat(Arrays.equals(big, bigGot)).isTrue();
            a[0].close();
            a[1].close();
            int got = 0;
            // the retransmission timer has backed off meanwhile (the ACKs of dropped segments give no RTT sample,
            // so the backoff stays: Karn, tcp_ack_update_rtt): up to 30 s
            for (int i = 0; i < 30_000 && got < small.length; i++) {
                got += Math.max(0, b[1].read(smallGot, got, small.length - got));
                if (got < small.length) clock.advanceMillis(1);
            }
            System.out.printf("drops: counters %s%n", counters(ns));
            assertThat(got).isEqualTo(small.length);
            assertThat(Arrays.equals(small, smallGot)).as("every byte once, in order").isTrue();
            b[0].close();
            b[1].close();
            srv.close();
            for (int i = 0; i < 100; i++) clock.advanceMillis(1);
            assertThat(mem.allocatedPages()).isZero();
            assertThat(ns.internalErrors()).as("internal errors: %s", ns.lastInternalError()).isZero();
        }
    }

    /** Closing sockets with data queued both ways (unsent, unacknowledged and unread) returns every page. */
    @Test
    void closeReturnsEveryPage() throws Exception {
        VirtualClock clock = new VirtualClock();
        try (NetNamespace ns = NetNamespace.create("tcpmem-close", clock)) {
            TcpMemory mem = ns.extension(TcpProtocol.class).memory();
            TcpConnection[] p = pair(ns);
            TcpConnection w = p[0], r = p[1];
            byte[] data = pattern(1 << 20, 4);
            int[] st = pump(clock, w, r, data, new byte[data.length], 0, 0, false, 20);
            byte[] back = pattern(100_000, 5);
            int n = r.write(back, 0, back.length);
            assertThat(st[0]).isPositive();
            assertThat(n).isPositive();
            assertThat(w.writeQueue.bytes()).as("writer's queue").isPositive();
            assertThat(r.rmemAlloc()).as("reader's queue").isPositive();
            assertThat(mem.allocatedPages()).isGreaterThanOrEqualTo(TcpMemory.pages(w.memQueued() + r.memQueued()));
            w.close();
            r.close();
            for (int i = 0; i < 100; i++) clock.advanceMillis(1);
            assertThat(w.memQueued() + r.memQueued()).isZero();
            assertThat(mem.allocatedPages()).as("every page back").isZero();
            assertThat(ns.internalErrors()).as("internal errors: %s", ns.lastInternalError()).isZero();
        }
    }

    private static String counters(NetNamespace ns) {
        StringBuilder sb = new StringBuilder();
        for (MibCounter c : new MibCounter[] {MibCounter.TcpExtTCPMemoryPressures, MibCounter.TcpExtTCPMemoryPressuresChrono,
                MibCounter.TcpExtPruneCalled, MibCounter.TcpExtRcvPruned, MibCounter.TcpExtTCPRcvCollapsed,
                MibCounter.TcpExtOfoPruned, MibCounter.TcpExtTCPRcvQDrop, MibCounter.TcpRetransSegs}) {
            sb.append(c.field()).append('=').append(ns.mib().get(c)).append(' ');
        }
        return sb.toString().trim();
    }
}
