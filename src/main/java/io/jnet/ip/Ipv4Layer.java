package io.jnet.ip;

import io.jnet.arp.Neighbour;
import io.jnet.arp.NeighbourTable;
import io.jnet.buffer.PacketBuffer;
import io.jnet.socket.Errno;
import io.jnet.stack.Interface;
import io.jnet.stack.Mib;
import io.jnet.stack.MibCounter;
import io.jnet.stack.NetNamespace;
import io.jnet.stack.Sysctls;
import io.jnet.wire.Ethernet;
import io.jnet.wire.Icmp;
import io.jnet.wire.Ipv4;
import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.atomic.AtomicIntegerArray;

/**
 * IPv4 input and output (RFC 791, RFC 1122 3.2) for one namespace, following Linux's ip_rcv /
 * ip_local_deliver / ip_queue_xmit. No forwarding: packets for other hosts are dropped and counted in
 * IpInAddrErrors. Local destinations are routed through the loopback device, as Linux's local table does.
 */
public final class Ipv4Layer {
    private final NetNamespace ns;
    private final Sysctls sysctl;
    private final Mib mib;
    private final NeighbourTable neighbours;
    private final RouteTable routes = new RouteTable();
    private final IpProtocolHandler[] protocols = new IpProtocolHandler[256];
    private volatile IcmpErrorSender icmp;
    private final Ipv4Fragmenter fragmenter;
    private final Ipv4Reassembler reassembler;
    /** Per-destination IP ID counters (Linux ip_idents): hashed buckets, random start. */
    private final AtomicIntegerArray idents = new AtomicIntegerArray(2048);
    private final int identSalt;

    public Ipv4Layer(NetNamespace ns) {
        this.ns = ns;
        this.sysctl = ns.sysctl();
        this.mib = ns.mib();
        this.neighbours = ns.extension(NeighbourTable.class);
        this.fragmenter = new Ipv4Fragmenter(mib);
        this.reassembler = new Ipv4Reassembler(sysctl, mib, ns.timers());
        this.identSalt = (int) ns.randomLong();
        for (int i = 0; i < idents.length(); i++) idents.set(i, (int) ns.randomLong());
        ns.registerEtherType(Ethernet.TYPE_IPV4, this::receive);
        ns.addAddressListener((itf, a) -> {
            if (a.prefixLength() < 32 && !itf.device().isLoopback())
                routes.add(new Route(a.network(), a.prefixLength(), 0, itf, a.address(), 0));
        });
        ns.onClose(reassembler::clear);
        neighbours.setUnreachableHandler(p -> {
            if (p.networkOffset() >= 0) sendIcmpError(p, Icmp.DEST_UNREACH, Icmp.CODE_HOST_UNREACH, 0);
        });
        // RFC 792: time exceeded (fragment reassembly time exceeded) when fragment 0 was received
        reassembler.setTimeExceededSender(first -> sendIcmpError(first, Icmp.TIME_EXCEEDED, 1, 0));
    }

    public RouteTable routes() { return routes; }
    public Ipv4Reassembler reassembler() { return reassembler; }

    /** Adds a route: {@code ip route add PREFIX/LEN [via GATEWAY] dev DEV}. */
    public void addRoute(String cidr, String gateway, String dev) {
        int slash = cidr.indexOf('/');
        int prefix = Ipv4.parseAddress(slash < 0 ? cidr : cidr.substring(0, slash));
        int len = slash < 0 ? 32 : Integer.parseInt(cidr.substring(slash + 1));
        int gw = gateway == null ? 0 : Ipv4.parseAddress(gateway);
        routes.add(new Route(prefix & Ipv4.prefixMask(len), len, gw, ns.requireInterface(dev), 0, 0));
    }

    /**
     * Adds the routes of a file in {@code ip route} syntax ({@link IpRouteFile}), {@code dev} names
     * resolved among this namespace's interfaces. All or nothing: a bad line (IllegalArgumentException
     * naming the file and line) or a route that exists (IllegalArgumentException, EEXIST) leaves the
     * table as it was.
     *
     * @return the number of routes added
     */
    public int loadRoutes(Path file) throws IOException {
        List<Route> rs = IpRouteFile.load(file, ns::interfaceByName);
        for (int i = 0; i < rs.size(); i++) {
            try {
                routes.add(rs.get(i));
            } catch (IllegalArgumentException e) {
                for (int j = 0; j < i; j++) routes.remove(rs.get(j));
                throw new IllegalArgumentException(file + ": " + e.getMessage(), e);
            }
        }
        return rs.size();
    }

