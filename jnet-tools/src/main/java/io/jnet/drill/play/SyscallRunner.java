package io.jnet.drill.play;

import io.jnet.drill.script.Expr;
import io.jnet.drill.script.Syscall;
import io.jnet.drill.target.LinuxConstants;
import io.jnet.drill.target.SyscallException;
import io.jnet.drill.target.Syscalls;
import io.jnet.drill.target.TcpInfoLayout;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * Makes one script system call on a target, as packetdrill does: input arguments evaluated ({@code ...} for a
 * buffer is zeros of the given length; for an address, the local address for bind and the remote one for
 * connect, port 8080), output arguments compared with what the script states (an {@code ...} is not compared).
 */
final class SyscallRunner {
    /** packetdrill's port for {@code ...} addresses. */
    static final int DEFAULT_PORT = 8080;

    private final Syscalls sys;
    private final Values values;
    private final InetSocketAddress localDefault, remoteDefault;
    /** The flow the script's packets belong to: a bind or connect tells it a port. */
    private final Flow flow;
    private final FdTable fds = new FdTable();
    /** The target descriptor of the socket a code block asks about: the last one accepted or connected, else made. */
    private volatile int socketUnderTest = -1;

    SyscallRunner(Syscalls sys, Values values, InetSocketAddress localDefault, InetSocketAddress remoteDefault, Flow flow) {
        this.sys = sys;
        this.values = values;
        this.localDefault = localDefault;
        this.remoteDefault = remoteDefault;
        this.flow = flow;
    }

    /** A prepared call: its arguments evaluated, ready to run on any thread. */
    interface Prepared {
        /** Runs the call; the result's {@code micros} is filled by the caller. */
        CallResult call() throws SyscallException;
    }

    /**
     * Evaluates the arguments of {@code c} (in the player's thread, so errors point at the script). A negative count
     * or iov_len (a huge size_t) makes a call that fails with EINVAL, as Linux refuses it (the kernel target says
     * so too): no buffer of that size can be made to hand to a target.
     */
    Prepared prepare(Syscall c) throws PlayException, Unsupported {
        try {
            return prepareCall(c);
        } catch (NegativeLength e) {
            return () -> {
                throw new SyscallException(io.jnet.drill.target.LinuxErrno.number("EINVAL"));
            };
        }
    }

