package io.jnet.nio;

import io.jnet.socket.ByteStreamSocket;
import io.jnet.socket.Errno;
import io.jnet.socket.ErrnoException;
import io.jnet.socket.LocalSocket;
import io.jnet.socket.SocketOption;
import io.jnet.socket.TcpSocket;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.net.SocketException;
import java.net.UnixDomainSocketAddress;
import java.nio.ByteBuffer;
import java.util.Set;

/**
 * One connected-stream socket of jnet as {@link JnetSocketChannel} drives it, whatever its family: a TCP socket
 * with {@link InetSocketAddress}es, or a local stream socket (AF_UNIX) with {@link UnixDomainSocketAddress}es.
 * Errors are jnet's {@link ErrnoException}s; the channel turns them into the JDK's.
 */
sealed interface StreamEndpoint permits StreamEndpoint.Tcp, StreamEndpoint.Local {

    /** The socket, for readiness, blocking mode, close and {@code available}. */
    ByteStreamSocket socket();

    /** The address to bind to when {@code bind(null)} is called (an ephemeral port, or a fresh unique name). */
    SocketAddress unnamedLocal();

    /** {@code sa} checked and in the form this family binds to. */
    SocketAddress localForm(SocketAddress sa) throws IOException;

    /** {@code sa} checked and in the form this family connects to (the wildcard address means loopback). */
    SocketAddress remoteForm(SocketAddress sa) throws IOException;

    void bind(SocketAddress local) throws IOException;

    /** Starts a connect: true once established, false while in progress (non-blocking TCP). */
    boolean connect(SocketAddress remote) throws IOException;

    /** True once a connect in progress is established; throws its error when it failed. */
    boolean finishConnect() throws IOException;

    int read(ByteBuffer dst) throws IOException;

    int write(ByteBuffer src) throws IOException;

    void shutdownInput() throws IOException;

    void shutdownOutput() throws IOException;

    /** The bound address, or null when unbound (a local socket may stay unnamed when connected). */
    SocketAddress localAddress();

    /** The peer's address, or null. */
    SocketAddress remoteAddress();

    /** The JDK options this family supports (each with a jnet option in {@link NioOptions}). */
    Set<java.net.SocketOption<?>> supportedOptions();

    <T> void setOption(SocketOption<T> option, T value) throws IOException;

    <T> T getOption(SocketOption<T> option) throws IOException;

    /** A TCP socket. */
    record Tcp(TcpSocket socket) implements StreamEndpoint {
        @Override public SocketAddress unnamedLocal() { return new InetSocketAddress(0); }
        @Override public SocketAddress localForm(SocketAddress sa) throws SocketException { return NioErrors.inet4(sa); }

        @Override
        public SocketAddress remoteForm(SocketAddress sa) throws SocketException {
            InetSocketAddress isa = NioErrors.inet4(sa);
            if (isa.getAddress().isAnyLocalAddress()) return new InetSocketAddress(InetAddress.getLoopbackAddress(), isa.getPort());
            return isa;
        }

        @Override public void bind(SocketAddress local) throws IOException { socket.bind((InetSocketAddress) local); }

        @Override
        public boolean connect(SocketAddress remote) throws IOException {
            try {
                socket.connect((InetSocketAddress) remote);
                return true;
            } catch (ErrnoException e) {
                if (e.errno() == Errno.EINPROGRESS) return false;
                throw e;
            }
        }

        @Override public boolean finishConnect() throws IOException { return socket.finishConnect(); }
        @Override public int read(ByteBuffer dst) throws IOException { return socket.read(dst); }
        @Override public int write(ByteBuffer src) throws IOException { return socket.write(src); }
        @Override public void shutdownInput() throws IOException { socket.shutdownInput(); }
        @Override public void shutdownOutput() throws IOException { socket.shutdownOutput(); }

        @Override
        public SocketAddress localAddress() {
            InetSocketAddress l = socket.localAddress();
            return l.getPort() == 0 ? null : l;
        }

        @Override public SocketAddress remoteAddress() { return socket.remoteAddress(); }
        @Override public Set<java.net.SocketOption<?>> supportedOptions() { return NioOptions.TCP; }
        @Override public <T> void setOption(SocketOption<T> option, T value) throws IOException { socket.setOption(option, value); }
        @Override public <T> T getOption(SocketOption<T> option) throws IOException { return socket.getOption(option); }
    }

    /** A local stream socket (AF_UNIX); names are strings in the namespace's own table, not files. */
    record Local(LocalSocket socket) implements StreamEndpoint {
        @Override
        public SocketAddress unnamedLocal() { return freshName(); }

        /** A fresh name, as the JDK binds an unnamed UNIX channel to a new name in its temporary directory. */
        static UnixDomainSocketAddress freshName() {
            return UnixDomainSocketAddress.of("/tmp/socket_" + Long.toUnsignedString(java.util.concurrent.ThreadLocalRandom.current().nextLong(), 36));
        }

        @Override
        public SocketAddress localForm(SocketAddress sa) {
            if (!(sa instanceof UnixDomainSocketAddress)) throw new java.nio.channels.UnsupportedAddressTypeException();
            return sa;
        }

        @Override public SocketAddress remoteForm(SocketAddress sa) { return localForm(sa); }
        @Override public void bind(SocketAddress local) throws IOException { socket.bind(((UnixDomainSocketAddress) local).getPath().toString()); }

        @Override
        public boolean connect(SocketAddress remote) throws IOException {
            socket.connect(((UnixDomainSocketAddress) remote).getPath().toString());
            return true; // a local connect completes at once (or fails: EAGAIN when the queue is full)
        }

        @Override public boolean finishConnect() { return socket.isConnected(); }
        @Override public int read(ByteBuffer dst) throws IOException { return socket.read(dst); }
        @Override public int write(ByteBuffer src) throws IOException { return socket.write(src); }
        @Override public void shutdownInput() throws IOException { socket.shutdownInput(); }
        @Override public void shutdownOutput() throws IOException { socket.shutdownOutput(); }

        @Override
        public SocketAddress localAddress() {
            String name = socket.localAddress();
            return name == null ? null : UnixDomainSocketAddress.of(name);
        }

        @Override
        public SocketAddress remoteAddress() {
            String name = socket.remoteAddress();
            return name == null ? null : UnixDomainSocketAddress.of(name);
        }

        @Override public Set<java.net.SocketOption<?>> supportedOptions() { return NioOptions.LOCAL; }
        @Override public <T> void setOption(SocketOption<T> option, T value) throws IOException { socket.setOption(option, value); }
        @Override public <T> T getOption(SocketOption<T> option) throws IOException { return socket.getOption(option); }
    }
}
