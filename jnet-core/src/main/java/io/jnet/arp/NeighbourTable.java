package io.jnet.arp;

import io.jnet.buffer.PacketBuffer;
import io.jnet.buffer.PacketQueue;
import io.jnet.link.NetDevice;
import io.jnet.stack.Interface;
import io.jnet.stack.Mib;
import io.jnet.stack.MibCounter;
import io.jnet.stack.NetNamespace;
import io.jnet.stack.Sysctls;
import io.jnet.wire.Arp;
import io.jnet.wire.Ethernet;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicReferenceArray;

/**
 * The IPv4 neighbour table and ARP (RFC 826), as Linux's arp.c over neighbour.c: resolves next hops,
 * queues packets while resolving (up to neigh.default.unres_qlen_bytes), retries every
 * retrans_time_ms up to mcast_solicit times, then fails the entry and drops what was queued
 * (counted in ArpUnresolvedDiscards). Answers requests for local addresses and learns the sender.
 */
public final class NeighbourTable {
    private final NetNamespace ns;
    private final Sysctls sysctl;
    private final Mib mib;
    /** Linux neigh.default.delay_first_probe_time. */
    static final long DELAY_FIRST_PROBE_MS = 5000;
    private final ConcurrentHashMap<Long, Neighbour> entries = new ConcurrentHashMap<>();

    public NeighbourTable(NetNamespace ns) {
        this.ns = ns;
        this.sysctl = ns.sysctl();
        this.mib = ns.mib();
        ns.registerEtherType(Ethernet.TYPE_ARP, this::receive);
        ns.onClose(this::clear);
    }

    private static long key(Interface itf, int addr) { return ((long) itf.index() << 32) | (addr & 0xFFFFFFFFL); }

    private volatile java.util.function.Consumer<PacketBuffer> unreachable;

    /**
     * Called for each packet dropped because its next hop failed to resolve (the buffer's network offset
     * points at its IPv4 header; not consumed). The IP layer answers with ICMP host unreachable to the
     * sender, as Linux's arp_error_report does.
     */
    public void setUnreachableHandler(java.util.function.Consumer<PacketBuffer> h) { unreachable = h; }

    /**
     * A direct-mapped cache in front of {@link #entries}, by (interface, address): a hit costs no boxed key,
     * so a packet whose sender keeps no neighbour (a forwarded packet, an unconnected datagram) finds its next
     * hop without allocating, as Linux's __ipv4_neigh_lookup_noref looks its hash table up. A slot holds the
     * last entry looked up that hashed there; a dead entry (removed from the table) is never returned from it.
     */
    private final AtomicReferenceArray<Neighbour> hints = new AtomicReferenceArray<>(HINT_SLOTS);
    /** Slots of {@link #hints}, a power of two. */
    static final int HINT_SLOTS = 256;

    private static int hintSlot(Interface itf, int addr) {
        return ((addr + itf.index() * 0x9E3779B9) * 0x9E3779B1) >>> (32 - Integer.numberOfTrailingZeros(HINT_SLOTS));
    }

    /** The entry for {@code addr} on {@code itf}, created INCOMPLETE (and probed) if absent. */
    public Neighbour lookup(Interface itf, int addr) {
        int slot = hintSlot(itf, addr);
        Neighbour n = hints.getAcquire(slot);
        if (n != null && n.address == addr && n.itf == itf && !n.dead) return n;
        long k = key(itf, addr);
        n = entries.get(k);
        if (n == null) {
            n = entries.computeIfAbsent(k, x -> {
                Neighbour nn = new Neighbour(itf, addr);
                nn.timer = ns.timers().newTimer(() -> timerExpired(nn));
                return nn;
            });
        }
        hints.setRelease(slot, n);
        return n;
    }

    /** The entry if present, without creating one. */
    public Neighbour find(Interface itf, int addr) {
        int slot = hintSlot(itf, addr);
        Neighbour n = hints.getAcquire(slot);
        if (n != null && n.address == addr && n.itf == itf && !n.dead) return n;
        n = entries.get(key(itf, addr));
        if (n != null) hints.setRelease(slot, n);
        return n;
    }