    private Prepared prepareCall(Syscall c) throws PlayException, Unsupported, NegativeLength {
        List<Expr> a = c.arguments();
        int line = c.pos().line();
        return switch (c.name()) {
            case "socket" -> {
                need(c, 3);
                // packetdrill: socket(..., ...) takes the script's address family (AF_INET until IPv6)
                int domain = a.get(0) instanceof Expr.Ellipsis ? (int) LinuxConstants.require("AF_INET") : i(a, 0);
                if (domain == LinuxConstants.require("AF_INET6")) throw new Unsupported(line, "socket(AF_INET6, ...) (jnet drill plays IPv4 only)");
                int type = i(a, 1), proto = i(a, 2);
                yield () -> {
                    int fd = sys.socket(domain, type, proto);
                    socketUnderTest = fd;
                    return ok(fds.open(fd));
                };
            }
            case "bind" -> {
                need(c, 3);
                int fd = fd(a, 0);
                InetSocketAddress to = values.address(a.get(1), localDefault);
                if (flow.localPort < 0) flow.localPort = to.getPort();
                yield () -> {
                    sys.bind(fd, to);
                    return ok(0);
                };
            }
            case "listen" -> {
                need(c, 2);
                int fd = fd(a, 0), backlog = i(a, 1);
                yield () -> {
                    sys.listen(fd, backlog);
                    return ok(0);
                };
            }
            case "accept", "accept4" -> {
                int fd = fd(a, 0);
                int flags = c.name().equals("accept4") ? i(a, 3) : 0;
                yield () -> {
                    int child = sys.accept(fd, flags).fd();
                    socketUnderTest = child;
                    return ok(fds.open(child));
                };
            }
            case "connect" -> {
                need(c, 3);
                int fd = fd(a, 0);
                InetSocketAddress to = values.address(a.get(1), remoteDefault);
                if (flow.remotePort < 0) flow.remotePort = to.getPort();
                yield () -> {
                    socketUnderTest = fd;
                    sys.connect(fd, to);
                    return ok(0);
                };
            }
            case "read", "recv", "recvfrom" -> {
                int fd = fd(a, 0), len = i(a, 2);
                int flags = c.name().equals("read") ? 0 : i(a, 3);
                yield () -> ok(sys.recvfrom(fd, len, flags).data().length);
            }
            case "write", "send", "sendto" -> {
                int fd = fd(a, 0);
                byte[] data = buffer(a.get(1), i(a, 2), line);
                int flags = c.name().equals("write") ? 0 : i(a, 3);
                InetSocketAddress to = c.name().equals("sendto") && a.size() > 4 ? values.address(a.get(4), remoteDefault) : null;
                yield () -> ok(sys.sendto(fd, data, flags, to));
            }
            case "writev" -> {
                int fd = fd(a, 0);
                byte[][] iov = iovecs(a.get(1), line);
                yield () -> ok(sys.writev(fd, iov));
            }
            case "readv" -> {
                int fd = fd(a, 0);
                byte[][] iov = iovecs(a.get(1), line);
                int[] lens = new int[iov.length];
                for (int k = 0; k < iov.length; k++) lens[k] = iov[k].length;
                yield () -> ok(sys.readv(fd, lens).length);
            }
            case "sendmsg" -> {
                int fd = fd(a, 0);
                Expr.Struct msg = struct(a.get(1), line);
                byte[][] iov = iovecs(msg.field("msg_iov").orElseThrow(() -> new PlayException(line, "msghdr without msg_iov")), line);
                Expr name = msg.field("msg_name").orElse(null);
                InetSocketAddress to = name == null || name instanceof Expr.Ellipsis ? null : values.address(name, remoteDefault);
                if (msg.field("msg_control").isPresent()) throw new Unsupported(line, "sendmsg with control messages");
                int flags = i(a, 2);
                yield () -> ok(sys.sendmsg(fd, iov, flags, to));
            }
            case "recvmsg" -> {
                int fd = fd(a, 0);
                Expr.Struct msg = struct(a.get(1), line);
                byte[][] iov = iovecs(msg.field("msg_iov").orElseThrow(() -> new PlayException(line, "msghdr without msg_iov")), line);
                int[] lens = new int[iov.length];
                for (int k = 0; k < iov.length; k++) lens[k] = iov[k].length;
                if (msg.field("msg_control").isPresent() && !(msg.field("msg_control").get() instanceof Expr.Ellipsis)) {
                    throw new Unsupported(line, "recvmsg with control messages");
                }
                int flags = i(a, 2);
                Expr wantFlags = msg.field("msg_flags").orElse(null);
                yield () -> {
                    Syscalls.Received r = sys.recvmsg(fd, lens, flags);
                    String bad = null;
                    if (wantFlags != null && !(wantFlags instanceof Expr.Ellipsis)) {
                        long w = numberOrThrow(wantFlags);
                        if (w != r.msgFlags()) bad = "msg_flags " + r.msgFlags() + ", expected " + w;
                    }
                    return new CallResult(r.data().length, null, bad, 0);
                };
            }
            case "setsockopt" -> {
                need(c, 5);
                int fd = fd(a, 0), level = i(a, 1), name = i(a, 2);
                byte[] value = optionBytes(a.get(3), i(a, 4), line);
                yield () -> {
                    sys.setsockopt(fd, level, name, value);
                    return ok(0);
                };
            }
            case "getsockopt" -> {
                need(c, 5);
                int fd = fd(a, 0), level = i(a, 1), name = i(a, 2);
                Expr want = a.get(3);
                Expr lenArg = a.get(4);
                boolean anyLen = lenArg instanceof Expr.Ellipsis
                        || lenArg instanceof Expr.Array arr && arr.elements().size() == 1 && arr.elements().getFirst() instanceof Expr.Ellipsis;
                int len = anyLen ? 4 : i(a, 4);
                boolean tcpInfo = level == LinuxConstants.require("IPPROTO_TCP") && name == LinuxConstants.require("TCP_INFO");
                int askLen = tcpInfo ? TcpInfoLayout.SIZE : Math.max(len, 4);
                yield () -> {
                    byte[] got = sys.getsockopt(fd, level, name, askLen);
                    String bad = compareOption(want, got, tcpInfo, line);
                    // the optlen the call returns, as packetdrill checks it (not for TCP_INFO, whose size grows)
                    if (bad == null && !anyLen && !tcpInfo && len >= 4 && got.length != len) {
                        bad = "optlen " + got.length + ", expected " + len;
                    }
                    return new CallResult(0, null, bad, 0);
                };
            }
            case "fcntl" -> {
                int fd = fd(a, 0), cmd = i(a, 1), arg = a.size() > 2 ? i(a, 2) : 0;
                yield () -> ok(sys.fcntl(fd, cmd, arg));
            }
            case "ioctl" -> {
                need(c, 3);
                int fd = fd(a, 0);
                long request = values.number(a.get(1));
                Expr want = a.get(2);
                if (request == LinuxConstants.require("FIONBIO")) {
                    throw new Unsupported(line, "ioctl FIONBIO (an input argument; use fcntl O_NONBLOCK)");
                }
                yield () -> {
                    int v = sys.ioctlInt(fd, request);
                    String bad = null;
                    if (!(want instanceof Expr.Ellipsis)) {
                        long w = numberOrThrow(want);
                        if (w != v) bad = "ioctl value " + v + ", expected " + w;
                    }
                    return new CallResult(0, null, bad, 0);
                };
            }
            case "poll" -> {
                need(c, 3);
                Expr.Array arr = array(a.get(0), line);
                List<Syscalls.PollFd> pollFds = new ArrayList<>();
                List<Expr> wantRevents = new ArrayList<>();
                for (Expr e : arr.elements()) {
                    Expr.Struct s = struct(e, line);
                    pollFds.add(new Syscalls.PollFd(this.fds.target((int) field(s, "fd", line)), (int) field(s, "events", line)));
                    wantRevents.add(s.field("revents").orElse(null));
                }
                int timeout = i(a, 2);
                yield () -> {
                    Syscalls.PollFd[] p = pollFds.toArray(Syscalls.PollFd[]::new);
                    int n = sys.poll(p, timeout);
                    String bad = null;
                    for (int k = 0; k < p.length && bad == null; k++) {
                        Expr w = wantRevents.get(k);
                        if (w != null && !(w instanceof Expr.Ellipsis) && numberOrThrow(w) != p[k].revents) {
                            bad = "revents of fd " + p[k].fd + " " + LinuxConstants.flags(LinuxConstants.Group.POLL_BIT, p[k].revents)
                                    + ", expected " + w.render();
                        }
                    }
                    return new CallResult(n, null, bad, 0);
                };
            }
            case "epoll_create", "epoll_create1" -> {
                int flags = c.name().equals("epoll_create1") ? i(a, 0) : 0;
                yield () -> ok(fds.open(sys.epollCreate(flags)));
            }
            case "epoll_ctl" -> {
                need(c, 4);
                int ep = fd(a, 0), op = i(a, 1), fd = fd(a, 2);
                int events = 0;
                long data = fd;
                if (!(a.get(3) instanceof Expr.Ellipsis)) {
                    Expr.Struct s = struct(a.get(3), line);
                    events = (int) field(s, "events", line);
                    if (s.field("fd").isPresent()) data = field(s, "fd", line);
                    else if (s.field("u64").isPresent()) data = field(s, "u64", line);
                    else if (s.field("u32").isPresent()) data = field(s, "u32", line);
                    else if (s.field("ptr").isPresent()) data = field(s, "ptr", line);
                }
                int ev = events;
                long d = data;
                yield () -> {
                    sys.epollCtl(ep, op, fd, ev, d);
                    return ok(0);
                };
            }
            case "epoll_wait" -> {
                need(c, 4);
                int ep = fd(a, 0), max = i(a, 2), timeout = i(a, 3);
                Expr want = a.get(1);
                yield () -> {
                    List<Syscalls.EpollEvent> got = sys.epollWait(ep, max, timeout);
                    return new CallResult(got.size(), null, compareEpoll(want, got, line), 0);
                };
            }
            case "shutdown" -> {
                need(c, 2);
                int fd = fd(a, 0), how = i(a, 1);
                yield () -> {
                    sys.shutdown(fd, how);
                    return ok(0);
                };
            }
            case "close" -> {
                need(c, 1);
                int scriptFd = i(a, 0);
                int fd = fds.target(scriptFd);
                yield () -> {
                    sys.close(fd);
                    fds.close(scriptFd);
                    return ok(0);
                };
            }
            default -> throw new Unsupported(line, "system call " + c.name() + " is not supported by jnet drill");
        };
    }

