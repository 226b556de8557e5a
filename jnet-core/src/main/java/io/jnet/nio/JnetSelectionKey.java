package io.jnet.nio;

import java.nio.channels.CancelledKeyException;
import java.nio.channels.SelectableChannel;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.nio.channels.spi.AbstractSelectionKey;

/**
 * The registration of a jnet channel with a {@link JnetSelector}. A change of the interest set reaches the
 * selector's poller at once, also while another thread is in {@code select}.
 */
final class JnetSelectionKey extends AbstractSelectionKey {
    private final SelectableChannel channel;
    private final JnetSelector selector;
    private volatile int interestOps;
    private volatile int readyOps;
    /** Registered with the poller: only while the interest set is not empty (as the JDK removes the fd from epoll). */
    boolean inPoller;

    JnetSelectionKey(SelectableChannel channel, JnetSelector selector) {
        this.channel = channel;
        this.selector = selector;
    }

    @Override
    public SelectableChannel channel() { return channel; }

    @Override
    public Selector selector() { return selector; }

    PollableChannel pollableChannel() { return (PollableChannel) channel; }

    private void ensureValid() {
        if (!isValid()) throw new CancelledKeyException();
    }

    @Override
    public int interestOps() {
        ensureValid();
        return interestOps;
    }

    @Override
    public SelectionKey interestOps(int ops) {
        ensureValid();
        if ((ops & ~channel.validOps()) != 0) throw new IllegalArgumentException("Invalid interest ops: " + ops);
        synchronized (this) {
            interestOps = ops;
            selector.interestChanged(this, ops);
        }
        return this;
    }

    @Override
    public int readyOps() {
        ensureValid();
        return readyOps;
    }

    /** Interest ops without the validity check (the selector's own use). */
    int rawInterestOps() { return interestOps; }

    int rawReadyOps() { return readyOps; }

    void setReadyOps(int ops) { readyOps = ops; }

    @Override
    public String toString() {
        return "JnetSelectionKey[" + channel + (isValid() ? " interest=" + interestOps + " ready=" + readyOps : " invalid") + "]";
    }
}
