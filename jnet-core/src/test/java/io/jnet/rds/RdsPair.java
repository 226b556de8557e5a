package io.jnet.rds;

import static org.assertj.core.api.Assertions.assertThat;

import io.jnet.socket.RdsSocket;
import io.jnet.socket.SocketOption;
import io.jnet.stack.NetNamespace;
import io.jnet.topology.Topology;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.BooleanSupplier;
import java.util.zip.CRC32;

/** Two namespaces joined by a veth pair (a 10.0.0.1, b 10.0.0.2), and traffic checks for RDS between them. */
final class RdsPair implements AutoCloseable {
    static final String A = "10.0.0.1", B = "10.0.0.2";

    final NetNamespace a = NetNamespace.create("rds-a");
    final NetNamespace b = NetNamespace.create("rds-b");

    RdsPair() {
        Topology.link(a, b, "veth0", A + "/24", B + "/24");
    }

    RdsProtocol rdsA() { return RdsProtocol.of(a); }

    RdsProtocol rdsB() { return RdsProtocol.of(b); }

    RdsConnection connA() throws Exception { return rdsA().connection(InetAddress.getByName(A), InetAddress.getByName(B)); }

    RdsConnection connB() throws Exception { return rdsB().connection(InetAddress.getByName(B), InetAddress.getByName(A)); }

    static InetSocketAddress addr(String a, int port) { return new InetSocketAddress(a, port); }

    static RdsSocket open(NetNamespace ns, String addr, int port) throws Exception {
        RdsSocket s = ns.openRdsSocket();
        s.bind(addr(addr, port));
        s.setOption(SocketOption.SO_RCVTIMEO, Duration.ofSeconds(20));
        s.setOption(SocketOption.SO_SNDTIMEO, Duration.ofSeconds(20));
        return s;
    }

    /** Waits up to 10 s for {@code cond}; false when it never held. */
    static boolean await(BooleanSupplier cond) throws InterruptedException {
        long end = System.nanoTime() + 10_000_000_000L;
        while (System.nanoTime() < end) {
            if (cond.getAsBoolean()) return true;
            Thread.sleep(1);
        }
        return cond.getAsBoolean();
    }

    /**
     * A message of the traffic check: sender port, receiver port, sequence, then bytes derived from them, and a
     * CRC32 of all before it in the last 8 bytes.
     */
    static byte[] message(int sport, int dport, int seq, int len) {
        len = Math.max(len, 20);
        byte[] m = new byte[len];
        java.nio.ByteBuffer bb = java.nio.ByteBuffer.wrap(m);
        bb.putInt(sport).putInt(dport).putInt(seq);
        long x = sport * 31L + dport * 17L + seq;
        for (int i = 12; i < len - 8; i++) {
            x = x * 6364136223846793005L + 1442695040888963407L;
            m[i] = (byte) (x >>> 56);
        }
        CRC32 crc = new CRC32();
        crc.update(m, 0, len - 8);
        bb.putLong(len - 8, crc.getValue());
        return m;
    }

    /** Per-receiver bookkeeping: the next sequence expected from each sender, and every anomaly. */
    static final class Checker {
        final Map<String, Integer> next = new HashMap<>();
        final List<String> errors = new ArrayList<>();
        int received;

        void check(byte[] m, int len, InetSocketAddress sender, int myPort) {
            received++;
            java.nio.ByteBuffer bb = java.nio.ByteBuffer.wrap(m, 0, len);
            int sport = bb.getInt(), dport = bb.getInt(), seq = bb.getInt();
            CRC32 crc = new CRC32();
            crc.update(m, 0, len - 8);
            if (crc.getValue() != bb.getLong(len - 8)) errors.add("bad content from " + sender + " seq " + seq);
            if (sport != sender.getPort() || dport != myPort) errors.add("ports " + sport + ">" + dport + " from " + sender);
            String key = sender.toString();
            int want = next.getOrDefault(key, 0);
            if (seq != want) errors.add((seq < want ? "duplicate/reordered" : "lost") + " from " + key + ": got " + seq + " want " + want);
            next.put(key, seq + 1);
        }
    }

    /**
     * Every socket of {@code as} sends {@code n} messages to every socket of {@code bs} and the other way, all
     * at once (a sender and a receiver thread per socket); returns the anomalies (none expected).
     */
    static List<String> exchange(List<RdsSocket> as, List<RdsSocket> bs, int n, int maxLen) throws Exception {
        List<String> errors = java.util.Collections.synchronizedList(new ArrayList<>());
        List<Thread> threads = new ArrayList<>();
        AtomicReference<Throwable> failure = new AtomicReference<>();
        Map<RdsSocket, Checker> checkers = new ConcurrentHashMap<>();
        for (int side = 0; side < 2; side++) {
            List<RdsSocket> mine = side == 0 ? as : bs, theirs = side == 0 ? bs : as;
            for (RdsSocket s : mine) {
                int sport = s.localAddress().getPort();
                threads.add(Thread.ofPlatform().start(() -> {
                    try {
                        java.util.Random r = new java.util.Random(sport);
                        for (int i = 0; i < n; i++) {
                            for (RdsSocket t : theirs) {
                                byte[] m = message(sport, t.localAddress().getPort(), i, r.nextInt(maxLen + 1));
                                s.send(m, 0, m.length, t.localAddress());
                            }
                        }
                    } catch (Throwable e) {
                        failure.compareAndSet(null, e);
                    }
                }));
                Checker c = new Checker();
                checkers.put(s, c);
                int expect = n * theirs.size();
                threads.add(Thread.ofPlatform().start(() -> {
                    try {
                        byte[] buf = new byte[maxLen + 100];
                        for (int i = 0; i < expect; i++) {
                            RdsSocket.Received rc = s.receive(buf, 0, buf.length);
                            c.check(buf, rc.length(), rc.sender(), sport);
                        }
                    } catch (Throwable e) {
                        failure.compareAndSet(null, e);
                    }
                }));
            }
        }
        for (Thread t : threads) t.join(120_000);
        if (failure.get() != null) throw new AssertionError("traffic failed", failure.get());
        for (Checker c : checkers.values()) errors.addAll(c.errors);
        return errors;
    }

    /** Both sides' connections and counters, for a failure message. */
    String dump() {
        StringBuilder sb = new StringBuilder();
        for (RdsProtocol r : List.of(rdsA(), rdsB())) {
            for (RdsConnection c : r.connections()) {
                sb.append(c).append(" tx ").append(c.nextTxSequence()).append(" rx ").append(c.nextRxSequence())
                        .append(" sq ").append(c.sendQueueSize()).append(" rq ").append(c.retransmitQueueSize())
                        .append(" tcp ").append(c.tc).append('\n');
            }
            r.statistics().snapshot().forEach((k, v) -> { if (v != 0) sb.append(k).append(' ').append(v).append(", "); });
            sb.append('\n');
        }
        return sb.toString();
    }

    void assertNoInternalErrors() {
        assertThat(a.internalErrors()).as("internal errors in a: %s", a.lastInternalError()).isZero();
        assertThat(b.internalErrors()).as("internal errors in b: %s", b.lastInternalError()).isZero();
    }

    @Override
    public void close() {
        a.close();
        b.close();
    }
}