    /**
     * The {@code struct tcp_info} of the socket under test (packetdrill's code blocks read it), or null when there is
     * none or it cannot be read.
     */
    byte[] tcpInfoOfSocketUnderTest() {
        int fd = socketUnderTest;
        if (fd < 0) return null;
        try {
            return sys.getsockopt(fd, (int) LinuxConstants.require("IPPROTO_TCP"), (int) LinuxConstants.require("TCP_INFO"),
                    TcpInfoLayout.SIZE);
        } catch (SyscallException e) {
            return null;
        }
    }

    // ------------------------------------------------------------------ arguments

    private static void need(Syscall c, int n) throws PlayException {
        if (c.arguments().size() < n) {
            throw new PlayException(c.pos().line(), c.name() + " takes " + n + " arguments, the script gives " + c.arguments().size());
        }
    }

    /** A descriptor argument, translated to the target's number. */
    private int fd(List<Expr> a, int k) throws PlayException, Unsupported { return fds.target(i(a, k)); }

    private int i(List<Expr> a, int k) throws PlayException, Unsupported {
        if (k >= a.size()) throw new PlayException(a.isEmpty() ? 0 : a.getLast().pos().line(), "missing argument " + (k + 1));
        return (int) values.number(a.get(k));
    }

    private long numberOrThrow(Expr e) throws SyscallException {
        try {
            return values.number(e);
        } catch (PlayException | Unsupported x) {
            throw new ScriptValueError(x);
        }
    }

