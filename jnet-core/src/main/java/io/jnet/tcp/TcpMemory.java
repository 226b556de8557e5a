package io.jnet.tcp;

import io.jnet.stack.Clock;
import io.jnet.stack.Mib;
import io.jnet.stack.MibCounter;
import io.jnet.stack.Sysctl;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicLongArray;

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
 * what it holds is unused. Those changes go first to a reserve of the calling thread's stripe (Linux keeps one per
 * CPU, per_cpu_fw_alloc, flushed at net.core.mem_pcpu_rsv = 256 pages): the shared count moves only when a
 * stripe's reserve reaches {@link #reserve()} pages either way, so busy connections on many threads do not pull
 * one cache line between their cores for every segment. As in Linux, the limits are checked against the shared
 * count alone; the reserve is kept below a sixty-fourth of tcp_mem[0] over all stripes, and is 0 (every change
 * goes to the shared count) when tcp_mem[0] is below 64 pages per stripe.
 *
 * <p>Memory pressure is entered when the count rises above tcp_mem[1] (TcpExtTCPMemoryPressures counts each
 * entry) and left when it falls below tcp_mem[0] (TcpExtTCPMemoryPressuresChrono accumulates the milliseconds
 * spent under pressure; read while under pressure, it includes the time so far). Above tcp_mem[0] a connection
 * still gets pages while its send queue is below tcp_wmem[0] or its receive queues below tcp_rmem[0], and, under
 * pressure, while it holds less than tcp_mem[2] divided by the number of connections; above tcp_mem[2] (the hard
 * limit) it gets none, except the forced charges that keep every connection moving (the first segment of an
 * empty send queue, an in-order segment for an empty receive queue, a FIN), as Linux's sk_forced_mem_schedule.
 * {@link #underPressure()} is what buffer owners check to shrink themselves (send buffer moderation, window
 * clamping, receive queue pruning, no autotuning).
 *
 * <p>net.ipv4.tcp_mem's default is Linux's tcp_init_mem with the JVM's maximum heap standing for the machine's
 * free buffer pages ({@link io.jnet.stack.Sysctls#defaultTcpMem()}).
 *
 * <p>Thread-safe: the count and the stripes' reserves are atomics; the pressure state (the time it was entered)
 * changes under this object's lock, which readers of the chrono counter take too; a connection's own holding ({@link TcpConnection#memPages}) is guarded by its socket lock,
 * under which {@link #schedule}, {@link #forceSchedule} and {@link #reclaim} are called.
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
    /** Stripes of per-thread reserves: twice the processors, a power of two, 2 to 16 (as {@link Mib}). */
    private static final int STRIPES =
            Math.min(16, Integer.highestOneBit(Math.max(1, Runtime.getRuntime().availableProcessors())) * 2);
    /** Linux's sysctl_mem_pcpu_rsv default: 1 MiB in pages. */
    static final int MAX_RESERVE = 256;
    /** Per stripe, pages charged or returned not yet moved to {@link #allocated}; one 64-byte line apart. */
    private final AtomicLongArray local = new AtomicLongArray(STRIPES * 8);
    /** When pressure was entered (clock ms + 1, never 0), 0 when not under pressure (Linux tcp_memory_pressure). */
    private volatile long pressureSince;

    TcpMemory(Sysctl tcpMem, Sysctl tcpWmem, Sysctl tcpRmem, Mib mib, Clock clock) {
        this.tcpMem = tcpMem;
        this.tcpWmem = tcpWmem;
        this.tcpRmem = tcpRmem;
        this.mib = mib;
        this.clock = clock;
        mib.addLive(MibCounter.TcpExtTCPMemoryPressuresChrono, this::pressureMillisSoFar);
        tcpMem.onWrite(this::flushReserves); // the reserve's size follows tcp_mem[0]: start from the exact count
    }

    /** Moves every stripe's reserve to the shared count. */
    private void flushReserves() {
        for (int s = 0; s < STRIPES; s++) {
            long l = local.getAndSet(s << 3, 0);
            if (l != 0) allocated.addAndGet(l);
        }
    }

    /**
     * Pages charged to TCP in this namespace now (Linux tcp_memory_allocated; /proc/net/sockstat "TCP: mem"),
     * the stripes' reserves included (exact when no charge is under way; Linux's sockstat leaves its per-CPU
     * reserves out).
     */
    public long allocatedPages() {
        long sum = allocated.get();
        for (int s = 0; s < STRIPES; s++) sum += local.get(s << 3);
        return sum;
    }

    /**
     * Pages a stripe's reserve holds at most before it moves to the shared count: min(256, tcp_mem[0] / (64 *
     * stripes)), so that all reserves together stay below a sixty-fourth of tcp_mem[0].
     */
    int reserve() { return Math.min(MAX_RESERVE, tcpMem.intValue(0) / (64 * STRIPES)); }

    /** Linux sk_memory_allocated_add / _sub through the calling thread's stripe; returns the shared count. */
    private long add(long amt) {
        int rsv = reserve();
        if (rsv == 0) return allocated.addAndGet(amt);
        int slot = ((int) Thread.currentThread().threadId() & (STRIPES - 1)) << 3;
        long l = local.addAndGet(slot, amt);
        if (l < rsv && l > -rsv) return allocated.get();
        return allocated.addAndGet(local.getAndSet(slot, 0));
    }

    /** True while under memory pressure (Linux tcp_under_memory_pressure / tcp_memory_pressure). */
    public boolean underPressure() { return pressureSince != 0; }

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
        long now = add(amt);
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
        long now = add(amt);
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
        add(-amt);
        return false;
    }

    /** Linux __sk_mem_reduce_allocated. */
    private void reduce(long amt) {
        long now = add(-amt);
        if (now < tcpMem.intValue(0)) leavePressure();
    }

    /** Linux tcp_enter_memory_pressure: TcpExtTCPMemoryPressures once per entry. */
    void enterPressure() {
        if (pressureSince != 0) return;
        synchronized (this) {
            if (pressureSince != 0) return;
            pressureSince = clock.nanoTime() / 1_000_000L + 1;
            mib.inc(MibCounter.TcpExtTCPMemoryPressures);
        }
    }

    /** Linux tcp_leave_memory_pressure: adds the milliseconds spent to TcpExtTCPMemoryPressuresChrono. */
    void leavePressure() {
        if (pressureSince == 0) return;
        synchronized (this) {
            long since = pressureSince;
            if (since == 0) return;
            // counted before the state clears, under the lock a reader takes: a reading never goes down
            mib.add(MibCounter.TcpExtTCPMemoryPressuresChrono, Math.max(0, clock.nanoTime() / 1_000_000L + 1 - since));
            pressureSince = 0;
        }
    }

    /** The milliseconds of the pressure still going on (0 when none), for readers of the chrono counter. */
    private synchronized long pressureMillisSoFar() {
        long since = pressureSince;
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
