package io.jnet.link.tap;

/**
 * Symbolic names and {@code strerror(3)} texts of the Linux errno values that {@code open(2)},
 * {@code ioctl(2)}, {@code read(2)}, {@code write(2)} and {@code poll(2)} on {@code /dev/net/tun} can
 * report (numbers from Linux {@code include/uapi/asm-generic/errno-base.h} and {@code errno.h}).
 */
final class ErrnoNames {

    private static final String[][] TABLE = new String[134][];

    static {
        put(1, "EPERM", "Operation not permitted");
        put(2, "ENOENT", "No such file or directory");
        put(4, "EINTR", "Interrupted system call");
        put(5, "EIO", "Input/output error");
        put(6, "ENXIO", "No such device or address");
        put(9, "EBADF", "Bad file descriptor");
        put(11, "EAGAIN", "Resource temporarily unavailable");
        put(12, "ENOMEM", "Cannot allocate memory");
        put(13, "EACCES", "Permission denied");
        put(14, "EFAULT", "Bad address");
        put(16, "EBUSY", "Device or resource busy");
        put(17, "EEXIST", "File exists");
        put(19, "ENODEV", "No such device");
        put(20, "ENOTDIR", "Not a directory");
        put(21, "EISDIR", "Is a directory");
        put(22, "EINVAL", "Invalid argument");
        put(23, "ENFILE", "Too many open files in system");
        put(24, "EMFILE", "Too many open files");
        put(25, "ENOTTY", "Inappropriate ioctl for device");
        put(28, "ENOSPC", "No space left on device");
        put(30, "EROFS", "Read-only file system");
        put(36, "ENAMETOOLONG", "File name too long");
        put(77, "EBADFD", "File descriptor in bad state");
        put(90, "EMSGSIZE", "Message too long");
        put(95, "EOPNOTSUPP", "Operation not supported");
        put(100, "ENETDOWN", "Network is down");
        put(105, "ENOBUFS", "No buffer space available");
    }

    private ErrnoNames() {}

    private static void put(int errno, String name, String text) {
        TABLE[errno] = new String[] {name, text};
    }

    /** The symbolic name, e.g. {@code EPERM}, or {@code "errno N"} when not in the table. */
    static String name(int errno) {
        String[] e = errno > 0 && errno < TABLE.length ? TABLE[errno] : null;
        return e != null ? e[0] : "errno " + errno;
    }

    /** E.g. {@code "errno 1 (EPERM: Operation not permitted)"}. */
    static String describe(int errno) {
        String[] e = errno > 0 && errno < TABLE.length ? TABLE[errno] : null;
        return e != null ? "errno " + errno + " (" + e[0] + ": " + e[1] + ")" : "errno " + errno;
    }
}