    /**
     * Sends {@code packet} (data starts at the IPv4 header) to next hop {@code nexthop} out of {@code itf}:
     * pushes the Ethernet header and transmits, or queues it while ARP resolves. Takes ownership.
     */
    public void output(Interface itf, int nexthop, PacketBuffer packet, Neighbour cached) {
        NetDevice dev = itf.device();
        if (dev.isLoopback()) {
            transmit(dev, 0L, packet);
            return;
        }
        if (itf.isBroadcast(nexthop) || io.jnet.wire.Ipv4.isMulticast(nexthop)) {
            transmit(dev, Ethernet.BROADCAST, packet);
            return;
        }
        Neighbour n = cached != null && !cached.dead && cached.address == nexthop && cached.itf == itf ? cached
                : lookup(itf, nexthop);
        if (n.isValid()) {
            if (n.state == Neighbour.State.STALE) startDelay(n);
            transmit(dev, n.mac, packet);
            return;
        }
        boolean solicit = false;
        synchronized (n) {
            if (n.isValid()) {
                // resolved meanwhile
            } else {
                if (n.state == Neighbour.State.FAILED) {
                    n.state = Neighbour.State.INCOMPLETE;
                    n.probes = 0;
                }
                int limit = sysctl.neighUnresQlenBytes.intValue();
                while (!n.pending.isEmpty() && n.pending.bytes() + packet.truesize() > limit) {
                    n.pending.poll().release();
                    mib.inc(MibCounter.ArpUnresolvedDiscards);
                }
                if (packet.truesize() > limit) {
                    packet.release();
                    mib.inc(MibCounter.ArpUnresolvedDiscards);
                } else {
                    n.pending.add(packet);
                }
                if (n.probes == 0) {
                    n.probes = 1;
                    solicit = true;
                    n.timer.scheduleMillis(sysctl.neighRetransTimeMs.intValue());
                }
                packet = null;
            }
        }
        if (packet != null) {
            transmit(dev, n.mac, packet);
        } else if (solicit) {
            sendRequest(itf, nexthop, Ethernet.BROADCAST);
        }
    }

    /** The resolved neighbour for a hop, or null when not (yet) valid; for callers that cache it. */
    public Neighbour resolved(Interface itf, int nexthop) {
        Neighbour n = find(itf, nexthop);
        return n != null && n.isValid() ? n : null;
    }

    private void transmit(NetDevice dev, long dstMac, PacketBuffer packet) {
        int off = packet.push(Ethernet.HEADER_LENGTH);
        Ethernet.write(packet.array(), off, dstMac, dev.macAddress(), io.jnet.wire.Ethernet.TYPE_IPV4);
        dev.transmit(packet);
    }

    /** First use of a STALE entry: wait delay_first_probe_time (5 s) before probing (Linux NUD_DELAY). */
    private void startDelay(Neighbour n) {
        synchronized (n) {
            if (n.state != Neighbour.State.STALE) return;
            n.state = Neighbour.State.DELAY;
            n.timer.scheduleMillis(DELAY_FIRST_PROBE_MS);
        }
    }

    private void startProbe(Neighbour n) {
        synchronized (n) {
            if (n.state != Neighbour.State.DELAY) return;
            n.state = Neighbour.State.PROBE;
            n.probes = 1;
            n.timer.scheduleMillis(sysctl.neighRetransTimeMs.intValue());
        }
        sendRequest(n.itf, n.address, n.mac);
    }

    private void timerExpired(Neighbour n) {
        List<PacketBuffer> dropped = null;
        boolean resend = false;
        boolean probe = false;
        long now = ns.clock().nanoTime();
        synchronized (n) {
            switch (n.state) {
                case INCOMPLETE, PROBE -> {
                    if (n.probes >= sysctl.neighMcastSolicit.intValue()) {
                        n.state = Neighbour.State.FAILED;
                        dropped = new ArrayList<>();
                        PacketBuffer p;
                        while ((p = n.pending.poll()) != null) dropped.add(p);
                    } else {
                        n.probes++;
                        resend = true;
                        n.timer.scheduleMillis(sysctl.neighRetransTimeMs.intValue());
                    }
                }
                case REACHABLE -> {
                    long reach = sysctl.neighBaseReachableTimeMs.intValue() * 1_000_000L;
                    if (now - n.confirmed >= reach) {
                        n.state = Neighbour.State.STALE;
                        n.timer.scheduleMillis(sysctl.neighGcStaleTime.intValue() * 1000L);
                    } else {
                        n.timer.schedule(n.confirmed + reach - now);
                    }
                }
                case DELAY -> {
                    probe = true;
                }
                case STALE, FAILED -> {
                    if (entries.remove(key(n.itf, n.address), n)) n.dead = true;
                }
                default -> { }
            }
        }
        if (probe) {
            startProbe(n);
            return;
        }
        if (dropped != null) {
            java.util.function.Consumer<PacketBuffer> h = unreachable;
            for (PacketBuffer p : dropped) {
                mib.inc(MibCounter.ArpUnresolvedDiscards);
                if (h != null) {
                    try {
                        h.accept(p);
                    } catch (RuntimeException e) {
                        ns.reportInternalError(e);
                    }
                }
                p.release();
            }
        }
        if (resend) {
            sendRequest(n.itf, n.address, n.state == Neighbour.State.PROBE ? n.mac : Ethernet.BROADCAST);
        }
    }

