package io.jnet.nio;

import io.jnet.socket.Poller;
import io.jnet.stack.NetNamespace;
import java.io.IOException;
import java.nio.channels.ClosedSelectorException;
import java.nio.channels.IllegalSelectorException;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.nio.channels.spi.AbstractSelectableChannel;
import java.nio.channels.spi.AbstractSelectionKey;
import java.nio.channels.spi.AbstractSelector;
import java.time.Duration;
import java.util.AbstractSet;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashSet;
import java.util.Iterator;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * A {@link Selector} over jnet channels, on a {@link Poller}: readiness is pushed by the sockets (their
 * readiness callbacks queue the registration, as epoll's ready list), so a {@code select} costs in proportion
 * to the channels that became ready, not to the channels registered.
 *
 * <p>Semantics as {@link Selector}'s: level-triggered; a key already in the selected-key set has its ready set
 * OR-ed with the new one, another has it replaced, and {@code select} returns the number of keys whose ready
 * sets changed; keys cancelled are deregistered at the start and the end of each selection; a key with an
 * empty interest set is not watched (as the JDK removes the descriptor from epoll), so a hang-up on a socket
 * nobody asks about does not make select return. An interrupt of the selecting thread makes select return at
 * once with the interrupt status set, as {@link #wakeup()} does. Any jnet channel may be registered, of any
 * namespace and from any jnet provider; a channel of another provider (the kernel's) is refused with
 * {@link IllegalSelectorException}, as the JDK's selectors refuse channels not theirs.
 */
final class JnetSelector extends AbstractSelector {
    private final Poller poller;
    private final Set<SelectionKey> keys = ConcurrentHashMap.newKeySet();
    private final Set<SelectionKey> publicKeys = Collections.unmodifiableSet(keys);
    private final Set<SelectionKey> selectedKeys = new HashSet<>();
    private final Set<SelectionKey> publicSelectedKeys = new UngrowableSet(selectedKeys);
    private final List<Poller.Ready> ready = new ArrayList<>();
    private boolean inSelect; // guarded by this

    /** A selector whose timeouts count on {@code ns}'s clock (null: real time). */
    JnetSelector(JnetSelectorProvider provider, NetNamespace ns) {
        super(provider);
        this.poller = ns == null ? Poller.open() : Poller.open(ns);
    }

    private void ensureOpen() {
        if (!isOpen()) throw new ClosedSelectorException();
    }

    @Override
    public Set<SelectionKey> keys() {
        ensureOpen();
        return publicKeys;
    }

    @Override
    public Set<SelectionKey> selectedKeys() {
        ensureOpen();
        return publicSelectedKeys;
    }

    @Override
    protected SelectionKey register(AbstractSelectableChannel ch, int ops, Object att) {
        if (!(ch instanceof PollableChannel)) throw new IllegalSelectorException();
        ensureOpen();
        JnetSelectionKey k = new JnetSelectionKey(ch, this);
        k.attach(att);
        keys.add(k);
        try {
            k.interestOps(ops);
        } catch (RuntimeException e) {
            keys.remove(k);
            throw e;
        }
        return k;
    }

    /** Applies an interest set to the poller (called under the key's lock). */
    void interestChanged(JnetSelectionKey k, int ops) {
        PollableChannel ch = k.pollableChannel();
        synchronized (k) {
            if (!k.isValid() || !isOpen()) return;
            try {
                if (ops == 0) {
                    if (k.inPoller) {
                        poller.unregister(ch.pollable());
                        k.inPoller = false;
                    }
                } else if (k.inPoller) {
                    poller.modify(ch.pollable(), ch.pollInterest(ops), k);
                } else {
                    poller.register(ch.pollable(), ch.pollInterest(ops), k);
                    k.inPoller = true;
                }
            } catch (IllegalStateException closedPoller) {
                if (isOpen()) throw closedPoller;
            }
        }
    }

    @Override
    public int selectNow() throws IOException {
        return lockAndSelect(0, true);
    }

    @Override
    public int select(long timeout) throws IOException {
        if (timeout < 0) throw new IllegalArgumentException("Negative timeout");
        return lockAndSelect(timeout, false);
    }

    @Override
    public int select() throws IOException {
        return lockAndSelect(0, false);
    }

    /** One selection; {@code timeoutMillis} 0 means no limit unless {@code now}. */
    private int lockAndSelect(long timeoutMillis, boolean now) throws IOException {
        synchronized (this) {
            ensureOpen();
            if (inSelect) throw new IllegalStateException("select in progress");
            inSelect = true;
            try {
                synchronized (publicSelectedKeys) {
                    return doSelect(timeoutMillis, now);
                }
            } finally {
                inSelect = false;
            }
        }
    }

    private int doSelect(long timeoutMillis, boolean now) {
        processDeregisterQueue();
        Duration timeout = now ? Duration.ZERO : timeoutMillis == 0 ? null : Duration.ofMillis(timeoutMillis);
        ready.clear();
        begin(); // an interrupt wakes the poll up (AbstractSelector's interruptor calls wakeup)
        try {
            poller.poll(ready, timeout);
        } catch (IllegalStateException closed) {
            ready.clear(); // closed by another thread meanwhile
        } finally {
            end();
        }
        ensureOpen();
        processDeregisterQueue();
        // as the JDK's selectors: one wait, then the keys whose ready sets changed (possibly none)
        int updated = 0;
        for (int i = 0, n = ready.size(); i < n; i++) {
            Poller.Ready r = ready.get(i);
            JnetSelectionKey k = (JnetSelectionKey) r.attachment();
            if (k == null || !k.isValid()) continue;
            int ops = k.pollableChannel().readyOps(r.events(), k.rawInterestOps());
            if (ops == 0) continue;
            if (selectedKeys.contains(k)) {
                int old = k.rawReadyOps();
                if ((ops & ~old) != 0) {
                    k.setReadyOps(old | ops);
                    updated++;
                }
            } else {
                k.setReadyOps(ops);
                selectedKeys.add(k);
                updated++;
            }
        }
        ready.clear();
        return updated;
    }

    /** Deregisters the cancelled keys (AbstractSelector's cancelled-key set). */
    private void processDeregisterQueue() {
        Set<SelectionKey> cancelled = cancelledKeys();
        synchronized (cancelled) {
            if (cancelled.isEmpty()) return;
            for (Iterator<SelectionKey> it = cancelled.iterator(); it.hasNext(); ) {
                JnetSelectionKey k = (JnetSelectionKey) it.next();
                it.remove();
                synchronized (k) {
                    if (k.inPoller) {
                        poller.unregister(k.pollableChannel().pollable());
                        k.inPoller = false;
                    }
                }
                keys.remove(k);
                selectedKeys.remove(k);
                deregister(k);
            }
        }
    }

    @Override
    public Selector wakeup() {
        try {
            poller.wakeup();
        } catch (IllegalStateException closed) {
            // a closed selector's wakeup does nothing
        }
        return this;
    }

    @Override
    protected void implCloseSelector() throws IOException {
        wakeup();
        synchronized (this) {
            synchronized (publicSelectedKeys) {
                processDeregisterQueue();
                for (SelectionKey k : new ArrayList<>(keys)) {
                    JnetSelectionKey jk = (JnetSelectionKey) k;
                    synchronized (jk) {
                        jk.inPoller = false;
                    }
                    keys.remove(k);
                    deregister((AbstractSelectionKey) k);
                    k.cancel();
                }
                selectedKeys.clear();
                synchronized (cancelledKeys()) {
                    cancelledKeys().clear();
                }
                poller.close();
            }
        }
    }

    @Override
    public String toString() { return "JnetSelector[" + keys.size() + " keys]"; }

    /** The selected-key set as the program sees it: removal allowed, addition not (Selector's contract). */
    private static final class UngrowableSet extends AbstractSet<SelectionKey> {
        private final Set<SelectionKey> set;

        UngrowableSet(Set<SelectionKey> set) { this.set = set; }

        @Override public int size() { return set.size(); }
        @Override public boolean isEmpty() { return set.isEmpty(); }
        @Override public boolean contains(Object o) { return set.contains(o); }
        @Override public Object[] toArray() { return set.toArray(); }
        @Override public <T> T[] toArray(T[] a) { return set.toArray(a); }
        @Override public Iterator<SelectionKey> iterator() { return set.iterator(); }
        @Override public boolean remove(Object o) { return set.remove(o); }
        @Override public void clear() { set.clear(); }
        @Override public boolean add(SelectionKey o) { throw new UnsupportedOperationException(); }
        @Override public boolean addAll(java.util.Collection<? extends SelectionKey> coll) { throw new UnsupportedOperationException(); }
    }
}
