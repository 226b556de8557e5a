package io.jnet.socket;

/** Linux errno values reported by jnet sockets (numbers as on Linux x86_64, {@code errno.h}). */
public enum Errno {
    EPERM(1, "Operation not permitted"),
    ENOENT(2, "No such file or directory"),
    EINTR(4, "Interrupted system call"),
    EIO(5, "Input/output error"),
    EBADF(9, "Bad file descriptor"),
    EAGAIN(11, "Resource temporarily unavailable"),
    ENOMEM(12, "Cannot allocate memory"),
    EFAULT(14, "Bad address"),
    EINVAL(22, "Invalid argument"),
    EMFILE(24, "Too many open files"),
    EPIPE(32, "Broken pipe"),
    ENOTSOCK(88, "Socket operation on non-socket"),
    EDESTADDRREQ(89, "Destination address required"),
    EMSGSIZE(90, "Message too long"),
    ENOPROTOOPT(92, "Protocol not available"),
    EOPNOTSUPP(95, "Operation not supported"),
    EAFNOSUPPORT(97, "Address family not supported by protocol"),
    EADDRINUSE(98, "Address already in use"),
    EADDRNOTAVAIL(99, "Cannot assign requested address"),
    ENETDOWN(100, "Network is down"),
    ENETUNREACH(101, "Network is unreachable"),
    ECONNABORTED(103, "Software caused connection abort"),
    ECONNRESET(104, "Connection reset by peer"),
    ENOBUFS(105, "No buffer space available"),
    EISCONN(106, "Transport endpoint is already connected"),
    ENOTCONN(107, "Transport endpoint is not connected"),
    ETIMEDOUT(110, "Connection timed out"),
    ECONNREFUSED(111, "Connection refused"),
    EHOSTUNREACH(113, "No route to host"),
    EALREADY(114, "Operation already in progress"),
    EINPROGRESS(115, "Operation now in progress");

    private final int number;
    private final String message;

    Errno(int number, String message) {
        this.number = number;
        this.message = message;
    }

    /** The numeric errno as on Linux. */
    public int number() { return number; }

    /** strerror(3) text. */
    public String message() { return message; }
}
