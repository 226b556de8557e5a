package io.jnet.drill.jnet;

import io.jnet.arp.NeighbourTable;
import io.jnet.drill.target.Syscalls;
import io.jnet.drill.target.Target;
import io.jnet.ip.Ipv4Layer;
import io.jnet.stack.NetNamespace;
import io.jnet.stack.VirtualClock;
import io.jnet.wire.Ipv4;
import java.net.Inet4Address;
import java.util.Objects;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A script's jnet: a fresh namespace on a {@link VirtualClock} with one device, {@code tun0}, whose far end is the
 * runner. The stack has {@code local/16} on it and reaches {@code remote} through {@code gateway}, a permanent
 * neighbour at the runner's MAC address (so no ARP crosses the wire, as on packetdrill's TUN device).
 *
 * <p>Time moves only in {@link #waitUntil} and {@link #nextOutbound}, one timer at a time, and only once every
 * system call in progress is parked: a call woken by a packet or a timer finishes its work (and sends what it
 * sends) at the time that woke it. Each step of the clock goes straight to the next thing that can happen: the
 * earliest timer of any wheel on the clock, or the earliest timeout of a call parked on the clock, never past the
 * target time; so a script that waits seconds plays in milliseconds.
 */
public final class JnetTarget implements Target {
    private static final AtomicInteger SEQ = new AtomicInteger();
    /** Real time a parked call must stay parked, unchanged, before the stack counts as settled (ns). */
    private static final long SETTLE_NANOS = 200_000;

    private final VirtualClock clock = new VirtualClock();
    private final long startNanos = clock.nanoTime();
    private final NetNamespace ns;
    private final WireDevice wire;
    private final JnetSyscalls syscalls;
    private final Inet4Address local, remote;

    /**
     * @param local the stack's address (packetdrill's {@code --local_ip})
     * @param remote the runner's address ({@code --remote_ip})
     * @param gateway the next hop to {@code remote}, in {@code local}'s /16 ({@code --gateway_ip})
     * @param mtu the device's MTU in bytes ({@code --mtu})
     */
    public JnetTarget(Inet4Address local, Inet4Address remote, Inet4Address gateway, int mtu) {
        this.local = Objects.requireNonNull(local, "local");
        this.remote = Objects.requireNonNull(remote, "remote");
        ns = NetNamespace.create("drill-" + SEQ.incrementAndGet(), clock);
        try {
            wire = new WireDevice("tun0", mtu, clock);
            ns.attach(wire);
            ns.addAddress("tun0", local.getHostAddress() + "/16");
            int gw = Ipv4.fromInet(gateway);
            ns.extension(NeighbourTable.class).addPermanent(ns.requireInterface("tun0"), gw, wire.runnerMac());
            if (!sameSlash16(local, remote)) {
                ns.extension(Ipv4Layer.class).addRoute(remote.getHostAddress() + "/32", gateway.getHostAddress(), "tun0");
            }
            syscalls = new JnetSyscalls(ns);
        } catch (RuntimeException e) {
            ns.close();
            throw e;
        }
    }

    private static boolean sameSlash16(Inet4Address a, Inet4Address b) {
        return (Ipv4.fromInet(a) >>> 16) == (Ipv4.fromInet(b) >>> 16);
    }

    @Override public String name() { return "jnet"; }
    @Override public Inet4Address localAddress() { return local; }
    @Override public Inet4Address remoteAddress() { return remote; }
    @Override public Syscalls syscalls() { return syscalls; }

    /** The namespace (for tests and for reports of its counters). */
    public NetNamespace namespace() { return ns; }

    @Override
    public long nowMicros() { return (clock.nanoTime() - startNanos) / 1000; }

    @Override
    public void waitUntil(long micros) throws InterruptedException {
        settle();
        while (nowMicros() < micros) {
            step(micros);
            settle();
        }
    }

    @Override
    public boolean awaitCall(Thread caller, java.util.concurrent.Future<?> done, long realMicros) throws InterruptedException {
        long giveUp = System.nanoTime() + 10_000_000_000L;
        while (!done.isDone()) {
            if (syscalls.inCall(caller)) {
                Thread.State st = caller.getState();
                if (st == Thread.State.WAITING || st == Thread.State.TIMED_WAITING) {
                    settle();
                    return done.isDone();
                }
            }
            if (System.nanoTime() > giveUp) throw new IllegalStateException("a system call kept running for 10 s of real time");
            Thread.sleep(0, 50_000);
        }
        settle();
        return true;
    }

    @Override
    public void inject(byte[] ipPacket) throws java.io.IOException {
        try {
            settle();
            wire.inject(ipPacket);
            settle();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new java.io.InterruptedIOException("interrupted while the stack settled");
        }
    }

    @Override
    public Outbound nextOutbound(long deadlineMicros) throws InterruptedException {
        settle();
        while (true) {
            WireDevice.Sent s = wire.poll();
            if (s != null) return new Outbound(s.packet(), (s.nanos() - startNanos) / 1000);
            if (nowMicros() >= deadlineMicros) return null;
            step(deadlineMicros);
            settle();
        }
    }

    /**
     * Moves the clock straight to the next thing that can happen, never past {@code limitMicros}: the earliest timer
     * of any wheel on the clock (a poll's timeout is one) or the earliest deadline of a call parked in
     * {@link VirtualClock#parkUntil} (a socket timeout). A call parked without a deadline waits for a packet, a timer
     * or the limit. Called only once the stack has settled, so every call woken earlier has run; but a call parked
     * outside a socket wait or a poll (for a lock) may be about to run, so then the step is 1 ms at
     * most, as before.
     */
    private void step(long limitMicros) {
        long limit = startNanos + limitMicros * 1000;
        long now = clock.nanoTime();
        long next = clock.nextTimerDeadline();
        long sleeper = clock.nextSleeperDeadline();
        if (sleeper - now > 0) next = Math.min(next, sleeper); // one at or before now was woken already
        // a call parked elsewhere (for a lock, say) may have been let go and not run yet: 1 ms at a time then
        if (!syscalls.callersWaitForTime()) next = Math.min(next, now + 1_000_000L);
        long to = Math.min(Math.max(next, now + 1), limit);
        if (to > now) clock.advanceNanos(to - now);
    }

    /**
     * Waits (in real time) until no system call in progress is running: each is parked and nothing changed for
     * {@link #SETTLE_NANOS}. When no call is in progress, returns as soon as every thread that made one is idle
     * again (one that has just returned may still be reading the time it returned at).
     */
    private void settle() throws InterruptedException {
        long deadline = System.nanoTime() + 10_000_000_000L; // a call running for 10 s of real time is a bug
        while (true) {
            long e = syscalls.callsEntered(), r = syscalls.callsReturned(), tx = wire.transmitted();
            if (e == r) {
                // a call that returned hands its result and the time over before the clock moves on
                if (syscalls.callersIdle()) return;
                if (System.nanoTime() > deadline) throw new IllegalStateException("a caller kept running for 10 s of real time");
                Thread.yield();
                continue;
            }
            Thread.sleep(0, (int) Math.min(SETTLE_NANOS, 999_999));
            long stable = System.nanoTime() + SETTLE_NANOS;
            boolean same = true;
            while (System.nanoTime() < stable) {
                if (syscalls.callsEntered() != e || syscalls.callsReturned() != r || wire.transmitted() != tx
                        || !syscalls.callersParked()) {
                    same = false;
                    break;
                }
                Thread.onSpinWait();
            }
            if (same) return;
            if (System.nanoTime() > deadline) throw new IllegalStateException("a system call kept running for 10 s of real time");
        }
    }

    @Override
    public void sysctl(String name, String value) {
        try {
            ns.sysctl().lookup(name);
        } catch (IllegalArgumentException unknown) {
            throw new UnsupportedOperationException("jnet has no sysctl " + name);
        }
        ns.sysctl().set(name, value);
    }

    @Override
    public void close() {
        syscalls.closeAll();
        ns.close();
    }
}
