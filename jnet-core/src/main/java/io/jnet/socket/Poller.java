package io.jnet.socket;

import io.jnet.stack.Clock;
import io.jnet.stack.NetNamespace;
import io.jnet.stack.SystemClock;
import io.jnet.stack.Timer;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;

/**
 * Readiness notification over jnet sockets in the manner of Linux's epoll(7): register any
 * {@link PollableSocket} ({@link TcpSocket}, {@link TcpServerSocket}, {@link UdpSocket}, {@link LocalSocket},
 * {@link LocalServerSocket}, from any namespace)
 * with an interest set of {@link Events} bits, then {@link #poll} for the ones that are ready.
 *
 * <pre>{@code
 * try (Poller poller = Poller.open()) {
 *     poller.register(server, Events.POLLIN);
 *     poller.register(udp, Events.POLLIN | Events.EPOLLET, "dns");
 *     List<Poller.Ready> ready = new ArrayList<>();
 *     while (poller.poll(ready, Duration.ofSeconds(1)) >= 0) {
 *         for (Poller.Ready r : ready) { ... r.socket(), r.events(), r.attachment() ... }
 *         ready.clear();
 *     }
 * }
 * }</pre>
 *
 * <p>Semantics, as epoll's:
 * <ul>
 * <li>Like epoll's ready list, a socket is queued when it is registered or modified and whenever it calls
 * its {@link ReadinessListener}; {@code poll} then asks each queued socket for its
 * {@link PollableSocket#readyEvents() current readiness}, masked with the interest set plus POLLERR and
 * POLLHUP (always reported, as epoll does), and reports the sockets with a non-zero result.</li>
 * <li>Level-triggered (default): a reported socket stays queued, so every poll reports it while it is
 * ready.</li>
 * <li>Edge-triggered ({@link Events#EPOLLET} in the interest set): a reported socket leaves the queue until
 * its next readiness callback, so it is reported once per change (a new datagram, new data, a new
 * connection, write space), not again while the application leaves it ready. As with epoll, a callback
 * for one kind of event may also report other interest bits that are still set.</li>
 * <li>One-shot ({@link Events#EPOLLONESHOT} in the interest set, with or without EPOLLET): a reported
 * socket is disarmed and reported no more, whatever happens to it, until {@link #modify} arms it again;
 * then it is reported at the next poll if it is ready.</li>
 * <li>{@link Events#EPOLLEXCLUSIVE} is refused (UnsupportedOperationException): every poller watching a socket
 * is woken.</li>
 * <li>A closed socket is unregistered by the next poll that meets it and never reported (epoll removes
 * closed descriptors).</li>
 * </ul>
 *
 * <p>Threads: readiness callbacks may come from any thread, including the stack's receive path while it
 * holds a socket's lock; they only queue the registration and signal, under a lock that {@code poll}
 * never holds while calling into a socket. Registration calls and {@link #wakeup} are thread-safe; one or
 * more threads may poll.
 *
 * <p>Busy polling (Linux's {@code net.core.busy_poll} for poll, select and epoll, ep_busy_loop; per epoll
 * instance since Linux 6.9 through the EPIOCSPARAMS ioctl's {@code busy_poll_usecs}): with a busy-poll time
 * above 0, a {@link #poll} that finds nothing ready first spins, with {@link Thread#onSpinWait()}, up to that
 * many microseconds (and never past its own timeout), watching for a readiness callback or a
 * {@link #wakeup}; one that comes within the spin ends the wait without parking the thread, which saves the
 * sleep and the scheduler wake-up at the price of the core. Only when the spin ends with nothing does the
 * poll park for the rest of its timeout. The time is in microseconds; 0, the default as in Linux, turns
 * the spin off. {@link #open(NetNamespace)} starts it at the namespace's {@code net.core.busy_poll} and
 * {@link #setBusyPollUsecs} changes it for this poller. Unlike Linux, which reads the sysctl at every
 * epoll_wait and falls back to it when an epoll's {@code busy_poll_usecs} is 0, jnet copies the sysctl
 * when the poller is opened (as a new socket copies {@code net.core.busy_read} into
 * {@link SocketOption#SO_BUSY_POLL}), so a later write to the sysctl applies to new pollers only and 0 here
 * always means no spin. What the spin watches is the sockets' readiness, that is their queues: on loopback
 * and veth the sender's thread fills them while the poller spins; on TAP and VXLAN devices the device's
 * own reader thread still receives the frames and runs the stack, and the spin only shortens the step from
 * a filled socket queue to the polling thread (Linux's spin instead runs the NIC's NAPI poll itself).
 */
