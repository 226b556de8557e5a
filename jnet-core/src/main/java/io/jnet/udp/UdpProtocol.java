package io.jnet.udp;

import io.jnet.buffer.PacketBuffer;
import io.jnet.ip.InputRouteCache;
import io.jnet.ip.IpProtocolHandler;
import io.jnet.ip.Ipv4Layer;
import io.jnet.socket.Errno;
import io.jnet.socket.ErrnoException;
import io.jnet.socket.UdpSocket;
import io.jnet.stack.Mib;
import io.jnet.stack.MibCounter;
import io.jnet.stack.NetNamespace;
import io.jnet.stack.Sysctls;
import io.jnet.wire.Icmp;
import io.jnet.wire.Ipv4;
import io.jnet.wire.Udp;
import java.util.List;

/**
 * UDP (RFC 768) for one namespace, following Linux's {@code __udp4_lib_rcv}: validates length and
 * checksum (a zero checksum means none was computed), demultiplexes to the best matching socket
 * ({@link UdpPortTable#lookup}: connected 4-tuple, then bound address, then wildcard), delivers broadcasts
 * to every matching socket, and answers a unicast datagram without a socket with ICMP port unreachable.
 *
 * <p>Counters (Linux /proc/net/snmp names): UdpInErrors for malformed datagrams and receive-buffer drops,
 * UdpInCsumErrors for bad checksums, UdpNoPorts for unicast datagrams without a socket, UdpRcvbufErrors for
 * datagrams dropped because the socket's receive buffer was full, UdpOutDatagrams per datagram sent, and,
 * as Linux does, UdpInDatagrams per datagram handed to the application by {@code receive}.
 */
public final class UdpProtocol implements IpProtocolHandler {
    final NetNamespace ns;
    final Ipv4Layer ip;
    final Mib mib;
    final Sysctls sysctl;
    final UdpPortTable ports;

    public UdpProtocol(NetNamespace ns) {
        this.ns = ns;
        this.ports = new UdpPortTable(ns::randomInt);
        this.ip = ns.extension(Ipv4Layer.class);
        this.mib = ns.mib();
        this.sysctl = ns.sysctl();
        ip.registerProtocol(Ipv4.PROTO_UDP, this);
        ns.registerSocketFactory(UdpSocket.class, () -> new UdpSocketImpl(this));
        ns.onClose(this::closeAll);
    }

    // ---- receive ---------------------------------------------------------------------------------

    @Override
    public void receive(PacketBuffer pkt, int src, int dst) {
        try {
            byte[] b = pkt.array();
            int off = pkt.dataStart();
            int v = Udp.validate(b, off, pkt.length(), !pkt.checksumUnnecessary(), src, dst);
            if (v != Udp.OK) {
                if (v == Udp.ERR_CHECKSUM) mib.inc(MibCounter.UdpInCsumErrors);
                mib.inc(MibCounter.UdpInErrors);
                pkt.release();
                return;
            }
            pkt.trim(Udp.length(b, off));
            int sport = Udp.sourcePort(b, off);
            int dport = Udp.destinationPort(b, off);
            if (dst == -1 || Ipv4.isMulticast(dst) || !ns.isLocalAddress(dst)) {
                pkt.setSocket(null); // an early-demux result for a directed broadcast is not used
                deliverBroadcast(pkt, src, sport, dst, dport);
                return;
            }
            UdpSocketImpl s = demuxed(pkt, src, sport, dst, dport);
            if (s == null) {
                mib.inc(MibCounter.UdpNoPorts);
                ip.sendIcmpError(pkt, Icmp.DEST_UNREACH, Icmp.CODE_PORT_UNREACH, 0);
                pkt.release();
                return;
            }
            s.datagramArrived(pkt, src, sport);
        } catch (RuntimeException e) {
            ns.reportInternalError(e);
            pkt.release();
        }
    }

    /**
     * Broadcast delivery: a copy to every matching socket, no ICMP error when none matches (RFC 1122
     * 3.2.2: never an ICMP error about a broadcast); datagrams nobody wants are counted in UdpIgnoredMulti.
     */
    private void deliverBroadcast(PacketBuffer pkt, int src, int sport, int dst, int dport) {
        mib.inc(MibCounter.IpExtJnetSocketLookups);
        List<UdpSocketImpl> targets = ports.lookupAll(dst, dport, src, sport);
        if (targets.isEmpty()) {
            mib.inc(MibCounter.UdpIgnoredMulti);
            pkt.release();
            return;
        }
        for (int i = 0; i < targets.size() - 1; i++) targets.get(i).datagramArrived(pkt.copy(), src, sport);
        targets.get(targets.size() - 1).datagramArrived(pkt, src, sport);
    }

