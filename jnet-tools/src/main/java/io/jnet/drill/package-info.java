/**
 * {@code jnet drill}: plays scripts in packetdrill's language against jnet or against this machine's Linux.
 *
 * <p>Layers, each depending only on the ones above it:
 * <ul>
 * <li>{@code io.jnet.drill.script}: the language: lexer, parser and the syntax tree of a script (no I/O).</li>
 * <li>{@code io.jnet.drill.target}: the system under test as the runner sees it: a wire on which the runner is
 *     the remote peer ({@link io.jnet.drill.target.Target}), the socket system calls in Linux's terms
 *     ({@link io.jnet.drill.target.Syscalls}) and the clock the script's times count on. {@code JnetTarget}
 *     (a fresh namespace on virtual time) and {@code KernelTarget} (a fresh Linux network namespace with a TUN
 *     device, system calls through FFM, real time) implement it.</li>
 * <li>{@code io.jnet.drill.play}: plays a parsed script on a target: times and tolerances, packets injected and
 *     expected (sequence numbers relative to the live ones), system calls and their results, and the verdict.</li>
 * </ul>
 */
package io.jnet.drill;
