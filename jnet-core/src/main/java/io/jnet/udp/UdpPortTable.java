package io.jnet.udp;

import io.jnet.socket.Errno;
import io.jnet.socket.ErrnoException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicReferenceArray;

/**
 * The UDP socket hash of one namespace (Linux's {@code udp_table}): for every local port, the sockets
 * bound to it, most recently bound first. Lookups from the receive path read one volatile array slot and
 * take no lock; binds, unbinds and rehashes are serialized on the table.
 *
 * <p>Bind conflicts follow Linux's {@code udp_lib_lport_inuse}: two sockets on one port conflict when
 * their bound addresses overlap (equal, or either is the wildcard 0.0.0.0) unless both set SO_REUSEADDR.
 */
final class UdpPortTable {
    private final java.util.function.IntUnaryOperator random;

    /** @param random returns a random int in [0, bound) (the namespace's generator) */
    UdpPortTable(java.util.function.IntUnaryOperator random) { this.random = random; }

    private static final UdpSocketImpl[] EMPTY = new UdpSocketImpl[0];

    /** Port (0..65535) to the sockets bound on it; null when none. Arrays are never modified in place. */
    private final AtomicReferenceArray<UdpSocketImpl[]> byPort = new AtomicReferenceArray<>(65536);

    /** The sockets bound to {@code port} (possibly empty); the array must not be modified. */
    UdpSocketImpl[] socketsOn(int port) {
        UdpSocketImpl[] s = byPort.get(port);
        return s == null ? EMPTY : s;
    }

    /**
     * Binds {@code sock} on {@code addr}:{@code port}; port 0 picks an ephemeral port from
     * {@code [low, high]} (a random start, then the first port without a conflict, like Linux's
     * {@code udp_lib_get_port}). Sets the socket's local address and port. Returns the port.
     *
     * @throws ErrnoException EADDRINUSE when the port conflicts, or when every ephemeral port does
     */
    synchronized int bind(UdpSocketImpl sock, int addr, int port, int low, int high) throws ErrnoException {
        if (port != 0) {
            if (conflicts(sock, addr, port)) throw new ErrnoException(Errno.EADDRINUSE, "bind");
            insert(sock, addr, port);
            return port;
        }
        int n = high - low + 1;
        int start = random.applyAsInt(n);
        for (int i = 0; i < n; i++) {
            int p = low + (start + i) % n;
            if (!conflicts(sock, addr, p)) {
                insert(sock, addr, p);
                return p;
            }
        }
        throw new ErrnoException(Errno.EADDRINUSE, "bind: no free ephemeral port");
    }

    private boolean conflicts(UdpSocketImpl sock, int addr, int port) {
        for (UdpSocketImpl o : socketsOn(port)) {
            if (o == sock) continue;
            int oa = o.boundAddr;
            boolean overlap = addr == 0 || oa == 0 || addr == oa;
            if (overlap && !(sock.reuseAddr && o.reuseAddr)) return true;
        }
        return false;
    }

    private void insert(UdpSocketImpl sock, int addr, int port) {
        sock.boundAddr = addr;
        sock.localPort = port;
        UdpSocketImpl[] old = socketsOn(port);
        UdpSocketImpl[] n = new UdpSocketImpl[old.length + 1];
        n[0] = sock;
        System.arraycopy(old, 0, n, 1, old.length);
        byPort.set(port, n);
    }

    /** Removes {@code sock} from its port and sets its local port to 0; no-op when not bound. */
    synchronized void unbind(UdpSocketImpl sock) {
        int port = sock.localPort;
        if (port == 0) return;
        UdpSocketImpl[] old = socketsOn(port);
        List<UdpSocketImpl> rest = new ArrayList<>(old.length);
        for (UdpSocketImpl s : old) if (s != sock) rest.add(s);
        byPort.set(port, rest.isEmpty() ? null : rest.toArray(EMPTY));
        sock.localPort = 0;
    }

    /**
     * Changes the bound address and peer of a bound socket atomically with respect to binds (Linux's
     * {@code udp_v4_rehash} after connect or disconnect). Lookups see each field change on its own.
     */
    synchronized void rehash(UdpSocketImpl sock, int boundAddr, int remoteAddr, int remotePort, boolean connected) {
        sock.remoteAddr = remoteAddr;
        sock.remotePort = remotePort;
        sock.boundAddr = boundAddr;
        sock.connected = connected;
    }

    /**
     * The socket that receives a unicast datagram for {@code daddr:dport} from {@code saddr:sport}, or null.
     * The best score wins (Linux's {@code compute_score}): a bound address equal to {@code daddr} scores 4,
     * a connected peer equal to the sender scores 4 + 4; sockets whose bound address or peer differ are
     * skipped. Among equal scores the most recently bound socket wins.
     */
    UdpSocketImpl lookup(int daddr, int dport, int saddr, int sport) {
        UdpSocketImpl best = null;
        int bestScore = -1;
        for (UdpSocketImpl s : socketsOn(dport)) {
            int score = score(s, daddr, saddr, sport);
            if (score > bestScore) {
                bestScore = score;
                best = s;
            }
        }
        return best;
    }

    /**
     * Every socket that receives a broadcast datagram for {@code daddr:dport} from {@code saddr:sport}
     * (Linux's {@code __udp4_lib_mcast_deliver}): bound to the wildcard or to {@code daddr}, not connected
     * to another peer.
     */
    List<UdpSocketImpl> lookupAll(int daddr, int dport, int saddr, int sport) {
        List<UdpSocketImpl> out = new ArrayList<>(2);
        for (UdpSocketImpl s : socketsOn(dport)) if (score(s, daddr, saddr, sport) >= 0) out.add(s);
        return out;
    }

    /** -1 when {@code s} must not receive the datagram, else its match score. */
    private static int score(UdpSocketImpl s, int daddr, int saddr, int sport) {
        int score = 0;
        int bound = s.boundAddr;
        if (bound != 0) {
            if (bound != daddr) return -1;
            score += 4;
        }
        if (s.connected) {
            if (s.remoteAddr != saddr || s.remotePort != sport) return -1;
            score += 8;
        }
        return score;
    }

    /** Every bound socket (namespace close). */
    synchronized List<UdpSocketImpl> all() {
        List<UdpSocketImpl> out = new ArrayList<>();
        for (int p = 0; p < byPort.length(); p++) {
            UdpSocketImpl[] s = byPort.get(p);
            if (s != null) for (UdpSocketImpl x : s) out.add(x);
        }
        return out;
    }
}
