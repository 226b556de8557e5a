package io.jnet.drill.target;

import java.util.HashMap;
import java.util.Map;

/**
 * Linux errno names, numbers and {@code strerror(3)} texts (x86_64, {@code include/uapi/asm-generic/errno-base.h}
 * and {@code errno.h}) for the errors socket system calls report.
 */
public final class LinuxErrno {
    private LinuxErrno() {}

    private static final Map<Integer, String[]> BY_NUMBER = new HashMap<>();
    private static final Map<String, Integer> BY_NAME = new HashMap<>();

    static {
        put(1, "EPERM", "Operation not permitted");
        put(2, "ENOENT", "No such file or directory");
        put(4, "EINTR", "Interrupted system call");
        put(5, "EIO", "Input/output error");
        put(9, "EBADF", "Bad file descriptor");
        put(11, "EAGAIN", "Resource temporarily unavailable");
        put(12, "ENOMEM", "Cannot allocate memory");
        put(13, "EACCES", "Permission denied");
        put(14, "EFAULT", "Bad address");
        put(17, "EEXIST", "File exists");
        put(22, "EINVAL", "Invalid argument");
        put(24, "EMFILE", "Too many open files");
        put(25, "ENOTTY", "Inappropriate ioctl for device");
        put(32, "EPIPE", "Broken pipe");
        put(88, "ENOTSOCK", "Socket operation on non-socket");
        put(89, "EDESTADDRREQ", "Destination address required");
        put(90, "EMSGSIZE", "Message too long");
        put(91, "EPROTOTYPE", "Protocol wrong type for socket");
        put(92, "ENOPROTOOPT", "Protocol not available");
        put(93, "EPROTONOSUPPORT", "Protocol not supported");
        put(94, "ESOCKTNOSUPPORT", "Socket type not supported");
        put(95, "EOPNOTSUPP", "Operation not supported");
        put(97, "EAFNOSUPPORT", "Address family not supported by protocol");
        put(98, "EADDRINUSE", "Address already in use");
        put(99, "EADDRNOTAVAIL", "Cannot assign requested address");
        put(100, "ENETDOWN", "Network is down");
        put(101, "ENETUNREACH", "Network is unreachable");
        put(103, "ECONNABORTED", "Software caused connection abort");
        put(104, "ECONNRESET", "Connection reset by peer");
        put(105, "ENOBUFS", "No buffer space available");
        put(106, "EISCONN", "Transport endpoint is already connected");
        put(107, "ENOTCONN", "Transport endpoint is not connected");
        put(108, "ESHUTDOWN", "Cannot send after transport endpoint shutdown");
        put(110, "ETIMEDOUT", "Connection timed out");
        put(111, "ECONNREFUSED", "Connection refused");
        put(113, "EHOSTUNREACH", "No route to host");
        put(114, "EALREADY", "Operation already in progress");
        put(115, "EINPROGRESS", "Operation now in progress");
        BY_NAME.put("EWOULDBLOCK", 11); // the same value as EAGAIN on Linux
    }

    private static void put(int n, String name, String text) {
        BY_NUMBER.put(n, new String[] {name, text});
        BY_NAME.put(name, n);
    }

    /** The symbolic name, or {@code errno N} for a number this table does not know. */
    public static String name(int errno) {
        String[] e = BY_NUMBER.get(errno);
        return e == null ? "errno " + errno : e[0];
    }

    /** The strerror(3) text, or {@code Unknown error N}. */
    public static String text(int errno) {
        String[] e = BY_NUMBER.get(errno);
        return e == null ? "Unknown error " + errno : e[1];
    }

    /** The number of a symbolic name ({@code EAGAIN}, {@code EWOULDBLOCK} ...), or -1 when unknown. */
    public static int number(String name) {
        Integer n = BY_NAME.get(name);
        return n == null ? -1 : n;
    }
}
