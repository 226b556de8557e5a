package io.jnet.socket;

/** What every jnet socket shares: blocking mode, readiness for {@link Poller}, close. */
public interface PollableSocket extends AutoCloseable {

    /** Blocking (default) or non-blocking (O_NONBLOCK). */
    void setBlocking(boolean blocking);

    boolean isBlocking();

    /** Current readiness as a set of {@link Events} bits (what poll(2) would return now). */
    int readyEvents();

    /** Registers a listener called (from any thread, possibly under the socket's locks: do not block) when readiness may have changed. */
    void addReadinessListener(ReadinessListener listener);

    void removeReadinessListener(ReadinessListener listener);

    /** Closes the socket; never throws. With SO_LINGER 0 a TCP socket sends RST. */
    @Override
    void close();

    boolean isClosed();
}