    public void registerProtocol(int protocol, IpProtocolHandler h) { protocols[protocol] = h; }

    public void setIcmpErrorSender(IcmpErrorSender s) { icmp = s; }

    // ---- routing ---------------------------------------------------------------------------------

    /** The route to {@code dst} (local addresses go over loopback), or null when unreachable. */
    public Route route(int dst) {
        if (ns.isLocalAddress(dst)) return localRoute(dst);
        return routes.lookup(dst);
    }

    private Route localRoute(int dst) {
        return new Route(dst, 32, 0, ns.loopbackInterface(), dst, 0);
    }

    /** The route to {@code dst} through a socket's cache, refreshed when the table changed. */
    public Route route(int dst, DstCache cache) {
        int generation = routes.generation(); // before the lookup: a change during it leaves the cache stale
        if (cache.route != null && cache.generation == generation && cache.destination == dst) return cache.route;
        Route r = route(dst);
        cache.route = r;
        cache.neighbour = null;
        cache.generation = generation;
        cache.destination = dst;
        return r;
    }

    /** The source address to use for {@code dst}, or 0 when there is no route. */
    public int sourceAddressFor(int dst) {
        Route r = route(dst);
        return r == null ? 0 : r.source(dst);
    }

    /** The MTU of the path to {@code dst} in bytes, or 0 when there is no route. */
    public int mtuFor(int dst) {
        Route r = route(dst);
        return r == null ? 0 : r.itf().device().mtu();
    }

    private int nextId(int dst, int protocol) {
        int h = (dst * 0x9E3779B1 + protocol + identSalt) >>> 21; // 11 bits
        return idents.getAndIncrement(h) & 0xFFFF;
    }

    // ---- output ----------------------------------------------------------------------------------

    /**
     * Sends a transport packet (data starts at the transport header, which is complete with its
     * checksum). Pushes the IPv4 header, fragments when larger than the MTU (unless {@code df}), resolves
     * the next hop and transmits. Takes ownership of {@code packet}.
     *
     * @param src source address, or 0 to take the route's
     * @param cache the socket's route cache, or null
     * @return 0, or a negative errno: -ENETUNREACH (no route), -EMSGSIZE (DF set and larger than the MTU)
     */
    public int output(PacketBuffer packet, int src, int dst, int protocol, int tos, int ttl, boolean df, DstCache cache) {
        Route r = cache != null ? route(dst, cache) : route(dst);
        if (r == null) {
            mib.inc(MibCounter.IpOutNoRoutes);
            packet.release();
            return -Errno.ENETUNREACH.number();
        }
        if (src == 0) src = r.source(dst);
        int total = packet.length() + Ipv4.MIN_HEADER_LENGTH;
        if (total > Ipv4.MAX_PACKET) {
            mib.inc(MibCounter.IpOutDiscards);
            packet.release();
            return -Errno.EMSGSIZE.number();
        }
        int mtu = r.itf().device().mtu();
        if (df && protocol == Ipv4.PROTO_TCP) mtu = Math.max(mtu, r.itf().device().gsoMaxSize()); // GSO: sent whole
        if (df && total > mtu) {
            mib.inc(MibCounter.IpFragFails);
            packet.release();
            return -Errno.EMSGSIZE.number();
        }
        int off = packet.push(Ipv4.MIN_HEADER_LENGTH);
        packet.setNetworkOffset(off);
        int id = df && total <= mtu ? 0 : nextId(dst, protocol);
        Ipv4.write(packet.array(), off, tos, total, id, df ? Ipv4.FLAG_DF : 0, ttl <= 0 ? sysctl.ipDefaultTtl.intValue() : ttl,
                protocol, src, dst);
        mib.inc(MibCounter.IpOutRequests);
        int nexthop = r.nextHop(dst);
        if (cache != null && cache.neighbour != null && cache.neighbour.isDead()) cache.neighbour = null; // resolve afresh
        Neighbour cached = cache != null ? cache.neighbour : null;
        if (total <= mtu) {
            neighbours.output(r.itf(), nexthop, packet, cached);
        } else {
            final Route rr = r;
            int n = fragmenter.fragment(packet, mtu, frag -> neighbours.output(rr.itf(), nexthop, frag, cached));
            if (n < 0) {
                packet.release();
                return n;
            }
        }
        if (cache != null && cache.neighbour == null && !r.itf().device().isLoopback()) {
            cache.neighbour = neighbours.resolved(r.itf(), nexthop);
        }
        return 0;
    }

