package io.jnet.perf;

import io.jnet.socket.Errno;
import io.jnet.socket.ErrnoException;
import io.jnet.socket.LocalServerSocket;
import io.jnet.socket.LocalSocket;
import io.jnet.socket.SocketOption;
import io.jnet.stack.NetNamespace;
import io.jnet.stack.Sysctl;
import java.io.IOException;
import java.net.SocketAddress;
import java.net.UnixDomainSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * jnet's local stream sockets ({@link LocalSocket}, the AF_UNIX SOCK_STREAM analogue) as a {@link PerfPath},
 * registered in {@link PathRegistry} as {@code jnet:unix}: client and server in one namespace, meeting by a
 * name in its name table, as {@code kernel:unix} meets through a socket file. It runs the TCP byte-stream tests
 * (TCP_STREAM, TCP_MAERTS, TCP_SENDFILE through {@link LocalSocket#transferFrom}, TCP_RR, TCP_CRR) and, like
 * {@code kernel:unix}, neither the UDP tests nor {@code -D} ({@link PathRegistry#unixNotApplicable}). The given
 * sysctls are set in the namespace before any socket opens (net.core.wmem_default sizes the send buffers,
 * net.core.busy_read the busy polling of blocked reads).
 */
public final class JnetUnixPath {

    private static final int BACKLOG = 128;

    private JnetUnixPath() {}

    /**
     * One namespace with a listener per test run, named {@code perf-N} and unlinked when it closes.
     *
     * @param sysctls Linux sysctl name to value, set in the namespace in order
     * @throws IllegalArgumentException for an unknown sysctl or a bad value
     */
    public static PerfPath open(Map<String, String> sysctls) {
        NetNamespace ns = NetNamespace.create("perf-unix");
        try {
            StringBuilder settings = new StringBuilder();
            for (Map.Entry<String, String> e : sysctls.entrySet()) {
                ns.sysctl().set(e.getKey(), e.getValue());
                Sysctl s = ns.sysctl().lookup(e.getKey());
                settings.append(", ").append(s.name()).append('=').append(s.get());
            }
            return new Path(ns, "local stream sockets in one jnet namespace (AF_UNIX analogue" + settings + ")");
        } catch (RuntimeException e) {
            ns.close();
            throw e;
        }
    }

    private static final class Path implements PerfPath {
        private final NetNamespace ns;
        private final String description;
        private final AtomicInteger names = new AtomicInteger();

        Path(NetNamespace ns, String description) {
            this.ns = ns;
            this.description = description;
        }

        @Override
        public String stack() { return JnetPaths.STACK; }

        @Override
        public String description() { return description; }

        @Override
        public PerfListener listen(SocketSettings server) throws IOException {
            LocalServerSocket s = LocalServerSocket.open(ns);
            String name = "perf-" + names.incrementAndGet();
            try {
                s.bind(name);
                s.listen(BACKLOG);
                return new Listener(ns, s, name, server);
            } catch (IOException | RuntimeException e) {
                s.close();
                unlinkQuietly(ns, name);
                throw e;
            }
        }

        @Override
        public PerfConnection connect(PerfListener listener, SocketSettings client) throws IOException {
            LocalSocket s = LocalSocket.open(ns);
            try {
                apply(s, client);
                s.connect(((UnixDomainSocketAddress) listener.address()).getPath().toString());
                return new Connection(s);
            } catch (IOException | RuntimeException e) {
                s.close();
                throw e;
            }
        }

        @Override
        public void close() { ns.close(); }
    }

    private static final class Listener implements PerfListener {
        private final NetNamespace ns;
        private final LocalServerSocket socket;
        private final String name;
        private final SocketSettings settings;

        Listener(NetNamespace ns, LocalServerSocket socket, String name, SocketSettings settings) {
            this.ns = ns;
            this.socket = socket;
            this.name = name;
            this.settings = settings;
        }

        @Override
        public PerfConnection accept() throws IOException {
            LocalSocket s = socket.accept();
            try {
                apply(s, settings);
                return new Connection(s);
            } catch (IOException | RuntimeException e) {
                s.close();
                throw e;
            }
        }

        @Override
        public SocketAddress address() { return UnixDomainSocketAddress.of(name); }

        /** Closes the listener and removes its name, as the kernel path deletes its socket file. */
        @Override
        public void close() {
            socket.close();
            unlinkQuietly(ns, name);
        }
    }

    private static final class Connection implements PerfConnection {
        private final LocalSocket socket;

        Connection(LocalSocket socket) { this.socket = socket; }

        @Override
        public int read(ByteBuffer dst) throws IOException { return socket.read(dst); }

        @Override
        public int write(ByteBuffer src) throws IOException { return socket.write(src); }

        @Override
        public long transferFrom(FileChannel file, long position, long count) throws IOException {
            return socket.transferFrom(file, position, count);
        }

        @Override
        public void shutdownOutput() throws IOException { socket.shutdownOutput(); }

        @Override
        public int sendBufferSize() throws IOException { return socket.getOption(SocketOption.SO_SNDBUF); }

        @Override
        public int receiveBufferSize() throws IOException { return socket.getOption(SocketOption.SO_RCVBUF); }

        @Override
        public void close() { socket.close(); }
    }

    /** SO_SNDBUF and SO_RCVBUF as netperf's -s/-S; -D never comes here ({@link PathRegistry#unixNotApplicable}). */
    private static void apply(LocalSocket s, SocketSettings settings) throws IOException {
        if (settings.setsSendBuffer()) s.setOption(SocketOption.SO_SNDBUF, settings.sendBufferBytes());
        if (settings.setsReceiveBuffer()) s.setOption(SocketOption.SO_RCVBUF, settings.receiveBufferBytes());
        if (settings.noDelay()) throw new UnsupportedOperationException("TCP_NODELAY (-D) does not apply to local sockets");
    }

    private static void unlinkQuietly(NetNamespace ns, String name) {
        try {
            ns.unlink(name);
        } catch (ErrnoException e) {
            if (e.errno() != Errno.ENOENT) ns.reportInternalError(e);
        } catch (IOException | RuntimeException e) {
            // the namespace is closing: its names go with it
        }
    }
}