    /**
     * A value in a call's expected output that could not be evaluated when the call returned (an unknown symbol: a
     * runner limit; a malformed value: the script's fault), carried out of the call's thread so that the player
     * reports it as what it is, not as the target failing.
     */
    static final class ScriptValueError extends RuntimeException {
        private final Exception problem;

        ScriptValueError(Exception problem) {
            super(problem.getMessage(), problem, false, false);
            this.problem = problem;
        }

        /** Rethrows the {@link Unsupported} or {@link PlayException} this carries. */
        void rethrow() throws Unsupported, PlayException {
            if (problem instanceof Unsupported u) throw u;
            throw (PlayException) problem;
        }
    }

    private long field(Expr.Struct s, String name, int line) throws PlayException, Unsupported {
        Expr e = s.field(name).orElseThrow(() -> new PlayException(line, "struct without " + name + ": " + s.render()));
        return values.number(e);
    }

    private static Expr.Struct struct(Expr e, int line) throws PlayException {
        if (e instanceof Expr.Struct s) return s;
        throw new PlayException(line, "expected a struct, found " + e.render());
    }

    private static Expr.Array array(Expr e, int line) throws PlayException {
        if (e instanceof Expr.Array a) return a;
        throw new PlayException(line, "expected an array, found " + e.render());
    }

    /** A buffer argument: {@code ...} or a string; {@code len} bytes (zeros after the string's text). */
    /** The largest buffer the runner makes for a script's call (a larger count is the script's mistake). */
    static final int MAX_BUFFER = 64 << 20;

    /**
     * A negative count or iov_len (a huge size_t on Linux): Linux refuses the call with EINVAL, as the kernel target
     * reports, so the runner plays the call as failing with EINVAL (a buffer of that size cannot be made).
     */
    private static final class NegativeLength extends Exception {
        NegativeLength() { super(null, null, false, false); }
    }

    private static void checkCount(long n, String what, int line) throws PlayException, NegativeLength {
        if (n < 0) throw new NegativeLength();
        if (n > MAX_BUFFER) throw new PlayException(line, what + " " + n + " is larger than jnet drill plays (" + MAX_BUFFER + " bytes)");
    }

    private static byte[] buffer(Expr e, int len, int line) throws PlayException, NegativeLength {
        checkCount(len, "count", line);
        byte[] b = new byte[len];
        if (e instanceof Expr.Str s) {
            byte[] t = s.value().getBytes(StandardCharsets.ISO_8859_1);
            System.arraycopy(t, 0, b, 0, Math.min(t.length, b.length));
        } else if (!(e instanceof Expr.Ellipsis)) {
            throw new PlayException(line, "expected a buffer (... or a string), found " + e.render());
        }
        return b;
    }

    /** An iovec array: {@code [{iov_base=..., iov_len=N}, ...]} or older {@code [{..., N}]}. */
    private byte[][] iovecs(Expr e, int line) throws PlayException, Unsupported, NegativeLength {
        Expr.Array arr = array(e, line);
        byte[][] out = new byte[arr.elements().size()][];
        for (int k = 0; k < out.length; k++) {
            Expr.Struct s = struct(arr.elements().get(k), line);
            Expr len = s.field("iov_len").orElse(s.members().size() == 2 ? s.members().get(1) : null);
            if (len == null) throw new PlayException(line, "iovec without iov_len: " + s.render());
            long n = values.number(len);
            checkCount(n, "iov_len", line);
            out[k] = new byte[(int) n];
        }
        return out;
    }

