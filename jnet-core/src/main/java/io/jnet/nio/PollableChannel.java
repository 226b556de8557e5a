package io.jnet.nio;

import io.jnet.socket.PollableSocket;

/** A jnet channel as a {@link JnetSelector} sees it: its socket and how interest and ready sets map to poll bits. */
interface PollableChannel {
    /** The socket whose readiness the selector watches. */
    PollableSocket pollable();

    /** The {@link io.jnet.socket.Events} bits that serve the interest set {@code ops} (OP_READ to POLLIN ...). */
    int pollInterest(int ops);

    /**
     * The ready set for the poll bits {@code events} under the interest set {@code interestOps}, as the JDK's
     * channels translate them: an error or hang-up makes every interest operation ready, so that the program's
     * next call meets the error.
     */
    int readyOps(int events, int interestOps);
}
