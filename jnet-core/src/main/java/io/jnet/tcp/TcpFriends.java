package io.jnet.tcp;

import io.jnet.buffer.PacketBuffer;
import io.jnet.ip.Route;
import io.jnet.link.NetDevice;
import io.jnet.socket.Errno;
import io.jnet.stack.MibCounter;
import io.jnet.wire.Tcp;

/**
 * TCP friends ({@code net.ipv4.tcp_friends}, after the Linux friends patch): a loopback connection whose two
 * ends are sockets of one namespace pairs at the handshake, and its data then bypasses TCP output, IP, the
 * device and TCP input ({@link FriendsDataPath}).
 *
 * <p>The handshake is plain TCP over {@code lo}, byte for byte: the SYN carries nothing; the SYN-ACK carries
 * the listening side's new connection and the final ACK the client's end of the pairing, both as in-process
 * metadata on the packet buffer ({@link PacketBuffer#friend()}, the patch's {@code skb->friend}), never as a TCP
 * option. A connection pairs only when the sysctl was on when its SYN was sent (client) and received (server),
 * both ends saw the handshake on a device that {@link NetDevice#allowsBypass() allows bypass}, and both are
 * sockets of the same stack. Flipping the sysctl changes new connections only.
 *
 * <p>A sniffer or an impairment on {@code lo} turns pairing off (the decorated device does not allow bypass):
 * such connections stay plain TCP so the capture and the impairment see real segments; each is counted in
 * TcpExtJnetFriendsFallback. A SYN answered with a SYN cookie is not paired either (no state is kept).
 *
 * <p>After pairing, FIN, RST, keepalive probes and window probes still travel as segments, with sequence numbers
 * that count the bytes moved through the pipes, so shutdown, close, abort and timeouts behave as for plain TCP.
 */
final class TcpFriends {
    private TcpFriends() {}

    /** Client, connect(2): whether this connection will try to pair (the sysctl at the time of the SYN). */
    static void onConnect(TcpConnection c) {
        c.friendsWanted = c.tcp.sysctl.tcpFriends.enabled();
    }

    /** Server, a SYN created {@code child}: its SYN-ACKs offer pairing when the SYN came over a bypassable lo. */
    static void offer(TcpConnection child, PacketBuffer syn) {
        if (!child.tcp.sysctl.tcpFriends.enabled()) return;
        if (!bypassable(syn.inputDevice()) || !bypassable(child)) {
            child.tcp.mib.inc(MibCounter.TcpExtJnetFriendsFallback);
            return;
        }
        child.friendTag = child;
    }

    /**
     * Client, a SYN-ACK was accepted (SYN-SENT to ESTABLISHED): pairs with the connection it offers, if any, before
     * the final ACK is sent; that ACK (and every later segment) carries this end of the pairing.
     */
    static void acceptOffer(TcpConnection c, PacketBuffer synAck) {
        if (!c.friendsWanted) return;
        if (!(synAck.friend() instanceof TcpConnection server) || server.tcp != c.tcp
                || server.localPort != c.remotePort || server.remotePort != c.localPort
                || server.localAddr != c.remoteAddr || server.remoteAddr != c.localAddr) {
            return;
        }
        if (!bypassable(synAck.inputDevice()) || !bypassable(c)) {
            c.tcp.mib.inc(MibCounter.TcpExtJnetFriendsFallback);
            return;
        }
        FriendsDataPath[] ends = FriendsDataPath.pair(c, server);
        c.dataPath = ends[0];
        c.friendTag = ends[1]; // the server's end travels to it on the final ACK
    }

    /**
     * Server, the ACK that completes {@code child}'s handshake: takes its end of the pairing when the ACK carries
     * one made for it.
     */
    static void complete(TcpConnection child, PacketBuffer ack) {
        if (child.friendTag != child) return; // not offered
        child.friendTag = null;
        if (ack.friend() instanceof FriendsDataPath end && end.owner == child) {
            child.dataPath = end;
            child.tcp.mib.inc(MibCounter.TcpExtJnetFriendsPaired);
        }
    }

    /** True when the connection is paired with a friend. */
    static boolean isPaired(TcpConnection c) { return c.dataPath instanceof FriendsDataPath; }

    /**
     * A friend wrote to {@code c} after its application closed it, or shut it down both ways: as plain TCP would on
     * that data (Linux TCPAbortOnData), {@code c} resets the writer and closes with ECONNRESET, now or when its
     * owner lets go.
     */
    static void dataToClosedFriend(TcpConnection c) {
        c.lock.deferOrRun(TcpConnection.DEFER_FRIEND_DATA);
    }

    /** The deferred half of {@link #dataToClosedFriend}, with {@code c} locked. */
    static void closedFriendGotData(TcpConnection c) {
        if (c.state == TcpState.CLOSED) {
            // no socket any more (TIME-WAIT's remnant or none): the stack answers the data with RST
            c.tcp.reset().send(c.localAddr, c.localPort, c.remoteAddr, c.remotePort, c.sndMax, 0, Tcp.RST, 0, null);
            return;
        }
        c.tcp.mib.inc(MibCounter.TcpExtTCPAbortOnData);
        TcpOutput.abort(c, c.userClosed ? 0 : Errno.ECONNRESET.number(), true); // tcp_reset's error, seen after SHUT_RDWR
    }

    private static boolean bypassable(Object inputDevice) {
        return inputDevice instanceof NetDevice d && d.allowsBypass();
    }

    private static boolean bypassable(TcpConnection c) {
        Route r = c.tcp.ip.route(c.remoteAddr, c.dst);
        return r != null && r.itf().device().allowsBypass();
    }
}
