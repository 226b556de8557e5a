package io.jnet.nio;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketAddress;
import java.net.SocketException;
import java.net.SocketOption;
import java.net.StandardSocketOptions;
import java.net.UnknownHostException;
import java.nio.ByteBuffer;
import java.nio.channels.SocketChannel;
import java.util.Objects;
import java.util.Set;

/**
 * The {@link Socket} of a {@link JnetSocketChannel} ({@link SocketChannel#socket()}): every call goes to the
 * channel, so the socket and the channel are one connection, as with the JDK's own adaptor. Its streams and
 * its {@code connect} need the channel in blocking mode ({@link java.nio.channels.IllegalBlockingModeException}
 * otherwise); SO_TIMEOUT bounds the input stream's reads ("Read timed out", the socket stays usable).
 * Traffic class (IP_TOS) is kept and reported but changes nothing: jnet sets no TOS byte of its own, which the JDK
 * allows ("may be ignored"). SO_OOBINLINE goes to the TCP socket, as the JDK's adaptor sets it on its socket (on a
 * local stream socket it is only kept); {@link #sendUrgentData} throws, as the JDK's adaptor does.
 */
final class JnetSocketAdaptor extends Socket {
    private final JnetSocketChannel sc;
    private volatile int timeoutMillis;
    private volatile int trafficClass;
    private volatile boolean oobInline;

    private JnetSocketAdaptor(JnetSocketChannel sc) throws SocketException {
        super(new AdaptorErrors.NoImpl());
        this.sc = sc;
    }

    static Socket create(JnetSocketChannel sc) {
        try {
            return new JnetSocketAdaptor(sc);
        } catch (SocketException e) {
            throw new IllegalStateException(e); // Socket(SocketImpl) throws for no reason jnet can give
        }
    }

    @Override
    public void connect(SocketAddress remote) throws IOException {
        connect(remote, 0);
    }

    @Override
    public void connect(SocketAddress remote, int timeout) throws IOException {
        if (remote == null) throw new IllegalArgumentException("connect: The address can't be null");
        if (timeout < 0) throw new IllegalArgumentException("connect: timeout can't be negative");
        if (remote instanceof InetSocketAddress isa && isa.isUnresolved()) {
            if (!sc.isOpen()) throw new SocketException("Socket is closed");
            if (sc.isConnected()) throw new SocketException("Already connected");
            close();
            throw new UnknownHostException(isa.getHostName());
        }
        if (!sc.isBlocking()) throw new java.nio.channels.IllegalBlockingModeException();
        try {
            sc.connect(remote, timeout);
        } catch (Exception e) {
            throw AdaptorErrors.translate(e);
        }
    }

    @Override
    public void bind(SocketAddress local) throws IOException {
        try {
            sc.bind(local);
        } catch (Exception e) {
            throw AdaptorErrors.translate(e);
        }
    }

    @Override
    public InetAddress getInetAddress() {
        InetSocketAddress r = sc.remoteAddress();
        return r == null ? null : r.getAddress();
    }

    @Override
    public InetAddress getLocalAddress() {
        if (sc.isOpen()) {
            InetSocketAddress l = sc.localAddress();
            if (l != null) return l.getAddress();
        }
        return new InetSocketAddress(0).getAddress();
    }

    @Override
    public int getPort() {
        InetSocketAddress r = sc.remoteAddress();
        return r == null ? 0 : r.getPort();
    }

    @Override
    public int getLocalPort() {
        InetSocketAddress l = sc.localAddress();
        return l == null ? -1 : l.getPort();
    }

    @Override
    public SocketAddress getRemoteSocketAddress() { return sc.remoteAddress(); }

    @Override
    public SocketAddress getLocalSocketAddress() { return sc.localAddress(); }

    @Override
    public SocketChannel getChannel() { return sc; }

    @Override
    public InputStream getInputStream() throws IOException {
        if (!sc.isOpen()) throw new SocketException("Socket is closed");
        if (!sc.isConnected()) throw new SocketException("Socket is not connected");
        if (!sc.isInputOpen()) throw new SocketException("Socket input is shutdown");
        return new InputStream() {
            @Override
            public int read() throws IOException {
                byte[] one = new byte[1];
                int n = read(one, 0, 1);
                return n < 0 ? -1 : one[0] & 0xff;
            }

            @Override
            public int read(byte[] b, int off, int len) throws IOException {
                Objects.checkFromIndexSize(off, len, b.length);
                if (len == 0) return 0;
                try {
                    return sc.blockingRead(ByteBuffer.wrap(b, off, len), timeoutMillis);
                } catch (Exception e) {
                    throw AdaptorErrors.translate(e);
                }
            }

            @Override
            public int available() throws IOException {
                if (!sc.isOpen()) throw new SocketException("Socket is closed");
                return sc.isInputOpen() ? sc.available() : 0;
            }

            @Override
            public void close() throws IOException { sc.close(); }
        };
    }

    @Override
    public OutputStream getOutputStream() throws IOException {
        if (!sc.isOpen()) throw new SocketException("Socket is closed");
        if (!sc.isConnected()) throw new SocketException("Socket is not connected");
        if (!sc.isOutputOpen()) throw new SocketException("Socket output is shutdown");
        return new OutputStream() {
            @Override
            public void write(int b) throws IOException {
                write(new byte[] {(byte) b}, 0, 1);
            }

            @Override
            public void write(byte[] b, int off, int len) throws IOException {
                Objects.checkFromIndexSize(off, len, b.length);
                try {
                    sc.blockingWrite(ByteBuffer.wrap(b, off, len));
                } catch (Exception e) {
                    throw AdaptorErrors.translate(e);
                }
            }

            @Override
            public void close() throws IOException { sc.close(); }
        };
    }