    /**
     * The socket for a unicast datagram: early demux's result when it ran ({@link #earlyDemux}; no second lookup,
     * "no socket" included), else one lookup in the port table. A socket that left the port since is looked up
     * again.
     */
    private UdpSocketImpl demuxed(PacketBuffer pkt, int src, int sport, int dst, int dport) {
        Object demuxed = pkt.socket();
        pkt.setSocket(null); // consumed: a buffer sent on again must not carry it
        if (demuxed == NO_SOCKET) return null;
        if (demuxed instanceof UdpSocketImpl u && u.localPort == dport
                && (u.connected ? u.matchesExactly(dst, dport, src, sport) : u.boundAddr == 0 || u.boundAddr == dst)) return u;
        mib.inc(MibCounter.IpExtJnetSocketLookups);
        return ports.lookup(dst, dport, src, sport);
    }

    /** Early demux's result for a datagram that no socket receives. */
    private static final Object NO_SOCKET = new Object();

    /**
     * Early demux (Linux's {@code udp_v4_early_demux}, gated by net.ipv4.udp_early_demux, read once here) for a
     * unicast datagram. Unlike Linux, which looks for a connected socket only and leaves unconnected traffic a
     * second, full lookup in {@code __udp4_lib_rcv}, this does the full lookup ({@link UdpPortTable#lookup}, the
     * same cost: one walk of the port's sockets) and hands its result, or {@link #NO_SOCKET}, to {@link #receive},
     * which does not look again: every unicast datagram costs one socket lookup with the switch on or off. A
     * connected socket with this 4-tuple is a hit (IpExtJnetEarlyDemuxHits) and its cached input route is
     * returned; an unconnected socket or none is a miss (IpExtJnetEarlyDemuxMisses). A datagram for a directed
     * broadcast address is looked up here and again by the broadcast delivery.
     */
    @Override
    public InputRouteCache earlyDemux(PacketBuffer pkt, int src, int dst) {
        if (!sysctl.udpEarlyDemux.enabled() || pkt.length() < Udp.HEADER_LENGTH) return null;
        if (dst == -1 || Ipv4.isMulticast(dst)) return null;
        byte[] b = pkt.array();
        int off = pkt.dataStart();
        int dport = Udp.destinationPort(b, off);
        int sport = Udp.sourcePort(b, off);
        mib.inc(MibCounter.IpExtJnetSocketLookups);
        UdpSocketImpl s = ports.lookup(dst, dport, src, sport);
        if (s == null) {
            mib.inc(MibCounter.IpExtJnetEarlyDemuxMisses);
            pkt.setSocket(NO_SOCKET);
            return null;
        }
        pkt.setSocket(s);
        if (s.matchesExactly(dst, dport, src, sport)) {
            mib.inc(MibCounter.IpExtJnetEarlyDemuxHits);
            return s.rxDst;
        }
        mib.inc(MibCounter.IpExtJnetEarlyDemuxMisses);
        return null;
    }

    /**
     * An ICMP error quoting a datagram we sent (Linux's {@code __udp4_lib_err}): the socket that sent it
     * records a hard error ({@link IcmpErrorMap}) as its pending error when it is connected.
     */
    @Override
    public void icmpError(int type, int code, int info, byte[] b, int off, int len) {
        int hl = Ipv4.headerLength(b, off);
        if (len < hl + Udp.HEADER_LENGTH) return;
        int src = Ipv4.source(b, off);
        int dst = Ipv4.destination(b, off);
        int sport = Udp.sourcePort(b, off + hl);
        int dport = Udp.destinationPort(b, off + hl);
        // the quoted datagram went from us (src:sport) to the peer (dst:dport)
        mib.inc(MibCounter.IpExtJnetSocketLookups);
        UdpSocketImpl s = ports.lookup(src, sport, dst, dport);
        if (s == null || !s.connected) return;
        Errno err = IcmpErrorMap.hardError(type, code);
        if (err != null) s.icmpError(err);
    }

    // ---- ports -----------------------------------------------------------------------------------

    /**
     * Binds {@code s} on {@code addr}:{@code port} (0 = an ephemeral port from net.ipv4.ip_local_port_range).
     *
     * @throws ErrnoException EADDRINUSE
     */
    int bind(UdpSocketImpl s, int addr, int port) throws ErrnoException {
        return ports.bind(s, addr, port, sysctl.ipLocalPortRange.intValue(0), sysctl.ipLocalPortRange.intValue(1));
    }

    /** Number of bound UDP sockets (as {@code ss -uan} would list). */
    public int socketCount() { return ports.all().size(); }

    private void closeAll() {
        for (UdpSocketImpl s : ports.all()) s.close();
    }
}
