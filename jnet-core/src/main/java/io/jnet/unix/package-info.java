/**
 * Local stream sockets: the AF_UNIX SOCK_STREAM analogue, beside the transports over IPv4 ({@code tcp},
 * {@code udp}). The public calls are {@link io.jnet.socket.LocalSocket}, {@link io.jnet.socket.LocalServerSocket}
 * and {@link io.jnet.socket.LocalNames}, opened from a namespace ({@code LocalSocket.open(ns)},
 * {@code LocalSocket.pair(ns)}, {@code ns.unlink(path)}); {@link io.jnet.unix.UnixFamily} installs them in
 * every namespace.
 *
 * <h2>Semantics</h2>
 * As Linux's {@code net/unix/af_unix.c} and man 7 unix, for path names (abstract names and autobind are not
 * implemented; SCM_RIGHTS, credentials and MSG_OOB neither):
 * <ul>
 *   <li>Names live in the namespace's table, not in a file system: bind creates one (EADDRINUSE if it exists,
 *       EINVAL for an empty name, one with NUL, one above 108 bytes, or a second bind); it stays after its
 *       socket closes until {@code unlink} (ENOENT when absent). Connect: ENOENT for a name that does not
 *       exist, ECONNREFUSED for one whose socket closed or is not listening ({@code unix_find_bsd},
 *       {@code unix_stream_connect}). An unbound connecting socket stays unnamed (Linux autobinds only with
 *       SO_PASSCRED); an accepted socket carries its listener's name.</li>
 *   <li>Connect completes at once, queueing the server's end at the listener; the queue is full with more than
 *       the backlog (capped by net.core.somaxconn) in it, and then a blocking connect waits for an accept
 *       (bounded by SO_SNDTIMEO: EAGAIN) and a non-blocking one fails with EAGAIN.</li>
 *   <li>Reading an unconnected socket is EINVAL, writing it ENOTCONN. Reads return queued data first, then a
 *       pending ECONNRESET once, then end of stream ("POSIX 1003.1g mandates this order" in
 *       {@code unix_stream_read_generic}).</li>
 *   <li>Close ({@code unix_release_sock}): the peer gets both shutdown bits; if the closing socket leaves unread
 *       bytes, or is closed unaccepted with its listener, the peer's sk_err becomes ECONNRESET. Writing to a
 *       peer that closed or shut its input down is EPIPE. Shutdown sets this socket's bits and the mirror bits
 *       on the peer ({@code unix_shutdown}); SHUT_RD leaves queued data readable.</li>
 *   <li>Readiness is {@code unix_poll}'s: POLLERR with an error pending, POLLHUP when both directions are shut
 *       or the socket is unconnected, POLLRDHUP|POLLIN when input is shut, POLLIN with data, POLLOUT when at
 *       most a quarter of SO_SNDBUF is unread ({@code unix_writable}).</li>
 * </ul>
 *
 * <h2>Data path and memory</h2>
 * Each direction of a connection is one {@link io.jnet.buffer.StreamPipe}: the writer copies into it, the
 * reader out of it, and they share no lock. A writer may have at most its SO_SNDBUF bytes unread by the peer
 * (net.core.wmem_default, 212992, for a new socket; SO_SNDBUF doubles the value set, as Linux); Linux charges
 * the skb truesize of what sits in the peer's queue to the writer's sk_sndbuf, jnet the payload bytes, so for
 * small writes jnet lets more bytes wait than Linux does. SO_RCVBUF limits nothing, as on Linux. A pipe holds
 * at most SO_SNDBUF bytes in 16 KiB chunks plus a few spare chunks; a listener's queue at most backlog + 1
 * connections. The chunks go back to a shared pool when both ends of a pipe are closed.
 *
 * <h2>Threads</h2>
 * Every call owns its socket through the socket's own {@link io.jnet.stack.SockLock} and sleeps on it with the
 * ownership given up; readers and writers of one socket therefore take turns, while the two ends of a
 * connection never share a lock. A writer wakes the peer's reader only when the reader announced that it
 * sleeps (the pipe's waiting flags), a reader wakes the writer only once a quarter of SO_SNDBUF or less is
 * unread. A blocked read spins for SO_BUSY_POLL microseconds (net.core.busy_read for a new socket) before it
 * sleeps, as TCP's does (Linux busy-polls only sockets fed by a NIC queue). Readiness listeners (a
 * {@link io.jnet.socket.Poller}) hear of data, room, shutdown, close and queued connections. No call leaves an
 * exception other than {@link java.io.IOException} (with the errno) and the argument checks of the interface;
 * an exception thrown by a readiness listener is counted by the namespace ({@code internalErrors}).
 */
package io.jnet.unix;
