package io.jnet.cli;

import io.jnet.app.TapStack;
import java.io.IOException;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Explains why a TAP interface could not be opened. {@link io.jnet.link.tap.TapDevice} reports the failed
 * call and its errno, e.g. {@code TUNSETIFF failed: errno 16 (EBUSY: Device or resource busy)}; this
 * adds what the errno means for a TAP: EPERM/EACCES a missing privilege, EBUSY another holder, EINVAL a
 * name that belongs to something other than a TAP, ENOENT no {@code /dev/net/tun}.
 */
final class TapOpenErrors {

    private static final Pattern ERRNO = Pattern.compile("\\((E[A-Z0-9]+):");

    private TapOpenErrors() {}

    /**
     * The line to print, e.g. {@code cannot open TAP interface jnet0: TUNSETIFF failed: errno 1 (EPERM:
     * Operation not permitted) for interface 'jnet0' (needs root or CAP_NET_ADMIN)}.
     */
    static String describe(String tapName, IOException e) {
        if (e instanceof TapStack.CaptureFileException c) {
            return OutputFiles.describe(c.file(), c.getCause() instanceof IOException io ? io : c);
        }
        String message = e.getMessage() == null ? e.getClass().getSimpleName() : e.getMessage();
        String hint = hint(errnoName(message));
        return "cannot open TAP interface " + tapName + ": " + message + (hint == null ? "" : " (" + hint + ")");
    }

    /** The errno name in a {@code TapDevice} message, or null. */
    static String errnoName(String message) {
        Matcher m = ERRNO.matcher(message == null ? "" : message);
        return m.find() ? m.group(1) : null;
    }

    /** What the errno means when opening a TAP, or null when there is nothing to add. */
    static String hint(String errno) {
        if (errno == null) return null;
        return switch (errno) {
            case "EPERM", "EACCES" -> "needs root or CAP_NET_ADMIN";
            case "EBUSY" -> "interface busy: another process holds it";
            case "EINVAL" -> "bad interface name or not a TAP";
            case "ENOENT", "ENODEV" -> "no TUN/TAP driver: load it with 'modprobe tun'";
            default -> null;
        };
    }
}
