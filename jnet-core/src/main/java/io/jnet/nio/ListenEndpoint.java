package io.jnet.nio;

import io.jnet.socket.LocalServerSocket;
import io.jnet.socket.LocalSocket;
import io.jnet.socket.PollableSocket;
import io.jnet.socket.SocketOption;
import io.jnet.socket.TcpServerSocket;
import io.jnet.socket.TcpSocket;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.net.SocketException;
import java.net.UnixDomainSocketAddress;
import java.util.Set;

/**
 * One listening socket of jnet as {@link JnetServerSocketChannel} drives it: TCP with {@link InetSocketAddress}es
 * or local (AF_UNIX) with {@link UnixDomainSocketAddress}es. Errors are jnet's {@link io.jnet.socket.ErrnoException}s.
 */
sealed interface ListenEndpoint permits ListenEndpoint.Tcp, ListenEndpoint.Local {

    PollableSocket socket();

    SocketAddress unnamedLocal();

    SocketAddress localForm(SocketAddress sa) throws IOException;

    /** bind(2) then listen(2). */
    void bindAndListen(SocketAddress local, int backlog) throws IOException;

    /** The next connection, or null when non-blocking and none waits. */
    StreamEndpoint accept() throws IOException;

    SocketAddress localAddress();

    Set<java.net.SocketOption<?>> supportedOptions();

    <T> void setOption(SocketOption<T> option, T value) throws IOException;

    <T> T getOption(SocketOption<T> option) throws IOException;

    /** A TCP listener. */
    record Tcp(TcpServerSocket socket) implements ListenEndpoint {
        @Override public SocketAddress unnamedLocal() { return new InetSocketAddress(0); }
        @Override public SocketAddress localForm(SocketAddress sa) throws SocketException { return NioErrors.inet4(sa); }

        @Override
        public void bindAndListen(SocketAddress local, int backlog) throws IOException {
            socket.bind((InetSocketAddress) local);
            socket.listen(backlog);
        }

        @Override
        public StreamEndpoint accept() throws IOException {
            TcpSocket s = socket.accept();
            return s == null ? null : new StreamEndpoint.Tcp(s);
        }

        @Override public SocketAddress localAddress() { return socket.localAddress(); }
        @Override public Set<java.net.SocketOption<?>> supportedOptions() { return NioOptions.TCP_LISTENER; }
        @Override public <T> void setOption(SocketOption<T> option, T value) throws IOException { socket.setOption(option, value); }
        @Override public <T> T getOption(SocketOption<T> option) throws IOException { return socket.getOption(option); }
    }

    /** A local (AF_UNIX) listener; it has no options. */
    record Local(LocalServerSocket socket) implements ListenEndpoint {
        @Override
        public SocketAddress unnamedLocal() {
            return StreamEndpoint.Local.freshName();
        }

        @Override
        public SocketAddress localForm(SocketAddress sa) {
            if (!(sa instanceof UnixDomainSocketAddress)) throw new java.nio.channels.UnsupportedAddressTypeException();
            return sa;
        }

        @Override
        public void bindAndListen(SocketAddress local, int backlog) throws IOException {
            socket.bind(((UnixDomainSocketAddress) local).getPath().toString());
            socket.listen(backlog);
        }

        @Override
        public StreamEndpoint accept() throws IOException {
            LocalSocket s = socket.accept();
            return s == null ? null : new StreamEndpoint.Local(s);
        }

        @Override
        public SocketAddress localAddress() {
            String name = socket.localAddress();
            return name == null ? null : UnixDomainSocketAddress.of(name);
        }

        @Override public Set<java.net.SocketOption<?>> supportedOptions() { return Set.of(); }
        @Override public <T> void setOption(SocketOption<T> option, T value) throws IOException { throw new UnsupportedOperationException(); }
        @Override public <T> T getOption(SocketOption<T> option) throws IOException { throw new UnsupportedOperationException(); }
    }
}
