package io.jnet.nio;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketAddress;
import java.net.SocketException;
import java.net.SocketOption;
import java.net.StandardSocketOptions;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.util.Set;

/**
 * The {@link ServerSocket} of a {@link JnetServerSocketChannel} ({@link ServerSocketChannel#socket()}): every
 * call goes to the channel. {@link #accept()} needs the channel in blocking mode and is bounded by SO_TIMEOUT
 * ("Accept timed out"); the socket it returns is the accepted channel's adaptor.
 */
final class JnetServerSocketAdaptor extends ServerSocket {
    private final JnetServerSocketChannel ssc;
    private volatile int timeoutMillis;

    JnetServerSocketAdaptor(JnetServerSocketChannel ssc) {
        super(new AdaptorErrors.NoImpl());
        this.ssc = ssc;
    }

    @Override
    public void bind(SocketAddress local) throws IOException { bind(local, 50); }

    @Override
    public void bind(SocketAddress local, int backlog) throws IOException {
        if (local == null) local = new InetSocketAddress(0);
        try {
            ssc.bind(local, backlog);
        } catch (Exception e) {
            throw AdaptorErrors.translate(e);
        }
    }

    @Override
    public InetAddress getInetAddress() {
        InetSocketAddress l = ssc.localAddress();
        return l == null ? null : l.getAddress();
    }

    @Override
    public int getLocalPort() {
        InetSocketAddress l = ssc.localAddress();
        return l == null ? -1 : l.getPort();
    }

    @Override
    public SocketAddress getLocalSocketAddress() { return ssc.localAddress(); }

    @Override
    public Socket accept() throws IOException {
        try {
            SocketChannel sc = ssc.blockingAccept(timeoutMillis);
            return sc.socket();
        } catch (Exception e) {
            throw AdaptorErrors.translate(e);
        }
    }

    @Override
    public void close() throws IOException { ssc.close(); }

    @Override
    public ServerSocketChannel getChannel() { return ssc; }

    @Override
    public boolean isBound() { return ssc.isBound(); }

    @Override
    public boolean isClosed() { return !ssc.isOpen(); }

    @Override
    public void setSoTimeout(int timeout) throws SocketException {
        if (!ssc.isOpen()) throw new SocketException("Socket is closed");
        if (timeout < 0) throw new IllegalArgumentException("timeout < 0");
        timeoutMillis = timeout;
    }

    @Override
    public int getSoTimeout() throws SocketException {
        if (!ssc.isOpen()) throw new SocketException("Socket is closed");
        return timeoutMillis;
    }

    @Override
    public void setReuseAddress(boolean on) throws SocketException {
        try {
            ssc.setOption(StandardSocketOptions.SO_REUSEADDR, on);
        } catch (Exception e) {
            throw AdaptorErrors.toSocketException(e);
        }
    }

    @Override
    public boolean getReuseAddress() throws SocketException {
        try {
            return ssc.getOption(StandardSocketOptions.SO_REUSEADDR);
        } catch (Exception e) {
            throw AdaptorErrors.toSocketException(e);
        }
    }

    @Override
    public void setReceiveBufferSize(int size) throws SocketException {
        if (size <= 0) throw new IllegalArgumentException("size cannot be 0 or negative");
        try {
            ssc.setOption(StandardSocketOptions.SO_RCVBUF, size);
        } catch (Exception e) {
            throw AdaptorErrors.toSocketException(e);
        }
    }

    @Override
    public int getReceiveBufferSize() throws SocketException {
        try {
            return ssc.getOption(StandardSocketOptions.SO_RCVBUF);
        } catch (Exception e) {
            throw AdaptorErrors.toSocketException(e);
        }
    }

    @Override
    public <T> ServerSocket setOption(SocketOption<T> name, T value) throws IOException {
        ssc.setOption(name, value);
        return this;
    }

    @Override
    public <T> T getOption(SocketOption<T> name) throws IOException { return ssc.getOption(name); }

    @Override
    public Set<SocketOption<?>> supportedOptions() { return ssc.supportedOptions(); }

    @Override
    public void setPerformancePreferences(int connectionTime, int latency, int bandwidth) {
        // as the JDK's sockets: no effect
    }

    @Override
    public String toString() {
        if (!isBound()) return "ServerSocket[unbound]";
        return "ServerSocket[addr=" + getInetAddress() + ",localport=" + getLocalPort() + "]";
    }
}
