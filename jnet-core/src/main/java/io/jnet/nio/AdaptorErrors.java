package io.jnet.nio;

import java.io.IOException;
import java.net.SocketException;
import java.net.UnknownHostException;
import java.nio.channels.AlreadyBoundException;
import java.nio.channels.AlreadyConnectedException;
import java.nio.channels.ClosedChannelException;
import java.nio.channels.ConnectionPendingException;
import java.nio.channels.IllegalBlockingModeException;
import java.nio.channels.NotYetBoundException;
import java.nio.channels.NotYetConnectedException;
import java.nio.channels.UnresolvedAddressException;
import java.nio.channels.UnsupportedAddressTypeException;
import java.net.SocketImpl;
import java.net.SocketAddress;
import java.net.InetAddress;

/** What the socket adaptors throw for a channel's exception, as the JDK's adaptors (its {@code Net.translateException}). */
final class AdaptorErrors {
    private AdaptorErrors() {}

    /** The java.net form of {@code e}: a SocketException for the channel-only exceptions, others unchanged. */
    static IOException translate(Exception e) {
        if (e instanceof ClosedChannelException) return new SocketException("Socket is closed");
        if (e instanceof NotYetConnectedException) return new SocketException("Socket is not connected");
        if (e instanceof AlreadyBoundException) return new SocketException("Already bound");
        if (e instanceof NotYetBoundException) return new SocketException("Socket is not bound yet");
        if (e instanceof AlreadyConnectedException) return new SocketException("Already connected");
        if (e instanceof ConnectionPendingException) return new SocketException("Connection pending");
        if (e instanceof UnsupportedAddressTypeException) return new SocketException("Unsupported address type");
        if (e instanceof UnresolvedAddressException) return new UnknownHostException();
        if (e instanceof IOException io) return io;
        if (e instanceof IllegalBlockingModeException ibm) throw ibm;
        if (e instanceof RuntimeException re) throw re;
        return new SocketException(e.toString());
    }

    /** The socket option calls' form: a SocketException. */
    static SocketException toSocketException(Exception e) {
        IOException io = translate(e);
        if (io instanceof SocketException se) return se;
        SocketException se = new SocketException(io.getMessage());
        se.initCause(io);
        return se;
    }

    /** A SocketImpl that is never used: the adaptors override every method that would reach it. */
    static final class NoImpl extends SocketImpl {
        private static SocketException unused() { return new SocketException("jnet adaptor: no SocketImpl"); }
        @Override protected void create(boolean stream) throws IOException { throw unused(); }
        @Override protected void connect(String host, int port) throws IOException { throw unused(); }
        @Override protected void connect(InetAddress address, int port) throws IOException { throw unused(); }
        @Override protected void connect(SocketAddress address, int timeout) throws IOException { throw unused(); }
        @Override protected void bind(InetAddress host, int port) throws IOException { throw unused(); }
        @Override protected void listen(int backlog) throws IOException { throw unused(); }
        @Override protected void accept(SocketImpl s) throws IOException { throw unused(); }
        @Override protected java.io.InputStream getInputStream() throws IOException { throw unused(); }
        @Override protected java.io.OutputStream getOutputStream() throws IOException { throw unused(); }
        @Override protected int available() throws IOException { throw unused(); }
        @Override protected void close() throws IOException { }
        @Override protected void sendUrgentData(int data) throws IOException { throw unused(); }
        @Override public void setOption(int optID, Object value) throws SocketException { throw unused(); }
        @Override public Object getOption(int optID) throws SocketException { throw unused(); }
    }
}
