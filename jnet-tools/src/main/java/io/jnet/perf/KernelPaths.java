package io.jnet.perf;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.net.StandardSocketOptions;
import java.nio.ByteBuffer;
import java.nio.channels.DatagramChannel;
import java.nio.channels.FileChannel;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.nio.file.Files;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The reference: the host kernel through the JDK's blocking NIO channels, registered in
 * {@link PathRegistry} as {@code kernel:tcp} (TCP and UDP over 127.0.0.1 with {@code SocketChannel} and
 * {@code DatagramChannel}) and {@code kernel:unix} (a stream {@code SocketChannel} of
 * {@link StandardProtocolFamily#UNIX}, AF_UNIX/SOCK_STREAM, bound to a socket file in a temporary directory
 * that the path deletes when it closes). TCP_SENDFILE uses {@link FileChannel#transferTo}, which the JDK
 * implements with sendfile(2). The harness creates no kernel namespaces or devices and sets no host sysctls.
 */
public final class KernelPaths {

    /** The name reports use for this stack. */
    public static final String STACK = "kernel";

    private static final int BACKLOG = 128;

    /**
     * On Linux the JDK halves the SO_SNDBUF/SO_RCVBUF that getsockopt(2) reports (the kernel doubles the
     * value set, for its bookkeeping overhead). Multiplying by two again reports what netperf and jnet
     * report: the kernel's own figure.
     */
    private static final int BUFFER_REPORT_FACTOR =
            System.getProperty("os.name", "").toLowerCase(java.util.Locale.ROOT).contains("linux") ? 2 : 1;

    private KernelPaths() {}

    /** TCP and UDP over 127.0.0.1. */
    public static PerfPath tcp() {
        return new Path();
    }

    /**
     * AF_UNIX stream sockets in a new temporary directory (deleted by {@link PerfPath#close()}); no UDP
     * (its {@link PerfPath#bindDatagram} throws UnsupportedOperationException).
     *
     * @throws IOException if the directory cannot be created
     */
    public static PerfPath unix() throws IOException {
        java.nio.file.Path dir = Files.createTempDirectory("jnet-perf-unix");
        dir.toFile().deleteOnExit(); // also when the run is interrupted (Ctrl-C) before close(); emptied first, below
        return new UnixPath(dir);
    }

    /** Connects {@code ch} (TCP or AF_UNIX) to {@code listener} with {@code client}'s options; closes it on failure. */
    private static PerfConnection connectChannel(SocketChannel ch, PerfListener listener, SocketSettings client) throws IOException {
        try {
            apply(ch, client);
            ch.connect(listener.address());
            return new Connection(ch);
        } catch (IOException | RuntimeException e) {
            closeQuietly(ch);
            throw e;
        }
    }

    private static final class Path implements PerfPath {
        private final InetAddress loopback = InetAddress.getLoopbackAddress();

        @Override
        public String stack() { return STACK; }

        @Override
        public String description() { return loopback.getHostAddress() + " via lo (host kernel)"; }

        @Override
        public PerfListener listen(SocketSettings server) throws IOException {
            ServerSocketChannel ch = ServerSocketChannel.open();
            try {
                ch.setOption(StandardSocketOptions.SO_REUSEADDR, true);
                if (server.setsReceiveBuffer()) {
                    ch.setOption(StandardSocketOptions.SO_RCVBUF, server.receiveBufferBytes());
                }
                ch.bind(new InetSocketAddress(loopback, 0), BACKLOG);
                return new Listener(ch, server, null);
            } catch (IOException | RuntimeException e) {
                closeQuietly(ch);
                throw e;
            }
        }

        @Override
        public PerfConnection connect(PerfListener listener, SocketSettings client) throws IOException {
            return connectChannel(SocketChannel.open(), listener, client);
        }

        @Override
        public PerfDatagramSocket bindDatagram(SocketSettings server) throws IOException {
            DatagramChannel ch = DatagramChannel.open();
            try {
                apply(ch, server);
                ch.bind(new InetSocketAddress(loopback, 0));
                return new Udp(ch);
            } catch (IOException | RuntimeException e) {
                closeQuietly(ch);
                throw e;
            }
        }

        @Override
        public PerfDatagramSocket connectDatagram(InetSocketAddress server, SocketSettings client) throws IOException {
            DatagramChannel ch = DatagramChannel.open();
            try {
                apply(ch, client);
                ch.connect(server);
                return new Udp(ch);
            } catch (IOException | RuntimeException e) {
                closeQuietly(ch);
                throw e;
            }
        }

        @Override
        public PerfDatagramSocket[] connectedPair(SocketSettings server, SocketSettings client, int flow) throws IOException {
            Udp srv = (Udp) bindDatagram(server);
            try {
                PerfDatagramSocket cli = connectDatagram(srv.localAddress(), client);
                try {
                    srv.channel.connect(cli.localAddress());
                } catch (IOException | RuntimeException e) {
                    cli.close();
                    throw e;
                }
                return new PerfDatagramSocket[] {srv, cli};
            } catch (IOException | RuntimeException e) {
                srv.close();
                throw e;
            }
        }

        @Override
        public void close() {}
    }

    /** AF_UNIX stream sockets: one socket file per listener in {@code dir}. */
    private static final class UnixPath implements PerfPath {
        private final java.nio.file.Path dir;
        private final AtomicInteger names = new AtomicInteger();

        UnixPath(java.nio.file.Path dir) { this.dir = dir; }

        @Override
        public String stack() { return STACK; }

        @Override
        public String description() { return "AF_UNIX stream sockets in " + dir + " (host kernel)"; }

        @Override
        public PerfListener listen(SocketSettings server) throws IOException {
            java.nio.file.Path file = dir.resolve("s" + names.incrementAndGet());
            file.toFile().deleteOnExit(); // deleted before its directory (the reverse of registration)
            ServerSocketChannel ch = ServerSocketChannel.open(StandardProtocolFamily.UNIX);
            try {
                if (server.setsReceiveBuffer()) {
                    ch.setOption(StandardSocketOptions.SO_RCVBUF, server.receiveBufferBytes());
                }
                ch.bind(UnixDomainSocketAddress.of(file), BACKLOG);
                return new Listener(ch, server, file);
            } catch (IOException | RuntimeException e) {
                closeQuietly(ch);
                Files.deleteIfExists(file);
                throw e;
            }
        }

        @Override
        public PerfConnection connect(PerfListener listener, SocketSettings client) throws IOException {
            return connectChannel(SocketChannel.open(StandardProtocolFamily.UNIX), listener, client);
        }

        /** Deletes the socket files left behind and the directory; never throws. */
        @Override
        public void close() {
            try (var files = Files.list(dir)) {
                for (java.nio.file.Path f : files.toList()) Files.deleteIfExists(f);
            } catch (IOException ignored) {
                // the directory is gone already or unreadable: nothing more to clean
            }
            try {
                Files.deleteIfExists(dir);
            } catch (IOException ignored) {
                // best effort, as for sockets
            }
        }
    }

    private static final class Listener implements PerfListener {
        private final ServerSocketChannel channel;
        private final SocketSettings settings;
        private final SocketAddress address;
        /** The AF_UNIX socket file to delete on close, or null. */
        private final java.nio.file.Path file;

        Listener(ServerSocketChannel channel, SocketSettings settings, java.nio.file.Path file) throws IOException {
            this.channel = channel;
            this.settings = settings;
            this.address = channel.getLocalAddress();
            this.file = file;
        }

        @Override
        public PerfConnection accept() throws IOException {
            SocketChannel ch = channel.accept();
            try {
                apply(ch, settings);
                return new Connection(ch);
            } catch (IOException | RuntimeException e) {
                closeQuietly(ch);
                throw e;
            }
        }

        @Override
        public SocketAddress address() { return address; }

        @Override
        public void close() {
            closeQuietly(channel);
            if (file != null) {
                try {
                    Files.deleteIfExists(file);
                } catch (IOException ignored) {
                    // the path's close removes what is left
                }
            }
        }
    }

    private static final class Connection implements PerfConnection {
        private final SocketChannel channel;

        Connection(SocketChannel channel) { this.channel = channel; }

        @Override
        public int read(ByteBuffer dst) throws IOException { return channel.read(dst); }

        @Override
        public int write(ByteBuffer src) throws IOException { return channel.write(src); }

        @Override
        public long transferFrom(FileChannel file, long position, long count) throws IOException {
            return file.transferTo(position, count, channel);
        }

        @Override
        public void shutdownOutput() throws IOException { channel.shutdownOutput(); }

        @Override
        public int sendBufferSize() throws IOException {
            return BUFFER_REPORT_FACTOR * channel.getOption(StandardSocketOptions.SO_SNDBUF);
        }

        @Override
        public int receiveBufferSize() throws IOException {
            return BUFFER_REPORT_FACTOR * channel.getOption(StandardSocketOptions.SO_RCVBUF);
        }

        @Override
        public void close() { closeQuietly(channel); }
    }

    /**
     * A blocking {@link DatagramChannel}. The JDK reports a failed send as a plain IOException; the one
     * carrying ENOBUFS's text is netperf's send error (-1), anything else a failure.
     */
    private static final class Udp implements PerfDatagramSocket {
        private static final String ENOBUFS_TEXT = "No buffer space available";
        private final DatagramChannel channel;
        private final InetSocketAddress address;

        Udp(DatagramChannel channel) throws IOException {
            this.channel = channel;
            this.address = (InetSocketAddress) channel.getLocalAddress();
        }

        @Override
        public InetSocketAddress localAddress() { return address; }

        @Override
        public int send(ByteBuffer src) throws IOException {
            try {
                return channel.write(src);
            } catch (IOException e) {
                if (ENOBUFS_TEXT.equals(e.getMessage())) return -1;
                throw e;
            }
        }

        @Override
        public int sendTo(ByteBuffer src, InetSocketAddress to) throws IOException {
            try {
                return channel.send(src, to);
            } catch (IOException e) {
                if (ENOBUFS_TEXT.equals(e.getMessage())) return -1;
                throw e;
            }
        }

        @Override
        public int read(ByteBuffer dst) throws IOException {
            if (channel.isConnected()) return channel.read(dst);
            int start = dst.position();
            channel.receive(dst);
            return dst.position() - start;
        }

        @Override
        public InetSocketAddress receive(ByteBuffer dst) throws IOException {
            return (InetSocketAddress) channel.receive(dst);
        }

        @Override
        public int sendBufferSize() throws IOException {
            return BUFFER_REPORT_FACTOR * channel.getOption(StandardSocketOptions.SO_SNDBUF);
        }

        @Override
        public int receiveBufferSize() throws IOException {
            return BUFFER_REPORT_FACTOR * channel.getOption(StandardSocketOptions.SO_RCVBUF);
        }

        @Override
        public void close() { closeQuietly(channel); }
    }

    private static void apply(DatagramChannel ch, SocketSettings s) throws IOException {
        if (s.setsSendBuffer()) ch.setOption(StandardSocketOptions.SO_SNDBUF, s.sendBufferBytes());
        if (s.setsReceiveBuffer()) ch.setOption(StandardSocketOptions.SO_RCVBUF, s.receiveBufferBytes());
    }

    private static void apply(SocketChannel ch, SocketSettings s) throws IOException {
        if (s.setsSendBuffer()) ch.setOption(StandardSocketOptions.SO_SNDBUF, s.sendBufferBytes());
        if (s.setsReceiveBuffer()) ch.setOption(StandardSocketOptions.SO_RCVBUF, s.receiveBufferBytes());
        if (s.noDelay()) {
            if (!ch.supportedOptions().contains(StandardSocketOptions.TCP_NODELAY)) {
                throw new UnsupportedOperationException("TCP_NODELAY (-D) does not apply to AF_UNIX sockets");
            }
            ch.setOption(StandardSocketOptions.TCP_NODELAY, true);
        }
    }

    private static void closeQuietly(AutoCloseable c) {
        try {
            c.close();
        } catch (Exception ignored) {
            // closing is best effort: the socket is gone either way
        }
    }
}
