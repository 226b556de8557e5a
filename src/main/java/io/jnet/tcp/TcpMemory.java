package io.jnet.tcp;

import io.jnet.stack.Clock;
import io.jnet.stack.Mib;
import io.jnet.stack.MibCounter;
import io.jnet.stack.Sysctl;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The TCP memory of one namespace, in pages of {@link #PAGE_SIZE} bytes, against {@code net.ipv4.tcp_mem}
 * (min, pressure, max), as Linux's tcp_memory_allocated and tcp_memory_pressure (net/core/sock.c
 * __sk_mem_raise_allocated, __sk_mem_reduce_allocated; net/ipv4/tcp.c tcp_enter_memory_pressure,
 * tcp_leave_memory_pressure).
 *
 * <p>Every connection's send queue (the write queue's truesize, Linux sk_wmem_queued) and receive queues (receive
 * and out-of-order queues' truesize, Linux sk_rmem_alloc) are charged here through the connection's forward
 * allocation ({@link #schedule}, {@link #reclaim}; Linux sk_forward_alloc): a connection takes whole pages from
 * the shared count when its queues outgrow what it holds, and gives back whole pages once a page or more of
 * what it holds is unused, so the shared atomic counter is touched only when a connection's holding changes by
 * a page or more.
 *
 * <p>Memory pressure is entered when the count rises above tcp_mem[1] (TcpExtTCPMemoryPressures counts each
 * entry) and left when it falls below tcp_mem[0] (TcpExtTCPMemoryPressuresChrono accumulates the milliseconds
 * spent under pressure; read while under pressure, it includes the time so far). Above tcp_mem[2] (the hard
 * limit) no connection gets more pages, except the minimum Linux guarantees each (one send queue of
 * tcp_wmem[0], a receive queue of tcp_rmem[0]). {@link #underPressure()} is what buffer owners check to shrink
 * themselves (send buffer moderation, window clamping, receive queue pruning, no autotuning).
 *
 * <p>net.ipv4.tcp_mem's default is Linux's tcp_init_mem with the JVM's maximum heap standing for the machine's
 * free buffer pages ({@link io.jnet.stack.Sysctls#defaultTcpMem()}).
 *
 * <p>Thread-safe: the count is an atomic, the pressure state a compare-and-set on the time it was entered.
 */
public final class TcpMemory {
    /** Bytes per page (Linux PAGE_SIZE on x86-64), the unit of net.ipv4.tcp_mem and of the count. */
    public static final int PAGE_SIZE = 4096;
    static final int PAGE_SHIFT = 12;

    /** What a charge is for (Linux SK_MEM_SEND, SK_MEM_RECV). */
    static final int SEND = 0, RECV = 1;

    private final Sysctl tcpMem;
    private final Sysctl tcpWmem;
    private final Sysctl tcpRmem;
    private final Mib mib;
    private final Clock clock;
    private final AtomicLong allocated = new AtomicLong();
    /** When pressure was entered (clock ms + 1, never 0), 0 when not under pressure (Linux tcp_memory_pressure). */
    private final AtomicLong pressureSince = new AtomicLong();

    TcpMemory(Sysctl tcpMem, Sysctl tcpWmem, Sysctl tcpRmem, Mib mib, Clock clock) {
        this.tcpMem = tcpMem;
        this.tcpWmem = tcpWmem;
        this.tcpRmem = tcpRmem;
        this.mib = mib;
        this.clock = clock;
        mib.addLive(MibCounter.TcpExtTCPMemoryPressuresChrono, this::pressureMillisSoFar);
    }

    /** Pages charged to TCP in this namespace now (Linux tcp_memory_allocated; /proc/net/sockstat "TCP: mem"). */
    public long allocatedPages() { return allocated.get(); }

    /** True while under memory pressure (Linux tcp_under_memory_pressure / tcp_memory_pressure). */
    public boolean underPressure() { return pressureSince.get() != 0; }

    /** True when the count is at or above tcp_mem[0], where Linux stops growing buffers (tcp_should_expand_sndbuf). */
    boolean aboveMin() { return allocated.get() >= tcpMem.intValue(0); }

    /** Pages needed for {@code bytes} (Linux sk_mem_pages). */
    static long pages(long bytes) { return (bytes + PAGE_SIZE - 1) >> PAGE_SHIFT; }

    /**
     * Makes room in {@code c}'s forward allocation for {@code size} more bytes of queue (Linux sk_wmem_schedule,
     * sk_rmem_schedule): nothing to do while what it holds covers its queues plus {@code size}; else the
     * missing pages are taken from the namespace's count (Linux __sk_mem_schedule).
     *
     * @param kind {@link #SEND} or {@link #RECV}
     * @return false when the pages were refused (over the hard limit, or under pressure beyond the socket's
     *     share); a send refusal moderates the send buffer (sk_stream_moderate_sndbuf)
     */
    boolean schedule(TcpConnection c, long size, int kind) {
        long need = c.memQueued() + size - ((long) c.memPages << PAGE_SHIFT);
        if (need <= 0) return true;
        long amt = pages(need);
        if (!raise(c, amt, kind)) return false;
        c.memPages += (int) amt;
        return true;
    }

    /**
     * Takes whatever pages {@code c}'s queues need now, never failing (Linux sk_forced_mem_schedule): for data
     * that must be kept (the only in-order segment, the first segment of an empty send queue, a collapse's copy).
     */
    void forceSchedule(TcpConnection c, long size) {
        long need = c.memQueued() + size - ((long) c.memPages << PAGE_SHIFT);
        if (need <= 0) return;
        long amt = pages(need);
        long now = allocated.addAndGet(amt);
        if (now > tcpMem.intValue(1)) enterPressure();
        c.memPages += (int) amt;
    }

    /**
     * Gives back the whole pages of {@code c}'s forward allocation its queues no longer use, when there is at
     * least one (Linux sk_mem_reclaim); pressure is left when the count falls below tcp_mem[0].
     */
    void reclaim(TcpConnection c) {
        long free = ((long) c.memPages << PAGE_SHIFT) - c.memQueued();
        if (free < PAGE_SIZE) return;
        int amt = (int) (free >> PAGE_SHIFT);
        c.memPages -= amt;
        reduce(amt);
    }

    /** Gives back everything {@code c} holds; its queues must be empty (socket destruction). */
    void releaseAll(TcpConnection c) {
        int amt = c.memPages;
        if (amt == 0) return;
        c.memPages = 0;
        reduce(amt);
    }

    /** Linux __sk_mem_raise_allocated for {@code amt} pages. */
    private boolean raise(TcpConnection c, long amt, int kind) {
        long now = allocated.addAndGet(amt);
        if (now <= tcpMem.intValue(0)) {
            leavePressure();
            return true;
        }
        if (now > tcpMem.intValue(1)) enterPressure();
        if (now <= tcpMem.intValue(2)) {
            // the minimum buffer every socket keeps, pressure or not
            if (kind == RECV ? c.rmemAlloc() < tcpRmem.intValue(0) : c.writeQueue.bytes() < tcpWmem.intValue(0)) {
                return true;
            }
            if (!underPressure()) return true;
            // under pressure, a socket may grow while it holds less than its share of the hard limit (queues plus
            // forward allocation, before this raise)
            long sockets = Math.max(1, c.tcp.connectionCount());
            if ((long) tcpMem.intValue(2) > sockets * c.memPages) {
                return true;
            }
        }
        if (kind == SEND) moderateSndbuf(c);
        allocated.addAndGet(-amt);
        return false;
    }

    /** Linux __sk_mem_reduce_allocated. */
    private void reduce(long amt) {
        long now = allocated.addAndGet(-amt);
        if (now < tcpMem.intValue(0)) leavePressure();
    }

    /** Linux tcp_enter_memory_pressure: TcpExtTCPMemoryPressures once per entry. */
    void enterPressure() {
        if (pressureSince.get() != 0) return;
        if (pressureSince.compareAndSet(0, clock.nanoTime() / 1_000_000L + 1)) mib.inc(MibCounter.TcpExtTCPMemoryPressures);
    }

    /** Linux tcp_leave_memory_pressure: adds the milliseconds spent to TcpExtTCPMemoryPressuresChrono. */
    void leavePressure() {
        if (pressureSince.get() == 0) return;
        long since = pressureSince.getAndSet(0);
        if (since != 0) mib.add(MibCounter.TcpExtTCPMemoryPressuresChrono, clock.nanoTime() / 1_000_000L + 1 - since);
    }

    /** The milliseconds of the pressure still going on (0 when none), for readers of the chrono counter. */
    private long pressureMillisSoFar() {
        long since = pressureSince.get();
        return since == 0 ? 0 : Math.max(0, clock.nanoTime() / 1_000_000L + 1 - since);
    }

    /**
     * Linux sk_stream_moderate_sndbuf: unless SO_SNDBUF fixed it, the send buffer shrinks to half of what is
     * queued, at least SOCK_MIN_SNDBUF.
     */
    static void moderateSndbuf(TcpConnection c) {
        if (c.sndbufLocked) return;
        long val = Math.min(c.sndbuf, c.writeQueue.bytes() >> 1);
        c.sndbuf = (int) Math.max(val, TcpSocketOptions.SOCK_MIN_SNDBUF);
    }
}