public final class Poller implements AutoCloseable {
    /** Interest bits accepted by {@link #register} and {@link #modify}. */
    private static final int VALID_INTEREST = Events.POLLIN | Events.POLLPRI | Events.POLLOUT | Events.POLLERR
            | Events.POLLHUP | Events.POLLRDHUP | Events.EPOLLET | Events.EPOLLONESHOT;
    /** How a registration is reported rather than what for (Linux's EP_PRIVATE_BITS that jnet knows). */
    private static final int PRIVATE = Events.EPOLLET | Events.EPOLLONESHOT;
    /** Reported whatever the interest set says (epoll: EPOLLERR and EPOLLHUP are always waited for). */
    private static final int ALWAYS = Events.POLLERR | Events.POLLHUP;

    /**
     * One ready socket as reported by {@link #poll}.
     *
     * @param socket the registered socket
     * @param events the ready {@link Events} bits within the interest set (plus POLLERR and POLLHUP)
     * @param attachment the object given at registration (epoll_data), or null
     */
    public record Ready(PollableSocket socket, int events, Object attachment) {
        @Override
        public String toString() { return "Ready[" + socket + " " + Events.toString(events) + "]"; }
    }

    private final ReentrantLock lock = new ReentrantLock();
    private final Condition signalled = lock.newCondition();
    // guarded by lock
    private final Map<PollableSocket, Registration> registrations = new IdentityHashMap<>();
    private final ArrayDeque<Registration> readyList = new ArrayDeque<>();
    private boolean wakeupPending;
    private boolean closed;
    /** Bumped under lock with every signal of {@link #signalled}, so a spinning poll sees it without the lock. */
    private volatile long signals;
    /** Busy-poll time in microseconds (EPIOCSPARAMS busy_poll_usecs); read at each wait. */
    private volatile int busyPollUsecs;
    /** Waits that ended by a signal during the busy-poll spin, without parking (written under lock). */
    private volatile long busyPollWakes;

    /** One registered socket (epoll's epitem); it is the listener added to the socket. */
    private final class Registration implements ReadinessListener {
        final PollableSocket socket;
        // written under lock, read by poll outside it
        volatile int interest;
        volatile Object attachment;
        /** On the ready list (guarded by lock). */
        boolean queued;
        /** Still registered (guarded by lock). */
        boolean active = true;
        /** An {@link Events#EPOLLONESHOT} registration was reported and waits for {@link #modify} (written under lock). */
        volatile boolean disarmed;

        Registration(PollableSocket socket, int interest, Object attachment) {
            this.socket = socket;
            this.interest = interest;
            this.attachment = attachment;
        }

        boolean edgeTriggered() { return (interest & Events.EPOLLET) != 0; }

        /** ep_poll_callback: queue and signal; never blocks beyond the short poller lock. */
        @Override
        public void readinessChanged(PollableSocket s) {
            lock.lock();
            try {
                if (enqueueLocked(this)) signalLocked();
            } finally {
                lock.unlock();
            }
        }
    }

    /** A poll on a virtual clock parked in {@link #signalled}, and the {@link #signals} count it parked at. */
    private record Parked(Poller poller, long seenSignals) { }

    /** Threads parked in a poll on a virtual clock (see {@link #wakeupPending(Thread)}). */
    private static final ConcurrentHashMap<Thread, Parked> PARKED = new ConcurrentHashMap<>();

    /**
     * True when {@code t} is parked in a poll on a virtual clock but was already signalled (a socket became ready,
     * {@link #wakeup}, {@link #close}, or its timeout passed): it is about to run, though the scheduler has not given
     * it a core yet. For tools that drive a namespace on a virtual clock and must not move the clock on while a
     * woken thread has still to finish its work, as {@link io.jnet.stack.SockLock#wakeupPending}; a snapshot.
     */
    public static boolean wakeupPending(Thread t) {
        Parked p = PARKED.get(t);
        return p != null && p.poller.signals != p.seenSignals;
    }

