package io.jnet.drill.target;

import java.net.InetSocketAddress;
import java.util.List;

/**
 * The socket system calls a script makes, in Linux's terms, so that one script means the same on every target.
 *
 * <p>Conventions, as Linux x86_64's system call ABI: file descriptors are ints; constants (address families,
 * socket types with {@code SOCK_NONBLOCK}, option levels and names, {@code MSG_*} flags, {@code POLL*} and
 * {@code EPOLL*} bits, {@code fcntl} and {@code ioctl} commands) are Linux's numbers;
 * option values are the bytes the kernel copies in and out ({@code int} as 4 bytes little-endian,
 * {@code struct linger}, {@code struct tcp_info} in Linux's layout ...). A call that fails throws
 * {@link SyscallException} with the errno; it never returns -1. Calls may block as the socket's mode says (a
 * blocking read waits for data): the player makes them from a thread of its own.
 *
 * <p>Only IPv4 ({@code AF_INET}) addresses for now; IPv6 comes with IPv6.
 */
public interface Syscalls {

    /** socket(2): the new descriptor. {@code type} may carry SOCK_NONBLOCK and SOCK_CLOEXEC. */
    int socket(int domain, int type, int protocol) throws SyscallException;

    /** bind(2). */
    void bind(int fd, InetSocketAddress addr) throws SyscallException;

    /** listen(2). */
    void listen(int fd, int backlog) throws SyscallException;

    /** accept(2) / accept4(2) with {@code flags} (SOCK_NONBLOCK, 0 for accept): the new descriptor and the peer. */
    Accepted accept(int fd, int flags) throws SyscallException;

    /** connect(2). */
    void connect(int fd, InetSocketAddress addr) throws SyscallException;

    /** read(2) of up to {@code len} bytes: what was read (empty at end of stream). */
    byte[] read(int fd, int len) throws SyscallException;

    /** write(2) of {@code data}: the count written. */
    int write(int fd, byte[] data) throws SyscallException;

    /** readv(2) into buffers of the given lengths: what was read, in order. */
    byte[] readv(int fd, int[] iovLengths) throws SyscallException;

    /** writev(2) of the given buffers: the count written. */
    int writev(int fd, byte[][] iov) throws SyscallException;

    /** send(2) / sendto(2) with {@code to} null for a connected socket: the count sent. */
    int sendto(int fd, byte[] data, int flags, InetSocketAddress to) throws SyscallException;

    /** recv(2) / recvfrom(2): the bytes and the source address (null when the socket does not report one). */
    Received recvfrom(int fd, int len, int flags) throws SyscallException;

    /** sendmsg(2) without control messages: the gather buffers, flags and an optional destination. */
    int sendmsg(int fd, byte[][] iov, int flags, InetSocketAddress to) throws SyscallException;

    /** recvmsg(2) into buffers of the given lengths; {@link Received#msgFlags} holds msg_flags. */
    Received recvmsg(int fd, int[] iovLengths, int flags) throws SyscallException;

    /** setsockopt(2) with the option's bytes as the kernel reads them. */
    void setsockopt(int fd, int level, int name, byte[] value) throws SyscallException;

    /** getsockopt(2) with an {@code optlen} of {@code len}: the bytes the kernel wrote (their count is the new optlen). */
    byte[] getsockopt(int fd, int level, int name, int len) throws SyscallException;

    /** fcntl(2) with an integer argument (F_GETFL, F_SETFL with O_NONBLOCK): the call's result. */
    int fcntl(int fd, int cmd, int arg) throws SyscallException;

    /** ioctl(2) whose argument is an {@code int} the kernel writes (FIONREAD/SIOCINQ, SIOCOUTQ, SIOCOUTQNSD): that int. */
    int ioctlInt(int fd, long request) throws SyscallException;

    /** poll(2): fills each entry's {@code revents}; the number of entries with events. */
    int poll(PollFd[] fds, int timeoutMillis) throws SyscallException;

    /** epoll_create(2) / epoll_create1(2) with {@code flags}: the new descriptor. */
    int epollCreate(int flags) throws SyscallException;

    /** epoll_ctl(2) (EPOLL_CTL_ADD/MOD/DEL) with {@code events} and the 64-bit {@code data}. */
    void epollCtl(int epfd, int op, int fd, int events, long data) throws SyscallException;

    /** epoll_wait(2): the events reported, at most {@code maxEvents}. */
    List<EpollEvent> epollWait(int epfd, int maxEvents, int timeoutMillis) throws SyscallException;

    /** shutdown(2) with SHUT_RD, SHUT_WR or SHUT_RDWR. */
    void shutdown(int fd, int how) throws SyscallException;

    /** close(2). */
    void close(int fd) throws SyscallException;

    /** What accept returned. */
    record Accepted(int fd, InetSocketAddress peer) {}

    /** What a receive returned: the bytes, the source (or null), and {@code msg_flags} (0 unless recvmsg). */
    record Received(byte[] data, InetSocketAddress from, int msgFlags) {}

    /** One {@code struct pollfd}: {@code revents} is filled by {@link #poll}. */
    final class PollFd {
        public final int fd;
        public final int events;
        public int revents;

        public PollFd(int fd, int events) {
            this.fd = fd;
            this.events = events;
        }
    }

    /** One {@code struct epoll_event} reported by {@link #epollWait}. */
    record EpollEvent(int events, long data) {}
}
