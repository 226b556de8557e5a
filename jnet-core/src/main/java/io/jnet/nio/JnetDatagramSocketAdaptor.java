package io.jnet.nio;

import java.io.IOException;
import java.net.DatagramPacket;
import java.net.DatagramSocket;
import java.net.DatagramSocketImpl;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.NetworkInterface;
import java.net.SocketAddress;
import java.net.SocketException;
import java.net.SocketOption;
import java.net.StandardSocketOptions;
import java.nio.ByteBuffer;
import java.nio.channels.DatagramChannel;
import java.util.Objects;
import java.util.Set;

/**
 * The {@link DatagramSocket} of a {@link JnetDatagramChannel} ({@link DatagramChannel#socket()}): every call goes
 * to the channel. {@code receive} needs the channel in blocking mode and is bounded by SO_TIMEOUT ("Receive timed
 * out"); the packet's length becomes the bytes received (the rest of a longer datagram is discarded).
 * Traffic class is kept and reported but changes nothing (jnet sets no TOS byte of its own); SO_BROADCAST and
 * multicast groups are not available.
 */
final class JnetDatagramSocketAdaptor extends DatagramSocket {
    private final JnetDatagramChannel dc;
    private volatile int timeoutMillis;
    private volatile int trafficClass;

    private JnetDatagramSocketAdaptor(JnetDatagramChannel dc) {
        super(new NoDatagramImpl());
        this.dc = dc;
    }

    static DatagramSocket create(JnetDatagramChannel dc) { return new JnetDatagramSocketAdaptor(dc); }

    @Override
    public void bind(SocketAddress local) throws SocketException {
        try {
            dc.bind(local);
        } catch (Exception e) {
            throw AdaptorErrors.toSocketException(e);
        }
    }

    @Override
    public void connect(InetAddress address, int port) {
        try {
            connect(new InetSocketAddress(address, port));
        } catch (SocketException e) {
            throw new java.io.UncheckedIOException(e); // DatagramSocket.connect(InetAddress, int) throws none
        }
    }

    @Override
    public void connect(SocketAddress remote) throws SocketException {
        Objects.requireNonNull(remote, "Address can't be null");
        try {
            dc.connect(remote);
        } catch (Exception e) {
            throw AdaptorErrors.toSocketException(e);
        }
    }