    /**
     * True when {@code t} is parked in a poll on a virtual clock and not signalled yet: it stays parked until a
     * socket becomes ready, {@link #wakeup}, {@link #close} or its timeout. A snapshot, as {@link #wakeupPending}.
     */
    public static boolean parkedInPoll(Thread t) {
        Parked p = PARKED.get(t);
        return p != null && p.poller.signals == p.seenSignals && t.getState() != Thread.State.RUNNABLE;
    }

    /** The clock poll timeouts count on: real time, or a namespace's (virtual) clock. */
    private final Clock clock;
    /** On a virtual clock: ends a poll whose timeout passed in virtual time (null on real time). */
    private final Timer timeoutTimer;

    private Poller(int busyPollUsecs, NetNamespace ns) {
        this.busyPollUsecs = busyPollUsecs;
        this.clock = ns == null ? SystemClock.INSTANCE : ns.clock();
        this.timeoutTimer = ns != null && clock.isVirtual() ? ns.timers().newTimer(this::timeoutPassed) : null;
    }

    /** A new, empty poller (epoll_create1), without busy polling; timeouts on real time. */
    public static Poller open() { return new Poller(0, null); }

    /**
     * A new, empty poller (epoll_create1) whose busy-poll time starts at {@code ns}'s
     * {@code net.core.busy_poll} (microseconds, default 0) and whose poll timeouts count on {@code ns}'s clock
     * (virtual time on a virtual-time namespace: the poll ends when the clock is advanced past its timeout). It
     * may watch sockets of any namespace. On a virtual clock, one thread at a time should wait with a timeout.
     */
    public static Poller open(NetNamespace ns) {
        Objects.requireNonNull(ns, "ns");
        return new Poller(ns.sysctl().busyPoll.intValue(), ns);
    }

    /** The virtual-time timeout of a poll passed: the waiting poll re-checks its deadline. */
    private void timeoutPassed() {
        lock.lock();
        try {
            signalLocked();
        } finally {
            lock.unlock();
        }
    }

    /**
     * Sets how long, in microseconds, a {@link #poll} that finds nothing ready spins before it parks (the
     * EPIOCSPARAMS ioctl's {@code busy_poll_usecs}); 0 turns busy polling off. Takes effect at the next
     * wait, also of a poll in progress.
     *
     * @param usecs microseconds, 0 to {@link Integer#MAX_VALUE} (Linux rejects more than S32_MAX too)
     * @throws IllegalArgumentException when {@code usecs} is negative
     * @throws IllegalStateException when this poller is closed
     */
    public void setBusyPollUsecs(int usecs) {
        if (usecs < 0) throw new IllegalArgumentException("busy poll time must be >= 0 us (0 turns it off): " + usecs);
        lock.lock();
        try {
            ensureOpen();
            busyPollUsecs = usecs;
        } finally {
            lock.unlock();
        }
    }

    /** The busy-poll time in microseconds (EPIOCGPARAMS {@code busy_poll_usecs}); 0 when off. */
    public int busyPollUsecs() { return busyPollUsecs; }

    /**
     * Waits of {@link #poll} that ended during the busy-poll spin, by a readiness callback, {@link #wakeup}
     * or {@link #close}, without parking the thread (for tests, like the socket lock's count of reads woken
     * while spinning).
     */
    public long busyPollWakes() { return busyPollWakes; }

    /**
     * Registers {@code socket} with an interest set (EPOLL_CTL_ADD). Its current readiness is checked by
     * the next poll, so a socket that is already ready is reported at once.
     *
     * @param interest {@link Events} bits: POLLIN, POLLOUT, POLLPRI, POLLRDHUP, optionally with
     *     {@link Events#EPOLLET} and {@link Events#EPOLLONESHOT}; POLLERR and POLLHUP are always reported
     * @throws IllegalArgumentException for unknown bits or when the socket is already registered (EEXIST)
     * @throws UnsupportedOperationException for {@link Events#EPOLLEXCLUSIVE}
     * @throws IllegalStateException when this poller is closed
     */
    public void register(PollableSocket socket, int interest) { register(socket, interest, null); }

