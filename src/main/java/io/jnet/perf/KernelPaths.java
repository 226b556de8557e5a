package io.jnet.perf;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.StandardSocketOptions;
import java.nio.ByteBuffer;
import java.nio.channels.DatagramChannel;
import java.nio.channels.FileChannel;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;

/**
 * The reference: the host kernel's TCP and UDP through the JDK's blocking NIO channels
 * ({@code SocketChannel}, {@code DatagramChannel}) over 127.0.0.1; TCP_SENDFILE uses
 * {@link FileChannel#transferTo}, which the JDK implements with sendfile(2).
 * Whatever {@link PathKind} is asked for, the kernel side always runs over loopback (the harness does not
 * create kernel namespaces or veth devices); sysctls in the {@link PathConfig} are not applied to the host.
 */
public final class KernelPaths implements PerfPathFactory {

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

    @Override
    public String stack() { return STACK; }

    @Override
    public PerfPath open(PathConfig config) {
        return new Path();
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
                return new Listener(ch, server);
            } catch (IOException | RuntimeException e) {
                closeQuietly(ch);
                throw e;
            }
        }

        @Override
        public PerfConnection connect(PerfListener listener, SocketSettings client) throws IOException {
            SocketChannel ch = SocketChannel.open();
            try {
                apply(ch, client);
                ch.connect(listener.address());
                return new Connection(ch);
            } catch (IOException | RuntimeException e) {
                closeQuietly(ch);
                throw e;
            }
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
        public void close() {}
    }

    private static final class Listener implements PerfListener {
        private final ServerSocketChannel channel;
        private final SocketSettings settings;
        private final InetSocketAddress address;

        Listener(ServerSocketChannel channel, SocketSettings settings) throws IOException {
            this.channel = channel;
            this.settings = settings;
            this.address = (InetSocketAddress) channel.getLocalAddress();
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
        public InetSocketAddress address() { return address; }

        @Override
        public void close() { closeQuietly(channel); }
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
        if (s.noDelay()) ch.setOption(StandardSocketOptions.TCP_NODELAY, true);
    }

    private static void closeQuietly(AutoCloseable c) {
        try {
            c.close();
        } catch (Exception ignored) {
            // closing is best effort: the socket is gone either way
        }
    }
}