    private <T> void set(SocketOption<T> name, T value) throws SocketException {
        try {
            sc.setOption(name, value);
        } catch (Exception e) {
            throw AdaptorErrors.toSocketException(e);
        }
    }

    private <T> T get(SocketOption<T> name) throws SocketException {
        try {
            return sc.getOption(name);
        } catch (Exception e) {
            throw AdaptorErrors.toSocketException(e);
        }
    }

    @Override public void setTcpNoDelay(boolean on) throws SocketException { set(StandardSocketOptions.TCP_NODELAY, on); }
    @Override public boolean getTcpNoDelay() throws SocketException { return get(StandardSocketOptions.TCP_NODELAY); }

    @Override
    public void setSoLinger(boolean on, int linger) throws SocketException {
        if (!on) linger = -1;
        else if (linger < 0) throw new IllegalArgumentException("invalid value for SO_LINGER");
        set(StandardSocketOptions.SO_LINGER, linger);
    }

    @Override public int getSoLinger() throws SocketException { return get(StandardSocketOptions.SO_LINGER); }

    @Override
    public void sendUrgentData(int data) throws IOException {
        throw new SocketException("Urgent data not supported");
    }

    @Override
    public void setOOBInline(boolean on) throws SocketException {
        ensureOpenForOptions();
        try {
            if (sc.oobInline(on) == null) oobInline = on;
        } catch (Exception e) {
            throw AdaptorErrors.toSocketException(e);
        }
    }

    @Override
    public boolean getOOBInline() throws SocketException {
        ensureOpenForOptions();
        try {
            Boolean v = sc.oobInline(null);
            return v != null ? v : oobInline;
        } catch (Exception e) {
            throw AdaptorErrors.toSocketException(e);
        }
    }

    @Override
    public void setSoTimeout(int timeout) throws SocketException {
        ensureOpenForOptions();
        if (timeout < 0) throw new IllegalArgumentException("timeout < 0");
        timeoutMillis = timeout;
    }

    @Override
    public int getSoTimeout() throws SocketException {
        ensureOpenForOptions();
        return timeoutMillis;
    }

    private void ensureOpenForOptions() throws SocketException {
        if (!sc.isOpen()) throw new SocketException("Socket is closed");
    }

    @Override
    public void setSendBufferSize(int size) throws SocketException {
        if (size <= 0) throw new IllegalArgumentException("Invalid send size");
        set(StandardSocketOptions.SO_SNDBUF, size);
    }

    @Override public int getSendBufferSize() throws SocketException { return get(StandardSocketOptions.SO_SNDBUF); }

    @Override
    public void setReceiveBufferSize(int size) throws SocketException {
        if (size <= 0) throw new IllegalArgumentException("Invalid receive size");
        set(StandardSocketOptions.SO_RCVBUF, size);
    }

    @Override public int getReceiveBufferSize() throws SocketException { return get(StandardSocketOptions.SO_RCVBUF); }
    @Override public void setKeepAlive(boolean on) throws SocketException { set(StandardSocketOptions.SO_KEEPALIVE, on); }
    @Override public boolean getKeepAlive() throws SocketException { return get(StandardSocketOptions.SO_KEEPALIVE); }

    @Override
    public void setTrafficClass(int tc) throws SocketException {
        if (tc < 0 || tc > 255) throw new IllegalArgumentException("tc is not in range 0 -- 255");
        ensureOpenForOptions();
        trafficClass = tc;
    }

    @Override
    public int getTrafficClass() throws SocketException {
        ensureOpenForOptions();
        return trafficClass;
    }

    @Override public void setReuseAddress(boolean on) throws SocketException { set(StandardSocketOptions.SO_REUSEADDR, on); }
    @Override public boolean getReuseAddress() throws SocketException { return get(StandardSocketOptions.SO_REUSEADDR); }

    @Override
    public void close() throws IOException { sc.close(); }

    @Override
    public void shutdownInput() throws IOException {
        try {
            sc.shutdownInput();
        } catch (Exception e) {
            throw AdaptorErrors.translate(e);
        }
    }

    @Override
    public void shutdownOutput() throws IOException {
        try {
            sc.shutdownOutput();
        } catch (Exception e) {
            throw AdaptorErrors.translate(e);
        }
    }

    @Override public boolean isConnected() { return sc.isConnected(); }
    @Override public boolean isBound() { return sc.localAddress() != null; }
    @Override public boolean isClosed() { return !sc.isOpen(); }
    @Override public boolean isInputShutdown() { return !sc.isInputOpen(); }
    @Override public boolean isOutputShutdown() { return !sc.isOutputOpen(); }

    @Override
    public <T> Socket setOption(SocketOption<T> name, T value) throws IOException {
        sc.setOption(name, value);
        return this;
    }

    @Override
    public <T> T getOption(SocketOption<T> name) throws IOException { return sc.getOption(name); }

    @Override
    public Set<SocketOption<?>> supportedOptions() { return sc.supportedOptions(); }

    @Override
    public void setPerformancePreferences(int connectionTime, int latency, int bandwidth) {
        // as the JDK's sockets: no effect
    }

    @Override
    public String toString() {
        if (sc.isConnected()) return "Socket[addr=" + getInetAddress() + ",port=" + getPort() + ",localport=" + getLocalPort() + "]";
        return "Socket[unconnected]";
    }
}