    /**
     * As {@link #register(PollableSocket, int)}, with an object returned in each {@link Ready} (epoll_data).
     */
    public void register(PollableSocket socket, int interest, Object attachment) {
        Objects.requireNonNull(socket, "socket");
        checkInterest(interest);
        Registration r = new Registration(socket, interest, attachment);
        lock.lock();
        try {
            ensureOpen();
            if (registrations.containsKey(socket)) throw new IllegalArgumentException("already registered (EEXIST): " + socket);
            registrations.put(socket, r);
        } finally {
            lock.unlock();
        }
        // outside our lock: the socket may call listeners under its own locks (lock order socket -> poller)
        socket.addReadinessListener(r);
        boolean stale;
        lock.lock();
        try {
            stale = !r.active; // unregistered, or the poller closed, meanwhile
            if (!stale && enqueueLocked(r)) signalLocked();
        } finally {
            lock.unlock();
        }
        if (stale) socket.removeReadinessListener(r);
    }

    /**
     * Changes the interest set (EPOLL_CTL_MOD) and re-checks readiness at the next poll (so an
     * edge-triggered socket is reported again if it is ready: epoll's re-arm; a one-shot one is armed again).
     *
     * @throws IllegalArgumentException for unknown bits or when the socket is not registered (ENOENT)
     * @throws UnsupportedOperationException for {@link Events#EPOLLEXCLUSIVE}
     * @throws IllegalStateException when this poller is closed
     */
    public void modify(PollableSocket socket, int interest) {
        checkInterest(interest);
        lock.lock();
        try {
            ensureOpen();
            Registration r = requireRegistration(socket);
            r.interest = interest;
            r.disarmed = false;
            if (enqueueLocked(r)) signalLocked();
        } finally {
            lock.unlock();
        }
    }

    /** As {@link #modify(PollableSocket, int)}, also replacing the attachment. */
    public void modify(PollableSocket socket, int interest, Object attachment) {
        checkInterest(interest);
        lock.lock();
        try {
            ensureOpen();
            Registration r = requireRegistration(socket);
            r.attachment = attachment;
            r.interest = interest;
            r.disarmed = false;
            if (enqueueLocked(r)) signalLocked();
        } finally {
            lock.unlock();
        }
    }

    /**
     * Removes {@code socket} (EPOLL_CTL_DEL); it is not reported afterwards.
     *
     * @throws IllegalArgumentException when it is not registered (ENOENT)
     * @throws IllegalStateException when this poller is closed
     */
    public void unregister(PollableSocket socket) {
        Registration r;
        lock.lock();
        try {
            ensureOpen();
            r = requireRegistration(socket);
            removeLocked(r);
        } finally {
            lock.unlock();
        }
        socket.removeReadinessListener(r);
    }

    /** True when {@code socket} is registered here. */
    public boolean isRegistered(PollableSocket socket) {
        lock.lock();
        try {
            return registrations.containsKey(socket);
        } finally {
            lock.unlock();
        }
    }

    /** Number of registered sockets. */
    public int size() {
        lock.lock();
        try {
            return registrations.size();
        } finally {
            lock.unlock();
        }
    }

    /** {@link #poll(List, int, Duration)} without a limit on the number of sockets reported. */
    public int poll(List<Ready> out, Duration timeout) { return poll(out, Integer.MAX_VALUE, timeout); }

