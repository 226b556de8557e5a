package io.jnet.tcp;

import io.jnet.buffer.PacketBuffer;
import io.jnet.buffer.PayloadRegion;
import java.nio.ByteBuffer;

/** Plain TCP's data path: the write queue and segments out, the receive queue in (see {@link TcpDataPath}). */
final class BaseDataPath implements TcpDataPath {
    static final BaseDataPath INSTANCE = new BaseDataPath();

    private BaseDataPath() {}

    @Override
    public long unread(TcpConnection c) {
        long n = 0;
        for (PacketBuffer p = c.receiveQueue.peek(); p != null; p = p.next) n += p.length();
        return n;
    }

    @Override
    public boolean hasUnread(TcpConnection c) { return !c.receiveQueue.isEmpty(); }

    @Override
    public int read(TcpConnection c, byte[] b, int off, int len, ByteBuffer bb) {
        int n = TcpInput.copyToUser(c, b, off, len, bb);
        TcpOutput.cleanupRbuf(c, n);
        return n;
    }

    /** Linux tcp_cleanup_rbuf runs after a peek too; it finds the queue as it was and rarely sends anything. */
    @Override
    public int peek(TcpConnection c, int skip, byte[] b, int off, int len, ByteBuffer bb) {
        int n = TcpInput.peekToUser(c, skip, b, off, len, bb);
        TcpOutput.cleanupRbuf(c, n);
        return n;
    }

    /** tcp_epollin_ready over rcv_nxt - copied_seq (a received FIN counts one), tcp_rmem_pressure and the window. */
    @Override
    public boolean epollinReady(TcpConnection c, int target) {
        int avail = c.rcvNxt - c.copiedSeq;
        if (avail <= 0) return false;
        return avail >= target || ReceiveMemory.rmemPressure(c) || c.receiveWindow() <= c.rcvMss;
    }

    @Override
    public int append(TcpConnection c, byte[] b, long off, int len, ByteBuffer bb, PayloadRegion region, boolean byReference) {
        return byReference ? TcpOutput.appendRegionToWriteQueue(c, region, off, len)
                : TcpOutput.appendToWriteQueue(c, b, off, len, bb, region);
    }

    @Override
    public void push(TcpConnection c, int nonagle) { TcpOutput.push(c, nonagle); }

    @Override
    public long sendSpace(TcpConnection c) { return TcpOutput.sendSpace(c); }

    @Override
    public boolean isWriteable(TcpConnection c) { return TcpOutput.isWriteable(c); }

    /** The ACK path wakes a writer that set SOCK_NOSPACE ({@link TcpConnection#sndNoSpace}), already set by the caller. */
    @Override
    public void writerWaits(TcpConnection c) { c.sndNoSpace = true; }

    /** The receive path wakes every waiter after queueing data (sk_data_ready). */
    @Override
    public void readerWaits(TcpConnection c) {}

    @Override
    public void sync(TcpConnection c) {}

    /** Nothing to do: segments keep coming, and TcpInput resets once the socket has sent its FIN too. */
    @Override
    public void shutdownInput(TcpConnection c) {}

    /** Every byte travels in segments, which set lastRecvNs. */
    @Override
    public long lastDataNs(TcpConnection c) { return 0; }

    @Override
    public void userClosing(TcpConnection c) {}

    @Override
    public void purgeReceived(TcpConnection c) { c.receiveQueue.purge(); }

    @Override
    public void release(TcpConnection c) {}
}
