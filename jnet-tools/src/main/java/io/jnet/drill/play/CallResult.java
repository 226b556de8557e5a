package io.jnet.drill.play;

import io.jnet.drill.target.SyscallException;

/**
 * What a system call did: its return value, or the errno it failed with; plus what it wrote into its output
 * arguments that the script states (a checker runs later, in the player's thread).
 *
 * @param value the return value (when {@code error} is null)
 * @param error the failure, or null
 * @param outputCheck a mismatch in an output argument (getsockopt's value, poll's revents ...), or null
 * @param micros when the call returned, on the target's clock
 */
record CallResult(long value, SyscallException error, String outputCheck, long micros) {}
