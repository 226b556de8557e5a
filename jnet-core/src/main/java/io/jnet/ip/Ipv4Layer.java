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
import io.jnet.wire.Bytes;
import io.jnet.wire.Ethernet;
import io.jnet.wire.Icmp;
import io.jnet.wire.Ipv4;
import io.jnet.wire.Tcp;
import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.atomic.AtomicIntegerArray;

/**
 * IPv4 input, output and forwarding (RFC 791, RFC 1122 3.2, RFC 1812) for one namespace, following Linux's
 * ip_rcv / ip_local_deliver / ip_queue_xmit / ip_forward. Local destinations are routed through the loopback
 * device, as Linux's local table does.
 *
 * <p>Forwarding (Linux ip_route_input_slow, fib_validate_source, ip_forward): a packet for another host is
 * forwarded only when its input device has {@code net.ipv4.conf.<dev>.forwarding} on (set for every device by
 * {@code net.ipv4.ip_forward}); otherwise it is dropped and counted in IpInAddrErrors. A forwarded packet's
 * TTL is decremented; one that arrives with TTL 1 or 0 is answered with ICMP time exceeded (IpInHdrErrors);
 * one with no route is answered with ICMP network unreachable (IpExtInNoRoutes); one larger than the output
 * MTU with DF set is answered with fragmentation needed and that MTU (RFC 1191; IpFragFails), one without DF
 * is fragmented. A large TCP segment ({@link PacketBuffer#gsoSize()}) goes whole to a device that takes it
 * ({@link io.jnet.link.NetDevice#gsoMaxSize()}) and is cut into segments of gso size otherwise, as Linux's
 * skb_gso_segment does. Sources 0/8, 127/8, 169.254/16 (RFC 3927 section 7), multicast and 255.255.255.255 and
 * destinations 0/8 and 169.254/16 are not forwarded (RtCacheInMartianSrc / RtCacheInMartianDst). The
 * reverse path filter ({@code rp_filter}, the larger of {@code conf.all} and {@code conf.<dev>}) drops a
 * packet whose source is not routed back out its input device (1, strict) or not routed at all (2, loose),
 * counted in TcpExtIPReversePathFilter. Directed broadcasts are not forwarded (IpInAddrErrors; Linux delivers
 * them locally). A packet forwarded back out the device it came in on, from a sender on that device's
 * network, is answered with an ICMP redirect (host) to the better gateway when {@code send_redirects} is on
 * (conf.all or conf.dev; default on), limited per sender as Linux's ip_rt_send_redirect (9 redirects with
 * doubling gaps from 20 ms, then none until the sender has been quiet for 20.48 s); the packet is forwarded
 * too. Forwarded packets count IpForwDatagrams.
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
    /** Interfaces whose conf.<dev>.rp_filter flushes the route table's generation when written. */
    private final java.util.Set<Interface> rpFilterHooked = java.util.concurrent.ConcurrentHashMap.newKeySet();

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
            // cached input routes passed the old reverse path filter (Linux flushes on an rp_filter write)
            if (rpFilterHooked.add(itf)) itf.conf().rpFilter().onWrite(routes::flush);
            // Linux fib_add_ifaddr: a secondary address (another address of the device has the same subnet and
            // length) gets no prefix route of its own; the primary's covers it
            boolean secondary = false;
            for (Interface.Address x : itf.addresses()) {
                if (!x.equals(a) && x.prefixLength() == a.prefixLength() && x.network() == a.network()) secondary = true;
            }
            if (a.prefixLength() < 32 && !itf.device().isLoopback() && !secondary)
                routes.add(new Route(a.network(), a.prefixLength(), 0, itf, a.address(), 0));
        });
        ns.onClose(reassembler::clear);
        sysctl.confAllRpFilter.onWrite(routes::flush); // cached input routes passed the old filter
        neighbours.setUnreachableHandler(p -> {
            if (p.networkOffset() >= 0) sendIcmpError(p, Icmp.DEST_UNREACH, Icmp.CODE_HOST_UNREACH, 0);
        });
        // RFC 792: time exceeded (fragment reassembly time exceeded) when fragment 0 was received
        reassembler.setTimeExceededSender(first -> sendIcmpError(first, Icmp.TIME_EXCEEDED, 1, 0));
    }

    public RouteTable routes() { return routes; }
    public Ipv4Reassembler reassembler() { return reassembler; }

    /**
     * Adds a route: {@code ip route add DEST [via GATEWAY] dev DEV} with metric 0 and no preferred source.
     * {@code DEST} is {@code default}, {@code ADDR/LEN} or {@code ADDR} (a /32); {@code gateway} may be null.
     *
     * @throws IllegalArgumentException as Linux refuses the route: a bad address or length, host bits set
     *         beyond the length ("invalid prefix for given prefix length"), an unknown device, a gateway not
     *         on-link through {@code dev} or local to this namespace ("Nexthop has invalid gateway"), or a route
     *         with the same destination and metric ("File exists", EEXIST)
     */
    public void addRoute(String cidr, String gateway, String dev) {
        int[] d = IpRouteFile.parseDestination(cidr);
        int gw = gateway == null ? 0 : Ipv4.parseAddress(gateway);
        addRoute(new Route(d[0], d[1], gw, ns.requireInterface(dev), 0, 0));
    }

    /**
     * Adds {@code r} as {@code ip route add} does (Linux fib_check_nh, fib_table_insert with NLM_F_EXCL).
     *
     * @throws IllegalArgumentException "Nexthop has invalid gateway" when the gateway is not covered by a
     *         connected route (one without gateway) of the route's device or is an address of this
     *         namespace; "File exists" when a route with the same destination and metric exists
     */
    public void addRoute(Route r) {
        synchronized (routes) {
            checkGateway(r);
            routes.addExclusive(r);
        }
    }

    /** Linux fib_check_nh_v4_gw: the gateway must be a unicast address reachable on-link through the route's device. */
    private void checkGateway(Route r) {
        int gw = r.gateway();
        if (gw == 0) return;
        boolean onLink = false;
        if (!ns.isLocalAddress(gw)) {
            Route best = routes.lookup(gw); // the usual answer in one lookup, so loading a big table stays linear
            if (best != null && best.gateway() == 0 && best.itf() == r.itf()) return;
            for (Route c : routes.routes()) {
                if (c.gateway() == 0 && c.itf() == r.itf() && c.matches(gw)) {
                    onLink = true;
                    break;
                }
            }
        }
        if (!onLink) throw new IllegalArgumentException("Nexthop has invalid gateway: " + r);
    }

    /**
     * Adds the routes of a file in {@code ip route} syntax ({@link IpRouteFile}), {@code dev} names
     * resolved among this namespace's interfaces; each route is added as {@link #addRoute(Route)} adds it,
     * in file order (a connected route before the routes via gateways on it). All or nothing: a bad line
     * (IllegalArgumentException naming the file and line), a gateway not on-link ("Nexthop has invalid
     * gateway") or a route that exists ("File exists", EEXIST) leaves the table as it was.
     *
     * @return the number of routes added
     */
    public int loadRoutes(Path file) throws IOException {
        List<Route> rs = IpRouteFile.load(file, ns::interfaceByName);
        for (int i = 0; i < rs.size(); i++) {
            try {
                addRoute(rs.get(i));
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
        boolean fragment = Ipv4.isFragment(b, off);
        // Early demux before the input route (Linux ip_rcv_finish_core): the switch is read once per packet, and
        // the protocol's result travels with the packet, so a later flip cannot split one packet between paths.
        IpProtocolHandler h = null;
        boolean handlerRead = false;
        InputRouteCache rxDst = null;
        if (!fragment && pkt.socket() == null && sysctl.ipEarlyDemux.enabled()) {
            h = protocols[Ipv4.protocol(b, off)]; // read once
            handlerRead = true;
            if (h != null) {
                int hl = Ipv4.headerLength(b, off);
                pkt.setNetworkOffset(off);
                pkt.pull(hl);
                pkt.setTransportOffset(pkt.dataStart());
                rxDst = h.earlyDemux(pkt, src, dst);
                pkt.push(hl);
            }
        }
        int generation = routes.generation(); // before the decision: a change during it leaves the cache stale
        if (rxDst == null || !rxDst.valid(in, generation)) {
            if (!routeInput(in, pkt, off, src, dst)) return; // forwarded or dropped
            if (rxDst != null) rxDst.set(in, generation);
        }
        if (fragment) {
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
        if (!handlerRead) h = protocols[protocol]; // read once
        if (h == null) {
            mib.inc(MibCounter.IpInUnknownProtos);
            IcmpErrorSender s = icmp;
            if (s != null && !in.isBroadcast(dst)) s.sendError(pkt, Icmp.DEST_UNREACH, Icmp.CODE_PROTO_UNREACH, 0);
            pkt.release();
            return;
        }
        mib.inc(MibCounter.IpInDelivers);
        h.receive(pkt, src, dst);
    }

    /**
     * The input routing decision (Linux ip_route_input_noref) for a packet that early demux did not serve from a
     * socket's {@link InputRouteCache}: local delivery (true), or forwarding or a drop (false; {@code pkt} was
     * taken). Counted once per call in IpExtJnetRouteLookups, the reverse path check included.
     */
    private boolean routeInput(Interface in, PacketBuffer pkt, int off, int src, int dst) {
        mib.inc(MibCounter.IpExtJnetRouteLookups);
        boolean local = ns.isLocalAddress(dst) || in.isBroadcast(dst) || dst == -1;
        if (!local) {
            pkt.setSocket(null); // an early-demux result means nothing to a forwarded packet
            pkt.setNetworkOffset(off);
            forward(in, pkt, off, src, dst);
            return false;
        }
        if (Ipv4.isMulticast(src) || src == -1) {
            mib.inc(MibCounter.IpInAddrErrors);
            pkt.release();
            return false;
        }
        if (!in.device().isLoopback()) {
            int rpf = in.conf().effectiveRpFilter(sysctl);
            if (rpf != 0 && !reversePathValid(in, src, rpf)) {
                pkt.release();
                return false;
            }
        }
        return true;
    }

    // ---- forwarding ------------------------------------------------------------------------------

    /** A source that is never forwarded: 0/8, 127/8, 169.254/16, multicast, 255.255.255.255. */
    static boolean isMartianSource(int a) {
        return (a >>> 24) == 0 || Ipv4.isLoopback(a) || isLinkLocal(a) || Ipv4.isMulticast(a) || a == -1;
    }

    /** A destination that is never forwarded: 0/8, 169.254/16 (multicast is not routed either). */
    static boolean isMartianDestination(int a) {
        return (a >>> 24) == 0 || isLinkLocal(a) || Ipv4.isLoopback(a);
    }

    /** 169.254.0.0/16 (RFC 3927). */
    static boolean isLinkLocal(int a) { return (a >>> 16) == 0xA9FE; }

    /**
     * Linux fib_validate_source with rp_filter on: the route back to {@code src} must go out {@code in}
     * (strict, 1) or exist (loose, 2). A failure is counted (TcpExtIPReversePathFilter, and as Linux's
     * ip_handle_martian_source, RtCacheInMartianSrc); a source that is one of this namespace's addresses is
     * a martian (RtCacheInMartianSrc).
     */
    private boolean reversePathValid(Interface in, int src, int rpf) {
        if (ns.isLocalAddress(src)) {
            mib.inc(MibCounter.RtCacheInMartianSrc);
            return false;
        }
        Route back = routes.lookup(src);
        if (back != null && (back.itf() == in || rpf == 2)) return true;
        mib.inc(MibCounter.TcpExtIPReversePathFilter);
        mib.inc(MibCounter.RtCacheInMartianSrc);
        return false;
    }

    /** The input route of a packet for another host, then ip_forward. Takes ownership of {@code pkt}. */
    private void forward(Interface in, PacketBuffer pkt, int off, int src, int dst) {
        if (Ipv4.isMulticast(dst) || !in.conf().forwarding().enabled()) { // read once per packet
            mib.inc(MibCounter.IpInAddrErrors); // no multicast routing; or forwarding off (ip_error, EHOSTUNREACH)
            pkt.release();
            return;
        }
        if (isMartianSource(src)) {
            mib.inc(MibCounter.RtCacheInMartianSrc);
            pkt.release();
            return;
        }
        if (isMartianDestination(dst)) {
            mib.inc(MibCounter.RtCacheInMartianDst);
            pkt.release();
            return;
        }
        Route r = routes.lookup(dst);
        if (r == null) { // ip_error with ENETUNREACH
            mib.inc(MibCounter.IpExtInNoRoutes);
            sendIcmpError(pkt, Icmp.DEST_UNREACH, Icmp.CODE_NET_UNREACH, 0);
            pkt.release();
            return;
        }
        if (r.gateway() == 0 && r.itf().isBroadcast(dst)) { // a directed broadcast (Linux bc_forwarding = 0)
            mib.inc(MibCounter.IpInAddrErrors);
            pkt.release();
            return;
        }
        int rpf = in.conf().effectiveRpFilter(sysctl);
        if (rpf != 0 && !reversePathValid(in, src, rpf)) {
            pkt.release();
            return;
        }
        byte[] b = pkt.array();
        if (Ipv4.ttl(b, off) <= 1) { // ip_forward: too_many_hops
            mib.inc(MibCounter.IpInHdrErrors);
            sendIcmpError(pkt, Icmp.TIME_EXCEEDED, 0, 0);
            pkt.release();
            return;
        }
        Interface outItf = r.itf();
        io.jnet.link.NetDevice out = outItf.device();
        int mtu = out.mtu();
        int total = pkt.length();
        boolean df = Ipv4.dontFragment(b, off);
        int gso = Ipv4.protocol(b, off) == Ipv4.PROTO_TCP ? pkt.gsoSize() : 0;
        if (total > mtu && df && !(gso > 0 && gsoSegmentLength(b, off, gso) <= mtu)) { // ip_exceeds_mtu
            mib.inc(MibCounter.IpFragFails);
            sendIcmpError(pkt, Icmp.DEST_UNREACH, Icmp.CODE_FRAG_NEEDED, mtu);
            pkt.release();
            return;
        }
        Ipv4.decrementTtl(b, off); // ip_decrease_ttl: the checksum updated incrementally
        pkt.setSocket(null);
        int nexthop = r.nextHop(dst);
        if (outItf == in && in.conf().txRedirects(sysctl) && senderOnLink(in, src) && redirectAllowed(src))
            sendIcmpError(pkt, Icmp.REDIRECT, 1, nexthop); // ICMP_REDIR_HOST
        mib.inc(MibCounter.IpForwDatagrams);
        if (total <= mtu || (gso > 0 && total <= out.gsoMaxSize())) {
            sendForwarded(outItf, nexthop, pkt, mtu);
        } else if (gso > 0) {
            segmentGso(pkt, gso, outItf, nexthop, mtu);
        } else {
            sendForwarded(outItf, nexthop, pkt, mtu);
        }
    }

    /** True when the route back to {@code src} is a connected route on {@code in} (fib_validate_source's scope). */
    private boolean senderOnLink(Interface in, int src) {
        Route back = routes.lookup(src);
        return back != null && back.itf() == in && back.gateway() == 0;
    }

    /** Linux ip_rt_redirect_load (HZ/50), ip_rt_redirect_number, ip_rt_redirect_silence ((HZ/50) << 10). */
    private static final long REDIRECT_LOAD_NS = 20_000_000L;
    private static final int REDIRECT_NUMBER = 9;
    private static final long REDIRECT_SILENCE_NS = REDIRECT_LOAD_NS << (REDIRECT_NUMBER + 1);
    /** Per sender: {number of redirects sent, time of the last redirect or of the last packet ignored}. */
    private final java.util.Map<Integer, long[]> redirectPeers = new java.util.HashMap<>();

    /** Linux ip_rt_send_redirect's per-peer limit: whether a redirect may be sent to {@code src} now. */
    private boolean redirectAllowed(int src) {
        long now = ns.clock().nanoTime();
        synchronized (redirectPeers) {
            long[] p = redirectPeers.get(src);
            if (p == null) {
                if (redirectPeers.size() >= 4096) redirectPeers.clear(); // bounded, like inet_peer's GC
                p = new long[] {0, now};
                redirectPeers.put(src, p);
            }
            if (now - p[1] > REDIRECT_SILENCE_NS) p[0] = 0;
            if (p[0] >= REDIRECT_NUMBER) {
                p[1] = now;
                return false;
            }
            if (p[0] == 0 || now - p[1] > (REDIRECT_LOAD_NS << p[0])) {
                p[1] = now;
                p[0]++;
                return true;
            }
            return false;
        }
    }

    /** IP header + TCP header + {@code gso} payload bytes: the size of each segment a large segment is cut into. */
    private static int gsoSegmentLength(byte[] b, int off, int gso) {
        int hl = Ipv4.headerLength(b, off);
        return hl + Tcp.headerLength(b, off + hl) + gso;
    }

    /**
     * Hands a forwarded packet to the output device: completes a transport checksum that was left out when the
     * device does not offload it, copies in data carried by reference when the device does not take it, and
     * fragments a packet larger than {@code mtu} (DF clear; checked by the caller).
     */
    private void sendForwarded(Interface outItf, int nexthop, PacketBuffer pkt, int mtu) {
        io.jnet.link.NetDevice out = outItf.device();
        boolean whole = pkt.length() <= mtu || (pkt.gsoSize() > 0 && pkt.length() <= out.gsoMaxSize());
        if (pkt.checksumPartial() && (!out.checksumOffload() || !whole)) completeTransportChecksum(pkt);
        if (pkt.payloadRegion() != null && !(out.scatterGather() && whole)) pkt.linearize();
        if (whole) {
            neighbours.output(outItf, nexthop, pkt, null);
            return;
        }
        int n = fragmenter.fragment(pkt, mtu, frag -> neighbours.output(outItf, nexthop, frag, null));
        if (n < 0) pkt.release();
    }

    /**
     * Linux tcp_gso_segment: cuts a large TCP segment into segments of {@code gso} payload bytes, each with its
     * own sequence number, IP ID (consecutive), total length and checksums; FIN and PSH stay on the last, CWR on
     * the first. Takes ownership of {@code pkt}.
     */
    private void segmentGso(PacketBuffer pkt, int gso, Interface outItf, int nexthop, int mtu) {
        pkt.linearize();
        byte[] b = pkt.array();
        int off = pkt.dataStart();
        int hl = Ipv4.headerLength(b, off);
        int t = off + hl;
        int total = Ipv4.totalLength(b, off);
        int thl = total - hl >= Tcp.MIN_HEADER_LENGTH ? Tcp.headerLength(b, t) : 0;
        int payload = total - hl - thl;
        if (thl < Tcp.MIN_HEADER_LENGTH || payload < 0) {
            mib.inc(MibCounter.IpOutDiscards);
            pkt.release();
            return;
        }
        int src = Ipv4.source(b, off);
        int dst = Ipv4.destination(b, off);
        int seq = Tcp.seq(b, t);
        int flags = Tcp.flags(b, t);
        int id = Ipv4.identification(b, off);
        try {
            for (int pos = 0, i = 0; pos < payload; pos += gso, i++) {
                int n = Math.min(gso, payload - pos);
                boolean last = pos + n == payload;
                int len = hl + thl + n;
                PacketBuffer seg = ns.allocator().allocate(PacketBuffer.DEFAULT_HEADROOM, len);
                int at = seg.put(len);
                byte[] sb = seg.array();
                System.arraycopy(b, off, sb, at, hl + thl);
                System.arraycopy(b, t + thl + pos, sb, at + hl + thl, n);
                Ipv4.setTotalLength(sb, at, len);
                Bytes.put16(sb, at + 4, (id + i) & 0xFFFF);
                Ipv4.updateChecksum(sb, at);
                int st = at + hl;
                Bytes.put32(sb, st + 4, seq + pos);
                int f = flags;
                if (!last) f &= ~(Tcp.FIN | Tcp.PSH);
                if (i > 0) f &= ~Tcp.CWR;
                sb[st + 13] = (byte) f;
                Tcp.fillChecksum(sb, st, thl + n, src, dst);
                seg.setNetworkOffset(at);
                sendForwarded(outItf, nexthop, seg, mtu);
            }
        } finally {
            pkt.release();
        }
    }

    /** Fills in the TCP or UDP checksum of a packet (data at its IPv4 header) whose checksum was left out. */
    private static void completeTransportChecksum(PacketBuffer pkt) {
        pkt.linearize();
        Ipv4.fillTransportChecksum(pkt.array(), pkt.dataStart());
        pkt.setChecksumPartial(false);
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
