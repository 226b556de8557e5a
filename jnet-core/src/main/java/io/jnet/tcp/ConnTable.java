package io.jnet.tcp;

/**
 * The established-connection hash (Linux's ehash): 4-tuple to connection or TIME-WAIT remnant.
 * Striped locks; lookups allocate nothing.
 */
final class ConnTable {
    private static final int BUCKETS = 1 << 14;
    private static final int STRIPES = 64;
    private final TcpEndpoint[] buckets = new TcpEndpoint[BUCKETS];
    private final Object[] locks = new Object[STRIPES];
    private final java.util.concurrent.atomic.AtomicInteger size = new java.util.concurrent.atomic.AtomicInteger();

    ConnTable() {
        for (int i = 0; i < STRIPES; i++) locks[i] = new Object();
    }

    private static int bucket(int laddr, int lport, int raddr, int rport) {
        return ConnKey.hash(laddr, lport, raddr, rport) & (BUCKETS - 1);
    }

    TcpEndpoint lookup(int laddr, int lport, int raddr, int rport) {
        int b = bucket(laddr, lport, raddr, rport);
        synchronized (locks[b & (STRIPES - 1)]) {
            for (TcpEndpoint e = buckets[b]; e != null; e = e.hashNext) {
                if (e.matches(laddr, lport, raddr, rport)) return e;
            }
            return null;
        }
    }

    /** Inserts {@code e} unless its tuple is taken; returns the existing endpoint, or null when inserted. */
    TcpEndpoint insertIfAbsent(TcpEndpoint e) {
        int b = bucket(e.localAddr, e.localPort, e.remoteAddr, e.remotePort);
        synchronized (locks[b & (STRIPES - 1)]) {
            for (TcpEndpoint x = buckets[b]; x != null; x = x.hashNext) {
                if (x.matches(e.localAddr, e.localPort, e.remoteAddr, e.remotePort)) return x;
            }
            e.hashNext = buckets[b];
            buckets[b] = e;
            e.hashed = true;
            size.incrementAndGet();
            return null;
        }
    }

    /** Replaces {@code old} by {@code repl} (same tuple) atomically; false when {@code old} is not there. */
    boolean replace(TcpEndpoint old, TcpEndpoint repl) {
        int b = bucket(old.localAddr, old.localPort, old.remoteAddr, old.remotePort);
        synchronized (locks[b & (STRIPES - 1)]) {
            TcpEndpoint prev = null;
            for (TcpEndpoint x = buckets[b]; x != null; prev = x, x = x.hashNext) {
                if (x == old) {
                    repl.hashNext = x.hashNext;
                    if (prev == null) buckets[b] = repl; else prev.hashNext = repl;
                    x.hashNext = null;
                    x.hashed = false;
                    repl.hashed = true;
                    return true;
                }
            }
            return false;
        }
    }

    boolean remove(TcpEndpoint e) {
        int b = bucket(e.localAddr, e.localPort, e.remoteAddr, e.remotePort);
        synchronized (locks[b & (STRIPES - 1)]) {
            TcpEndpoint prev = null;
            for (TcpEndpoint x = buckets[b]; x != null; prev = x, x = x.hashNext) {
                if (x == e) {
                    if (prev == null) buckets[b] = x.hashNext; else prev.hashNext = x.hashNext;
                    x.hashNext = null;
                    x.hashed = false;
                    size.decrementAndGet();
                    return true;
                }
            }
            return false;
        }
    }

    int size() { return size.get(); }

    /** Every endpoint (a snapshot, for close and display). */
    java.util.List<TcpEndpoint> snapshot() {
        java.util.List<TcpEndpoint> l = new java.util.ArrayList<>();
        for (int b = 0; b < BUCKETS; b++) {
            synchronized (locks[b & (STRIPES - 1)]) {
                for (TcpEndpoint x = buckets[b]; x != null; x = x.hashNext) l.add(x);
            }
        }
        return l;
    }
}