    /**
     * Waits until at least one registered socket is ready, the timeout expires, {@link #wakeup} is called
     * or the thread is interrupted (epoll_wait). Appends one {@link Ready} per ready socket to {@code out}.
     * Sockets left over when {@code maxEvents} is reached stay queued for the next poll; level-triggered
     * sockets reported now are checked again after them, so every ready socket gets its turn.
     *
     * <p>Like {@link java.nio.channels.Selector#select}, an interrupt ends the wait early with the thread's
     * interrupt status left set.
     *
     * @param out receives the ready sockets (not cleared first)
     * @param maxEvents at most this many sockets are reported (epoll's maxevents), at least 1
     * @param timeout how long to wait (on the poller's clock: real time, or the namespace's given to
     *     {@link #open(NetNamespace)}); {@link Duration#ZERO} does not wait; null or negative
     *     waits without limit
     * @return the number of sockets appended to {@code out}; 0 on timeout, wakeup or interrupt
     * @throws IllegalStateException when this poller is closed
     */
    public int poll(List<Ready> out, int maxEvents, Duration timeout) {
        Objects.requireNonNull(out, "out");
        if (maxEvents < 1) throw new IllegalArgumentException("maxEvents < 1: " + maxEvents);
        boolean forever = timeout == null || timeout.isNegative();
        long deadline = forever ? 0 : clock.nanoTime() + saturatedNanos(timeout);
        while (true) {
            List<Registration> batch;
            boolean spun = false; // at most one spin per wait: a spin that ends with nothing is followed by parking
            lock.lock();
            try {
                ensureOpen();
                while (readyList.isEmpty()) {
                    if (wakeupPending) {
                        wakeupPending = false;
                        return 0;
                    }
                    if (Thread.currentThread().isInterrupted()) return 0;
                    long left = forever ? Long.MAX_VALUE : deadline - clock.nanoTime();
                    if (left <= 0) return 0;
                    int usecs = busyPollUsecs;
                    if (usecs > 0 && !spun) {
                        spun = true;
                        long seen = signals;
                        lock.unlock();
                        boolean woke;
                        try {
                            woke = spin(seen, Math.min(usecs * 1000L, left));
                        } finally {
                            lock.lock();
                        }
                        // counted when the wait now ends unparked (another poller may have taken the ready list)
                        if (woke && (!readyList.isEmpty() || wakeupPending || closed)) busyPollWakes++;
                        ensureOpen();
                        continue; // re-check the ready list, the wake-up, the interrupt and the deadline
                    }
                    if (!clock.isVirtual()) {
                        if (forever) signalled.await();
                        else signalled.awaitNanos(left);
                    } else {
                        // virtual time: the clock's advance wakes us; wakeupPending sees a signal not yet run
                        if (!forever) timeoutTimer.scheduleAt(deadline);
                        Thread me = Thread.currentThread();
                        PARKED.put(me, new Parked(this, signals));
                        try {
                            signalled.await();
                        } finally {
                            PARKED.remove(me);
                        }
                    }
                    ensureOpen();
                }
                batch = new ArrayList<>(readyList.size());
                for (Registration r; (r = readyList.poll()) != null; ) {
                    r.queued = false;
                    batch.add(r);
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return 0;
            } finally {
                lock.unlock();
            }
            int n = collect(batch, out, maxEvents);
            if (n > 0) {
                lock.lock();
                try {
                    wakeupPending = false;
                } finally {
                    lock.unlock();
                }
                return n;
            }
            // nothing in the batch was ready: wait again (the deadline still holds)
        }
    }

    /**
     * ep_busy_loop: spins up to {@code nanos} until a signal follows the one numbered {@code seen}; true
     * when one did. An interrupt ends the spin (the caller then sees it).
     */
    private boolean spin(long seen, long nanos) {
        long end = System.nanoTime() + nanos;
        do {
            if (signals != seen) return true;
            Thread.onSpinWait();
        } while (System.nanoTime() - end < 0 && !Thread.currentThread().isInterrupted());
        return signals != seen;
    }

    /** ep_send_events: asks each queued socket for its readiness, outside the lock. */
    private int collect(List<Registration> batch, List<Ready> out, int maxEvents) {
        int n = 0;
        List<Registration> requeue = new ArrayList<>();
        List<Registration> gone = null;
        int i = 0;
        for (; i < batch.size() && n < maxEvents; i++) {
            Registration r = batch.get(i);
            if (r.socket.isClosed()) {
                if (gone == null) gone = new ArrayList<>();
                gone.add(r);
                continue;
            }
            if (r.disarmed) continue;
            int interest = r.interest;
            int ev = r.socket.readyEvents() & ((interest & ~PRIVATE) | ALWAYS);
            if (ev == 0) continue;
            if ((interest & Events.EPOLLONESHOT) != 0) {
                if (!disarm(r)) continue; // another poll reported it first
            } else if ((interest & Events.EPOLLET) == 0) {
                requeue.add(r);
            }
            out.add(new Ready(r.socket, ev, r.attachment));
            n++;
        }
        lock.lock();
        try {
            // not examined (maxEvents reached): back to the front, in order
            for (int k = batch.size() - 1; k >= i; k--) {
                Registration r = batch.get(k);
                if (r.active && !r.queued) {
                    r.queued = true;
                    readyList.addFirst(r);
                }
            }
            for (Registration r : requeue) enqueueLocked(r);
            if (gone != null) {
                for (Registration r : gone) {
                    if (r.active && registrations.get(r.socket) == r) removeLocked(r);
                }
            }
        } finally {
            lock.unlock();
        }
        if (gone != null) for (Registration r : gone) r.socket.removeReadinessListener(r);
        return n;
    }

    /**
     * Makes the current or, if none is in progress, the next {@link #poll} return at once (with 0 unless
     * sockets are ready), like {@link java.nio.channels.Selector#wakeup}. Callable from any thread.
     */
    public void wakeup() {
        lock.lock();
        try {
            wakeupPending = true;
            signalLocked();
        } finally {
            lock.unlock();
        }
    }

    /** True once {@link #close} ran. */
    public boolean isClosed() {
        lock.lock();
        try {
            return closed;
        } finally {
            lock.unlock();
        }
    }

    /**
     * Unregisters every socket (removing this poller's listeners) and wakes pollers, which then throw
     * IllegalStateException. Idempotent.
     */
    @Override
    public void close() {
        List<Registration> all;
        lock.lock();
        try {
            if (closed) return;
            closed = true;
            all = new ArrayList<>(registrations.values());
            for (Registration r : all) r.active = false;
            registrations.clear();
            readyList.clear();
            signalLocked();
        } finally {
            lock.unlock();
        }
        if (timeoutTimer != null) timeoutTimer.delete();
        for (Registration r : all) r.socket.removeReadinessListener(r);
    }

    // ---- helpers (lock held where the name says so) ------------------------------------------------

    /** Wakes waiting pollers, parked or spinning. */
    private void signalLocked() {
        signals++;
        signalled.signalAll();
    }

    /** Disarms a one-shot registration about to be reported; false when it was disarmed already or is gone. */
    private boolean disarm(Registration r) {
        lock.lock();
        try {
            if (r.disarmed || !r.active) return false;
            r.disarmed = true;
            return true;
        } finally {
            lock.unlock();
        }
    }

    /** Adds {@code r} to the ready list unless already there, gone or disarmed; true when added. */
    private boolean enqueueLocked(Registration r) {
        if (!r.active || r.queued || r.disarmed) return false;
        r.queued = true;
        readyList.add(r);
        return true;
    }

    private void removeLocked(Registration r) {
        r.active = false;
        registrations.remove(r.socket);
        if (r.queued) {
            readyList.remove(r);
            r.queued = false;
        }
    }

    private Registration requireRegistration(PollableSocket socket) {
        Registration r = registrations.get(Objects.requireNonNull(socket, "socket"));
        if (r == null) throw new IllegalArgumentException("not registered (ENOENT): " + socket);
        return r;
    }

    private void ensureOpen() {
        if (closed) throw new IllegalStateException("poller closed");
    }

    private static void checkInterest(int interest) {
        if ((interest & Events.EPOLLEXCLUSIVE) != 0)
            throw new UnsupportedOperationException("EPOLLEXCLUSIVE is not supported: jnet's sockets wake every poller watching them");
        if ((interest & ~VALID_INTEREST) != 0)
            throw new IllegalArgumentException("unknown event bits: 0x" + Integer.toHexString(interest & ~VALID_INTEREST));
    }

    private static long saturatedNanos(Duration d) {
        try {
            return d.toNanos();
        } catch (ArithmeticException e) {
            return Long.MAX_VALUE / 2;
        }
    }

    @Override
    public String toString() {
        lock.lock();
        try {
            return "Poller[" + registrations.size() + " registered, " + readyList.size() + " queued" + (closed ? ", closed" : "") + "]";
        } finally {
            lock.unlock();
        }
    }
}