    @Override
    public void disconnect() {
        try {
            dc.disconnect();
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    @Override public boolean isBound() { return dc.localAddress() != null; }
    @Override public boolean isConnected() { return dc.remoteAddress() != null; }

    @Override
    public InetAddress getInetAddress() {
        InetSocketAddress r = dc.remoteAddress();
        return r == null ? null : r.getAddress();
    }

    @Override
    public int getPort() {
        InetSocketAddress r = dc.remoteAddress();
        return r == null ? -1 : r.getPort();
    }

    @Override public SocketAddress getRemoteSocketAddress() { return dc.remoteAddress(); }

    @Override
    public SocketAddress getLocalSocketAddress() { return dc.isOpen() ? dc.localAddress() : null; }

    @Override
    public void send(DatagramPacket p) throws IOException {
        ByteBuffer bb = ByteBuffer.wrap(p.getData(), p.getOffset(), p.getLength());
        SocketAddress target = p.getAddress() == null ? null : p.getSocketAddress();
        try {
            if (target == null) {
                if (!dc.isConnected()) throw new IllegalArgumentException("Address not set");
                dc.write(bb);
            } else {
                if (!dc.isBlocking()) throw new java.nio.channels.IllegalBlockingModeException();
                dc.send(bb, target);
            }
        } catch (Exception e) {
            throw AdaptorErrors.translate(e);
        }
    }

    @Override
    public void receive(DatagramPacket p) throws IOException {
        ByteBuffer bb = ByteBuffer.wrap(p.getData(), p.getOffset(), p.getData().length - p.getOffset());
        try {
            SocketAddress sender = dc.blockingReceive(bb, timeoutMillis);
            synchronized (p) {
                p.setLength(bb.position() - p.getOffset());
                p.setSocketAddress(sender);
            }
        } catch (Exception e) {
            throw AdaptorErrors.translate(e);
        }
    }

    @Override
    public InetAddress getLocalAddress() {
        if (!dc.isOpen()) return null;
        InetSocketAddress l = dc.localAddress();
        return l == null ? new InetSocketAddress(0).getAddress() : l.getAddress();
    }

    @Override
    public int getLocalPort() {
        if (!dc.isOpen()) return -1;
        InetSocketAddress l = dc.localAddress();
        return l == null ? 0 : l.getPort();
    }

    @Override
    public void setSoTimeout(int timeout) throws SocketException {
        if (!dc.isOpen()) throw new SocketException("Socket is closed");
        if (timeout < 0) throw new IllegalArgumentException("timeout < 0");
        timeoutMillis = timeout;
    }

    @Override
    public int getSoTimeout() throws SocketException {
        if (!dc.isOpen()) throw new SocketException("Socket is closed");
        return timeoutMillis;
    }

    private <T> void set(SocketOption<T> name, T value) throws SocketException {
        try {
            dc.setOption(name, value);
        } catch (Exception e) {
            throw AdaptorErrors.toSocketException(e);
        }
    }

    private <T> T get(SocketOption<T> name) throws SocketException {
        try {
            return dc.getOption(name);
        } catch (Exception e) {
            throw AdaptorErrors.toSocketException(e);
        }
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
    @Override public void setReuseAddress(boolean on) throws SocketException { set(StandardSocketOptions.SO_REUSEADDR, on); }
    @Override public boolean getReuseAddress() throws SocketException { return get(StandardSocketOptions.SO_REUSEADDR); }

    @Override
    public void setBroadcast(boolean on) throws SocketException {
        throw new SocketException("jnet: SO_BROADCAST is not available");
    }

    @Override
    public boolean getBroadcast() throws SocketException {
        throw new SocketException("jnet: SO_BROADCAST is not available");
    }

    @Override
    public void setTrafficClass(int tc) throws SocketException {
        if (tc < 0 || tc > 255) throw new IllegalArgumentException("tc is not in range 0 -- 255");
        if (!dc.isOpen()) throw new SocketException("Socket is closed");
        trafficClass = tc;
    }

    @Override
    public int getTrafficClass() throws SocketException {
        if (!dc.isOpen()) throw new SocketException("Socket is closed");
        return trafficClass;
    }

    @Override
    public void close() {
        try {
            dc.close();
        } catch (IOException e) {
            // DatagramSocket.close throws nothing; the channel's close of a jnet socket never fails
        }
    }

    @Override public boolean isClosed() { return !dc.isOpen(); }
    @Override public DatagramChannel getChannel() { return dc; }

    @Override
    public <T> DatagramSocket setOption(SocketOption<T> name, T value) throws IOException {
        dc.setOption(name, value);
        return this;
    }

    @Override
    public <T> T getOption(SocketOption<T> name) throws IOException { return dc.getOption(name); }

    @Override
    public Set<SocketOption<?>> supportedOptions() { return dc.supportedOptions(); }

    @Override
    public void joinGroup(SocketAddress mcastaddr, NetworkInterface netIf) throws IOException {
        throw new SocketException("jnet has no multicast (IGMP) yet");
    }

    @Override
    public void leaveGroup(SocketAddress mcastaddr, NetworkInterface netIf) throws IOException {
        throw new SocketException("jnet has no multicast (IGMP) yet");
    }

    /** A DatagramSocketImpl that is never used: the adaptor overrides every method that would reach it. */
    private static final class NoDatagramImpl extends DatagramSocketImpl {
        private static SocketException unused() { return new SocketException("jnet adaptor: no DatagramSocketImpl"); }
        @Override protected void create() throws SocketException { throw unused(); }
        @Override protected void bind(int lport, InetAddress laddr) throws SocketException { throw unused(); }
        @Override protected void send(DatagramPacket p) throws IOException { throw unused(); }
        @Override protected int peek(InetAddress i) throws IOException { throw unused(); }
        @Override protected int peekData(DatagramPacket p) throws IOException { throw unused(); }
        @Override protected void receive(DatagramPacket p) throws IOException { throw unused(); }
        @Override @SuppressWarnings("deprecation") protected void setTTL(byte ttl) throws IOException { throw unused(); }
        @Override @SuppressWarnings("deprecation") protected byte getTTL() throws IOException { throw unused(); }
        @Override protected void setTimeToLive(int ttl) throws IOException { throw unused(); }
        @Override protected int getTimeToLive() throws IOException { throw unused(); }
        @Override protected void join(InetAddress inetaddr) throws IOException { throw unused(); }
        @Override protected void leave(InetAddress inetaddr) throws IOException { throw unused(); }
        @Override protected void joinGroup(SocketAddress mcastaddr, NetworkInterface netIf) throws IOException { throw unused(); }
        @Override protected void leaveGroup(SocketAddress mcastaddr, NetworkInterface netIf) throws IOException { throw unused(); }
        @Override protected void close() { }
        @Override public void setOption(int optID, Object value) throws SocketException { throw unused(); }
        @Override public Object getOption(int optID) throws SocketException { throw unused(); }
    }

}
