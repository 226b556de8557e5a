package io.jnet.link.vxlan;

import io.jnet.stack.Clock;
import io.jnet.wire.Ethernet;
import java.net.InetSocketAddress;
import java.util.Comparator;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The forwarding database of a {@link VxlanDevice} (Linux {@code vxlan_fdb}, shown by
 * {@code bridge fdb show dev vxlan0}): which remote VXLAN tunnel end point (VTEP, an outer IP address
 * and UDP port) serves each inner unicast MAC address.
 *
 * <p>Entries are either <em>static</em> (configured; never age, never overwritten by learning, like
 * {@code bridge fdb add MAC dev vxlan0 dst IP}) or <em>learned</em> from received packets (RFC 7348
 * section 4: the inner source MAC is mapped to the outer source address). A learned entry that has not
 * been refreshed for the ageing time (Linux {@code ageing}, default 300 s) is no longer used and is
 * removed by the next lookup or {@link #sweep()}.
 *
 * <p>Thread-safe: the reader thread learns while transmitting threads look up.
 */
public final class VxlanFdb {

    /**
     * One entry.
     *
     * @param mac inner MAC address, 48 bits in the low bits
     * @param remote the VTEP's outer IP address and UDP port
     * @param isStatic true for configured entries (no ageing, not replaced by learning)
     * @param updatedNanos {@link Clock#nanoTime()} when the entry was added or last refreshed by a received packet
     */
    public record Entry(long mac, InetSocketAddress remote, boolean isStatic, long updatedNanos) {
        public Entry {
            Objects.requireNonNull(remote, "remote");
        }

        @Override
        public String toString() {
            return Ethernet.macToString(mac) + " dst " + remote.getAddress().getHostAddress() + " port " + remote.getPort()
                    + (isStatic ? " permanent" : "");
        }
    }

    private final ConcurrentHashMap<Long, Entry> entries = new ConcurrentHashMap<>();
    private final Clock clock;
    private final long ageingNanos;
    private final int maxEntries;

    /**
     * @param clock time source for ageing
     * @param ageingSeconds seconds after which an unrefreshed learned entry expires, at least 1
     * @param maxEntries most learned plus static entries kept (Linux {@code maxaddress}); 0 = unlimited
     * @throws IllegalArgumentException for a non-positive ageing time or a negative maximum
     */
    VxlanFdb(Clock clock, int ageingSeconds, int maxEntries) {
        if (ageingSeconds < 1) throw new IllegalArgumentException("ageing time must be at least 1 s: " + ageingSeconds);
        if (maxEntries < 0) throw new IllegalArgumentException("negative maximum number of entries: " + maxEntries);
        this.clock = Objects.requireNonNull(clock, "clock");
        this.ageingNanos = ageingSeconds * 1_000_000_000L;
        this.maxEntries = maxEntries;
    }

    /** The ageing time in seconds. */
    public int ageingSeconds() { return (int) (ageingNanos / 1_000_000_000L); }

    /**
     * The remote serving unicast {@code mac}, or null when there is none (unknown unicast, to be
     * flooded) or the learned entry has aged out (it is removed).
     */
    public InetSocketAddress lookup(long mac) {
        Entry e = entries.get(mac);
        if (e == null) return null;
        if (!e.isStatic() && expired(e, clock.nanoTime())) {
            entries.remove(mac, e);
            return null;
        }
        return e.remote();
    }

    /** Outcome of {@link #learn}. */
    enum Learned { NONE, NEW, MOVED, REFRESHED }

    /** A learned entry younger than this is not rewritten when the same MAC arrives from the same VTEP. */
    private static final long REFRESH_GRANULARITY_NS = 1_000_000_000L;

    /**
     * Records that a frame from {@code mac} arrived from the VTEP at {@code address}:{@code port} (Linux
     * {@code vxlan_snoop}):
     * adds a learned entry, refreshes it, or moves it when the MAC now appears behind another VTEP.
     * Static entries are left alone. When the table is full, expired entries are swept first; if it is
     * still full nothing is learned.
     */
    Learned learn(long mac, java.net.InetAddress address, int port) {
        long now = clock.nanoTime();
        Entry old = entries.get(mac);
        if (old != null && old.isStatic()) return Learned.NONE;
        // the same MAC from the same VTEP again, refreshed within the last second: nothing to write (no
        // allocation per frame; ageing counts in seconds)
        if (old != null && old.remote().getPort() == port && old.remote().getAddress().equals(address)
                && now - old.updatedNanos() < REFRESH_GRANULARITY_NS && !expired(old, now)) {
            return Learned.REFRESHED;
        }
        InetSocketAddress remote = new InetSocketAddress(address, port);
        if (old == null && maxEntries > 0 && entries.size() >= maxEntries) {
            sweep();
            if (entries.size() >= maxEntries) return Learned.NONE;
        }
        Learned[] result = {Learned.NONE};
        entries.compute(mac, (k, prev) -> {
            if (prev != null && prev.isStatic()) return prev;
            result[0] = prev == null ? Learned.NEW
                    : prev.remote().equals(remote) && !expired(prev, now) ? Learned.REFRESHED : Learned.MOVED;
            return new Entry(mac, remote, false, now);
        });
        return result[0];
    }

    /**
     * Adds or replaces a static entry for unicast {@code mac}.
     *
     * @throws IllegalArgumentException for a multicast/broadcast or zero MAC, or an unresolved address
     */
    public void addStatic(long mac, InetSocketAddress remote) {
        checkUnicast(mac);
        if (remote.isUnresolved()) throw new IllegalArgumentException("unresolved remote address: " + remote);
        entries.put(mac, new Entry(mac, remote, true, clock.nanoTime()));
    }

    /** Removes the entry for {@code mac}, static or learned; true when there was one. */
    public boolean remove(long mac) { return entries.remove(mac) != null; }

    /** Removes every learned entry older than the ageing time (Linux {@code vxlan_cleanup}); returns how many. */
    public int sweep() {
        long now = clock.nanoTime();
        int removed = 0;
        for (Entry e : entries.values()) {
            if (!e.isStatic() && expired(e, now) && entries.remove(e.mac(), e)) removed++;
        }
        return removed;
    }

    /** Removes all learned entries (Linux {@code bridge fdb flush dev vxlan0 dynamic}). */
    public void flushLearned() {
        entries.values().removeIf(e -> !e.isStatic());
    }

    /** A snapshot of the entries, sorted by MAC; expired learned entries are left out. */
    public List<Entry> entries() {
        long now = clock.nanoTime();
        return entries.values().stream()
                .filter(e -> e.isStatic() || !expired(e, now))
                .sorted(Comparator.comparingLong(Entry::mac))
                .toList();
    }

    /** Number of entries held, expired ones not yet swept included. */
    public int size() { return entries.size(); }

    private boolean expired(Entry e, long now) {
        return now - e.updatedNanos() >= ageingNanos;
    }

    static void checkUnicast(long mac) {
        if (mac <= 0 || mac > 0xFFFF_FFFF_FFFFL || Ethernet.isMulticast(mac)) {
            throw new IllegalArgumentException("not a unicast MAC address: 0x" + Long.toHexString(mac));
        }
    }

    @Override
    public String toString() {
        return "VxlanFdb" + entries();
    }
}
