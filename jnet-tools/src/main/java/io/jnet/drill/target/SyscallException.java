package io.jnet.drill.target;

/**
 * A system call failed: the call returned -1 and set {@code errno} (numbers as on Linux x86_64).
 */
public final class SyscallException extends Exception {
    private final int errno;

    /** @param errno the Linux errno value, e.g. 11 for EAGAIN */
    public SyscallException(int errno) {
        super(LinuxErrno.name(errno) + " (" + LinuxErrno.text(errno) + ")", null, false, false);
        this.errno = errno;
    }

    /** The Linux errno value. */
    public int errno() { return errno; }

    /** Its symbolic name, e.g. {@code EAGAIN}. */
    public String errnoName() { return LinuxErrno.name(errno); }
}