    /** The bytes setsockopt hands the kernel: an int {@code [1]}, {@code struct linger}, timeval, or a string. */
    private byte[] optionBytes(Expr e, int len, int line) throws PlayException, Unsupported {
        if (e instanceof Expr.Str s) return s.value().getBytes(StandardCharsets.US_ASCII);
        ByteBuffer b = ByteBuffer.allocate(Math.max(len, 4)).order(ByteOrder.LITTLE_ENDIAN);
        if (e instanceof Expr.Struct s) {
            if (s.field("l_onoff").isPresent()) {
                b = ByteBuffer.allocate(8).order(ByteOrder.LITTLE_ENDIAN);
                b.putInt((int) field(s, "l_onoff", line)).putInt((int) field(s, "l_linger", line));
                return b.array();
            }
            if (s.field("tv_sec").isPresent()) {
                b = ByteBuffer.allocate(16).order(ByteOrder.LITTLE_ENDIAN);
                b.putLong(field(s, "tv_sec", line)).putLong(field(s, "tv_usec", line));
                return b.array();
            }
            throw new Unsupported(line, "setsockopt with " + s.render());
        }
        b.putInt(0, (int) values.number(e));
        return java.util.Arrays.copyOf(b.array(), Math.max(len, 0));
    }

    // ------------------------------------------------------------------ outputs

    private String compareOption(Expr want, byte[] got, boolean tcpInfo, int line) throws SyscallException {
        if (want instanceof Expr.Ellipsis) return null;
        if (tcpInfo) {
            if (!(want instanceof Expr.Struct s)) return null;
            StringBuilder bad = new StringBuilder(); // every field that differs, not only the first
            for (Expr m : s.members()) {
                if (!(m instanceof Expr.Field f) || f.value() instanceof Expr.Ellipsis) continue;
                if (!TcpInfoLayout.has(f.name())) {
                    throw new ScriptValueError(new Unsupported(line, "struct tcp_info field " + f.name() + " is not known to jnet drill"));
                }
                long w = numberOrThrow(f.value());
                long g;
                try {
                    g = TcpInfoLayout.get(got, f.name());
                } catch (RuntimeException x) {
                    return f.name() + ": " + x.getMessage();
                }
                if (g != w) bad.append(bad.isEmpty() ? "" : "; ").append(f.name()).append(' ').append(g).append(", expected ").append(w);
            }
            return bad.isEmpty() ? null : bad.toString();
        }
        if (want instanceof Expr.Str s) {
            String g = new String(got, StandardCharsets.US_ASCII).replace("\0", "");
            return g.equals(s.value()) ? null : "option value \"" + g + "\", expected \"" + s.value() + "\"";
        }
        if (want instanceof Expr.Struct s && s.field("l_onoff").isPresent()) {
            ByteBuffer b = ByteBuffer.wrap(java.util.Arrays.copyOf(got, 8)).order(ByteOrder.LITTLE_ENDIAN);
            long on = numberOrThrow(s.field("l_onoff").get()), lin = numberOrThrow(s.field("l_linger").orElseThrow());
            return b.getInt(0) == on && b.getInt(4) == lin ? null
                    : "linger {l_onoff=" + b.getInt(0) + ", l_linger=" + b.getInt(4) + "}, expected " + s.render();
        }
        long w = numberOrThrow(want);
        long g = ByteBuffer.wrap(java.util.Arrays.copyOf(got, 4)).order(ByteOrder.LITTLE_ENDIAN).getInt(0);
        return g == w ? null : "option value " + g + ", expected " + w;
    }

    private String compareEpoll(Expr want, List<Syscalls.EpollEvent> got, int line) throws SyscallException {
        if (want instanceof Expr.Ellipsis) return null;
        List<Expr> items = want instanceof Expr.Array a ? a.elements() : List.of(want);
        for (int k = 0; k < Math.min(items.size(), got.size()); k++) {
            if (!(items.get(k) instanceof Expr.Struct s)) continue;
            Syscalls.EpollEvent g = got.get(k);
            Expr ev = s.field("events").orElse(null);
            if (ev != null && !(ev instanceof Expr.Ellipsis) && numberOrThrow(ev) != (g.events() & 0xFFFFFFFFL)) {
                return "events " + LinuxConstants.flags(LinuxConstants.Group.EPOLL_BIT, g.events() & 0xFFFFFFFFL) + ", expected " + ev.render();
            }
            for (String dataField : new String[] {"fd", "u32", "u64", "ptr"}) {
                Expr d = s.field(dataField).orElse(null);
                if (d != null && !(d instanceof Expr.Ellipsis) && numberOrThrow(d) != g.data()) {
                    return dataField + " " + g.data() + ", expected " + d.render();
                }
            }
        }
        return null;
    }

    private static CallResult ok(long v) { return new CallResult(v, null, null, 0); }
}