    /** Adds a permanent entry (ip neigh add ... nud permanent). */
    public void addPermanent(Interface itf, int addr, long mac) {
        Neighbour n = lookup(itf, addr);
        confirm(n, mac, Neighbour.State.PERMANENT);
    }

    private void confirm(Neighbour n, long mac, Neighbour.State to) {
        PacketQueue flush = new PacketQueue();
        synchronized (n) {
            if (n.state == Neighbour.State.PERMANENT && to != Neighbour.State.PERMANENT) return;
            n.mac = mac;
            n.state = to;
            n.probes = 0;
            n.confirmed = ns.clock().nanoTime();
            PacketBuffer p;
            while ((p = n.pending.poll()) != null) flush.add(p);
            if (to == Neighbour.State.REACHABLE) n.timer.scheduleMillis(sysctl.neighBaseReachableTimeMs.intValue());
            else if (to == Neighbour.State.STALE) n.timer.scheduleMillis(sysctl.neighGcStaleTime.intValue() * 1000L);
            else n.timer.cancel();
        }
        PacketBuffer p;
        while ((p = flush.poll()) != null) transmit(n.itf.device(), mac, p);
    }

    private void receive(Interface in, PacketBuffer pkt) {
        try {
            byte[] b = pkt.array();
            int off = pkt.dataStart();
            if (!Arp.isValid(b, off, pkt.length())) {
                mib.inc(MibCounter.ArpInErrors);
                return;
            }
            int op = Arp.operation(b, off);
            long sha = Arp.senderMac(b, off);
            int spa = Arp.senderIp(b, off);
            int tpa = Arp.targetIp(b, off);
            if (Ethernet.isMulticast(sha) || spa == 0 && op == Arp.OP_REPLY) {
                mib.inc(MibCounter.ArpInErrors);
                return;
            }
            boolean forUs = in.hasAddress(tpa);
            if (op == Arp.OP_REQUEST) {
                mib.inc(MibCounter.ArpInRequests);
                if (forUs) {
                    if (spa != 0) {
                        Neighbour n = lookup(in, spa);
                        if (n.state != Neighbour.State.REACHABLE || n.mac != sha) confirm(n, sha, Neighbour.State.STALE);
                    }
                    sendReply(in, tpa, sha, spa);
                }
            } else {
                mib.inc(MibCounter.ArpInReplies);
                Neighbour n = find(in, spa);
                if (n != null) confirm(n, sha, Neighbour.State.REACHABLE);
                else if (forUs) lookupAndConfirm(in, spa, sha);
            }
        } finally {
            pkt.release();
        }
    }

    private void lookupAndConfirm(Interface in, int ip, long mac) {
        confirm(lookup(in, ip), mac, Neighbour.State.STALE);
    }

    private void sendRequest(Interface itf, int target, long dstMac) {
        int src = sourceFor(itf, target);
        NetDevice dev = itf.device();
        PacketBuffer f = ns.allocator().allocate(0, Ethernet.HEADER_LENGTH + Arp.LENGTH);
        int off = f.put(Ethernet.HEADER_LENGTH + Arp.LENGTH);
        Ethernet.write(f.array(), off, dstMac, dev.macAddress(), Ethernet.TYPE_ARP);
        Arp.write(f.array(), off + Ethernet.HEADER_LENGTH, Arp.OP_REQUEST, dev.macAddress(), src, 0L, target);
        mib.inc(MibCounter.ArpOutRequests);
        dev.transmit(f);
    }

    private static int sourceFor(Interface itf, int target) {
        for (Interface.Address a : itf.addresses()) if (a.contains(target)) return a.address();
        return itf.primaryAddress();
    }

    private void sendReply(Interface itf, int ourIp, long toMac, int toIp) {
        NetDevice dev = itf.device();
        PacketBuffer f = ns.allocator().allocate(0, Ethernet.HEADER_LENGTH + Arp.LENGTH);
        int off = f.put(Ethernet.HEADER_LENGTH + Arp.LENGTH);
        Ethernet.write(f.array(), off, toMac, dev.macAddress(), Ethernet.TYPE_ARP);
        Arp.write(f.array(), off + Ethernet.HEADER_LENGTH, Arp.OP_REPLY, dev.macAddress(), ourIp, toMac, toIp);
        mib.inc(MibCounter.ArpOutReplies);
        dev.transmit(f);
    }

    /** Every entry, for display ({@code ip neigh}). */
    public List<Neighbour> entries() { return new ArrayList<>(entries.values()); }

    void clear() {
        for (Neighbour n : entries.values()) {
            synchronized (n) {
                n.dead = true;
                n.timer.cancel();
                n.pending.purge();
            }
        }
        entries.clear();
    }
}
