/**
 * The kernel target of {@code jnet drill}: this machine's Linux in a fresh network namespace of its own, reached
 * through a TUN device, with the socket system calls made through the FFM API ({@code java.lang.foreign}, no JNI).
 *
 * <ul>
 * <li>{@link io.jnet.drill.kernel.KernelTarget}: the {@link io.jnet.drill.target.Target}: namespace, {@code tun0},
 *     addresses and route as packetdrill sets them up, real time, sysctls, and the clean-up.</li>
 * <li>{@link io.jnet.drill.kernel.KernelSyscalls}: the {@link io.jnet.drill.target.Syscalls}, errno captured at
 *     each call; only descriptors it opened may be used; closing ends every blocked call.</li>
 * <li>Package-private helpers, one job each: {@code Libc} (the downcall handles), {@code SockAddrs}
 *     ({@code sockaddr_in}/{@code sockaddr_in6}), {@code EpollEvents} (packed {@code epoll_event}), {@code Iovecs}
 *     ({@code iovec}, {@code msghdr}), {@code NetnsThread} (the thread inside the namespace), {@code TunDevice} and
 *     {@code VnetHeader} (the TUN descriptor, offload header and checksum completion), {@code Sysctls},
 *     {@code IpCommand}, {@code RealClock}, {@code Descriptors}, {@code CallGate}, {@code WakeFd}.</li>
 * </ul>
 *
 * <p>Threads: Linux keeps the network namespace per thread, so whatever must be created inside (sockets, the TUN
 * device, {@code /proc/sys/net} writes) is created on the target's one namespace thread; every other call runs on
 * its caller's thread, any number at once.
 */
package io.jnet.drill.kernel;
