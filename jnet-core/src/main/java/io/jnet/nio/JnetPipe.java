package io.jnet.nio;

import io.jnet.socket.ErrnoException;
import io.jnet.socket.Events;
import io.jnet.socket.LocalSocket;
import io.jnet.socket.PollableSocket;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.nio.ByteBuffer;
import java.nio.channels.ClosedByInterruptException;
import java.nio.channels.ClosedChannelException;
import java.nio.channels.Pipe;
import java.nio.channels.SelectionKey;
import java.nio.channels.spi.AbstractInterruptibleChannel;
import java.util.Objects;
import java.util.concurrent.locks.ReentrantLock;

/**
 * A {@link Pipe} on a pair of connected jnet local stream sockets (socketpair(2), as the JDK builds its pipes on
 * Linux from a pipe(2)): what the sink writes, the source reads, in order; after the sink closes, the source
 * reads what is left then end of stream; writing after the source closed throws IOException "Broken pipe".
 * Blocking and non-blocking, selectable, interruptible like every channel.
 */
final class JnetPipe extends Pipe {
    private final Source source;
    private final Sink sink;

    JnetPipe(JnetSelectorProvider provider, LocalSocket.Pair pair) throws IOException {
        source = new Source(provider, pair.first());
        sink = new Sink(provider, pair.second());
        try {
            pair.first().shutdownOutput();
            pair.second().shutdownInput();
        } catch (ErrnoException e) {
            throw NioErrors.io(e);
        }
    }

    @Override
    public SourceChannel source() { return source; }

    @Override
    public SinkChannel sink() { return sink; }

    /** Ends a call that may have blocked, as the socket channels do (see {@link AbstractInterruptibleChannel}). */
    private static void endBlocking(AbstractInterruptibleChannel ch, boolean completed) throws IOException {
        if (!completed && Thread.currentThread().isInterrupted()) {
            ch.close();
            throw new ClosedByInterruptException();
        }
    }

    static final class Source extends SourceChannel implements PollableChannel {
        private final LocalSocket socket;
        private final ReentrantLock lock = new ReentrantLock();

        Source(JnetSelectorProvider provider, LocalSocket socket) {
            super(provider);
            this.socket = socket;
            socket.setBlocking(true);
        }

        @Override
        public int read(ByteBuffer dst) throws IOException {
            Objects.requireNonNull(dst, "dst");
            if (dst.isReadOnly()) throw new IllegalArgumentException("Read-only buffer");
            lock.lock();
            try {
                if (!isOpen()) throw new ClosedChannelException();
                if (!dst.hasRemaining()) return 0;
                boolean blocking = isBlocking();
                int n = 0;
                try {
                    if (blocking) begin();
                    n = socket.read(dst);
                } catch (ErrnoException e) {
                    if (isOpen()) throw NioErrors.io(e);
                } catch (InterruptedIOException e) {
                    // interrupted: ends below
                } finally {
                    if (blocking) {
                        end(n > 0);
                        endBlocking(this, n != 0);
                    }
                }
                return n;
            } finally {
                lock.unlock();
            }
        }

        @Override
        public long read(ByteBuffer[] dsts, int offset, int length) throws IOException {
            Objects.checkFromIndexSize(offset, length, dsts.length);
            long total = 0;
            for (int i = offset; i < offset + length; i++) {
                if (!dsts[i].hasRemaining()) continue;
                if (total > 0 && socket.available() == 0) break;
                int n = read(dsts[i]);
                if (n < 0) return total > 0 ? total : -1;
                total += n;
                if (n == 0 || dsts[i].hasRemaining()) break;
            }
            return total;
        }

        @Override
        public long read(ByteBuffer[] dsts) throws IOException { return read(dsts, 0, dsts.length); }

        @Override public PollableSocket pollable() { return socket; }
        @Override public int pollInterest(int ops) { return (ops & SelectionKey.OP_READ) != 0 ? Events.POLLIN : 0; }

        @Override
        public int readyOps(int events, int interestOps) {
            if ((events & (Events.POLLERR | Events.POLLHUP | Events.POLLIN)) != 0) return interestOps & SelectionKey.OP_READ;
            return 0;
        }

        @Override protected void implConfigureBlocking(boolean block) { socket.setBlocking(block); }
        @Override protected void implCloseSelectableChannel() { socket.close(); }
    }

    static final class Sink extends SinkChannel implements PollableChannel {
        private final LocalSocket socket;
        private final ReentrantLock lock = new ReentrantLock();

        Sink(JnetSelectorProvider provider, LocalSocket socket) {
            super(provider);
            this.socket = socket;
            socket.setBlocking(true);
        }

        @Override
        public int write(ByteBuffer src) throws IOException {
            Objects.requireNonNull(src, "src");
            lock.lock();
            try {
                if (!isOpen()) throw new ClosedChannelException();
                if (!src.hasRemaining()) return 0;
                boolean blocking = isBlocking();
                int start = src.position();
                boolean completed = false;
                try {
                    if (blocking) begin();
                    socket.write(src);
                    completed = true;
                } catch (ErrnoException e) {
                    if (isOpen()) throw NioErrors.write(e);
                } catch (InterruptedIOException e) {
                    // interrupted: ends below
                } finally {
                    if (blocking) {
                        boolean any = completed || src.position() > start;
                        end(any);
                        endBlocking(this, any);
                    }
                }
                return src.position() - start;
            } finally {
                lock.unlock();
            }
        }

        @Override
        public long write(ByteBuffer[] srcs, int offset, int length) throws IOException {
            Objects.checkFromIndexSize(offset, length, srcs.length);
            long total = 0;
            for (int i = offset; i < offset + length; i++) {
                if (!srcs[i].hasRemaining()) continue;
                int want = srcs[i].remaining();
                int n = write(srcs[i]);
                total += n;
                if (n < want) break;
            }
            return total;
        }

        @Override
        public long write(ByteBuffer[] srcs) throws IOException { return write(srcs, 0, srcs.length); }

        @Override public PollableSocket pollable() { return socket; }
        @Override public int pollInterest(int ops) { return (ops & SelectionKey.OP_WRITE) != 0 ? Events.POLLOUT : 0; }

        @Override
        public int readyOps(int events, int interestOps) {
            if ((events & (Events.POLLERR | Events.POLLHUP | Events.POLLOUT)) != 0) return interestOps & SelectionKey.OP_WRITE;
            return 0;
        }

        @Override protected void implConfigureBlocking(boolean block) { socket.setBlocking(block); }
        @Override protected void implCloseSelectableChannel() { socket.close(); }
    }
}