    // ---- input -----------------------------------------------------------------------------------

    /** ip_rcv: validates, reassembles, delivers to the transport. Takes ownership; never throws. */
    void receive(Interface in, PacketBuffer pkt) {
        mib.inc(MibCounter.IpInReceives);
        byte[] b = pkt.array();
        int off = pkt.dataStart();
        int v = Ipv4.validate(b, off, pkt.length(), !pkt.checksumUnnecessary());
        if (v != Ipv4.OK) {
            switch (v) {
                case Ipv4.ERR_TOTAL_LENGTH -> {
                    if (pkt.length() >= Ipv4.MIN_HEADER_LENGTH && Ipv4.totalLength(b, off) > pkt.length())
                        mib.inc(MibCounter.IpExtInTruncatedPkts);
                    else mib.inc(MibCounter.IpInHdrErrors);
                }
                case Ipv4.ERR_TRUNCATED -> mib.inc(MibCounter.IpExtInTruncatedPkts);
                case Ipv4.ERR_CHECKSUM -> {
                    mib.inc(MibCounter.IpExtInCsumErrors);
                    mib.inc(MibCounter.IpInHdrErrors);
                }
                default -> mib.inc(MibCounter.IpInHdrErrors);
            }
            pkt.release();
            return;
        }
        pkt.trim(Ipv4.totalLength(b, off));
        int dst = Ipv4.destination(b, off);
        int src = Ipv4.source(b, off);
        boolean local = ns.isLocalAddress(dst) || in.isBroadcast(dst) || dst == -1;
        if (!local || Ipv4.isMulticast(src) || src == -1) {
            mib.inc(MibCounter.IpInAddrErrors);
            pkt.release();
            return;
        }
        if (Ipv4.isFragment(b, off)) {
            pkt.setNetworkOffset(off);
            pkt = reassembler.accept(pkt);
            if (pkt == null) return;
            b = pkt.array();
            off = pkt.dataStart();
        }
        int hl = Ipv4.headerLength(b, off);
        int protocol = Ipv4.protocol(b, off);
        pkt.setNetworkOffset(off);
        pkt.pull(hl);
        pkt.setTransportOffset(pkt.dataStart());
        IpProtocolHandler h = protocols[protocol]; // read once
        if (h == null) {
            mib.inc(MibCounter.IpInUnknownProtos);
            IcmpErrorSender s = icmp;
            if (s != null && !in.isBroadcast(dst)) s.sendError(pkt, Icmp.DEST_UNREACH, Icmp.CODE_PROTO_UNREACH, 0);
            pkt.release();
            return;
        }
        if (sysctl.ipEarlyDemux.enabled() && pkt.socket() == null) h.earlyDemux(pkt, src, dst);
        mib.inc(MibCounter.IpInDelivers);
        h.receive(pkt, src, dst);
    }

    /** Sends an ICMP error about {@code original} (network offset set), if an ICMP module is installed. */
    public void sendIcmpError(PacketBuffer original, int type, int code, int info) {
        IcmpErrorSender s = icmp;
        if (s != null) s.sendError(original, type, code, info);
    }

    /** Routes an ICMP error's quoted packet to its transport (called by the ICMP module). */
    public void deliverIcmpError(int type, int code, int info, byte[] b, int off, int len) {
        if (len < Ipv4.MIN_HEADER_LENGTH + 8) return;
        int proto = Ipv4.protocol(b, off);
        IpProtocolHandler h = protocols[proto];
        if (h != null) h.icmpError(type, code, info, b, off, len);
    }

}
