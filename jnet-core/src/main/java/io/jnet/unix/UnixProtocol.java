package io.jnet.unix;

import io.jnet.socket.Errno;
import io.jnet.socket.ErrnoException;
import io.jnet.socket.LocalNames;
import io.jnet.socket.LocalServerSocket;
import io.jnet.socket.LocalSocket;
import io.jnet.socket.PollableSocket;
import io.jnet.stack.NetNamespace;
import io.jnet.stack.Sysctls;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.LongAdder;

/**
 * Local stream sockets of one namespace: the name table (Linux keeps AF_UNIX names as socket files; here a
 * map from path string to the socket bound to it) and the sockets, closed with the namespace.
 */
public final class UnixProtocol implements LocalNames {
    /** Longest name in bytes: sun_path's 108 (Linux's unix_mkname_bsd accepts it without a terminating NUL). */
    static final int MAX_NAME_BYTES = 108;

    final NetNamespace ns;
    final Sysctls sysctl;
    private final ConcurrentHashMap<String, Binding> names = new ConcurrentHashMap<>();
    private final Set<PollableSocket> sockets = ConcurrentHashMap.newKeySet();
    private final LongAdder sendfileFaults = new LongAdder();

    /**
     * One name (a socket file): the socket bound to it, or null once that socket closed. The name lasts until
     * unlinked, whatever becomes of its socket.
     */
    static final class Binding {
        final String path;
        volatile PollableSocket socket;

        Binding(String path, PollableSocket socket) {
            this.path = path;
            this.socket = socket;
        }
    }

    UnixProtocol(NetNamespace ns) {
        this.ns = ns;
        this.sysctl = ns.sysctl();
        ns.registerSocketFactory(LocalSocket.class, () -> new LocalSocketImpl(this));
        ns.registerSocketFactory(LocalServerSocket.class, () -> new LocalListenerImpl(this));
        ns.registerSocketFactory(LocalSocket.Pair.class, this::socketPair);
        ns.putExtension(LocalNames.class, this);
        ns.onClose(this::closeAll);
    }

    private LocalSocket.Pair socketPair() {
        LocalSocketImpl a = new LocalSocketImpl(this);
        LocalSocketImpl b = new LocalSocketImpl(this);
        LocalSocketImpl.join(a, b);
        return new LocalSocket.Pair(a, b);
    }

    // ---- names -----------------------------------------------------------------------------------

    /**
     * Checks a name as Linux's unix_validate_addr and unix_mkname_bsd would let it through: 1 to
     * {@value #MAX_NAME_BYTES} bytes, no NUL (an empty name is Linux's autobind and a leading NUL an abstract
     * name, neither of which jnet has).
     *
     * @throws ErrnoException EINVAL
     */
    static void checkName(String path, String op) throws ErrnoException {
        if (path == null) throw new ErrnoException(Errno.EINVAL, op + ": null name");
        if (path.isEmpty()) {
            throw new ErrnoException(Errno.EINVAL, op + ": empty name (autobind to an abstract name is not supported)");
        }
        if (path.indexOf('\0') >= 0) {
            throw new ErrnoException(Errno.EINVAL, op + ": name contains NUL (abstract names are not supported)");
        }
        int bytes = path.getBytes(StandardCharsets.UTF_8).length;
        if (bytes > MAX_NAME_BYTES) {
            throw new ErrnoException(Errno.EINVAL, op + ": name of " + bytes + " bytes, more than " + MAX_NAME_BYTES);
        }
    }

    /**
     * Creates {@code path} for {@code socket}, which has no name yet ({@code named} false) or has one.
     *
     * @throws ErrnoException EADDRINUSE when the name exists (checked first, as Linux's mknod comes before the
     *                        bound check); EINVAL when the socket is named already
     */
    Binding bind(String path, PollableSocket socket, boolean named) throws ErrnoException {
        checkName(path, "bind");
        if (names.containsKey(path)) throw new ErrnoException(Errno.EADDRINUSE, "bind " + path);
        if (named) throw new ErrnoException(Errno.EINVAL, "bind: the socket has a name already");
        Binding b = new Binding(path, socket);
        if (names.putIfAbsent(path, b) != null) throw new ErrnoException(Errno.EADDRINUSE, "bind " + path);
        return b;
    }

    /**
     * The listener a connect to {@code path} reaches (Linux's unix_find_bsd).
     *
     * @throws ErrnoException ENOENT when the name does not exist; ECONNREFUSED when its socket closed or is not a
     *                        listening socket
     */
    LocalListenerImpl lookupListener(String path) throws ErrnoException {
        Binding b = names.get(path);
        if (b == null) throw new ErrnoException(Errno.ENOENT, "connect " + path);
        if (!(b.socket instanceof LocalListenerImpl l)) throw new ErrnoException(Errno.ECONNREFUSED, "connect " + path);
        return l;
    }

    /** The socket of {@code b} closed: the name stays, bound to nothing. */
    static void released(Binding b, PollableSocket socket) {
        if (b != null && b.socket == socket) b.socket = null;
    }

    @Override
    public void unlink(String path) throws ErrnoException {
        checkName(path, "unlink");
        if (names.remove(path) == null) throw new ErrnoException(Errno.ENOENT, "unlink " + path);
    }

    @Override
    public boolean exists(String path) {
        return path != null && names.containsKey(path);
    }

    @Override
    public List<String> names() {
        List<String> l = new ArrayList<>(names.keySet());
        l.sort(null);
        return l;
    }

    // ---- sockets ---------------------------------------------------------------------------------

    void add(PollableSocket s) {
        sockets.add(s);
    }

    void remove(PollableSocket s) {
        sockets.remove(s);
    }

    /** Open local sockets, listeners and connections not yet accepted included (as {@code ss -xa} would count). */
    public int socketCount() {
        return sockets.size();
    }

    /** A sendfile read a page of its mapping that the file no longer had (the file shrank); zeros went instead. */
    void countSendfileFault() {
        sendfileFaults.increment();
    }

    /** Sendfile calls that met a file shrinking under its mapping (TCP counts them in TcpExtJnetSendfileFaults). */
    public long sendfileFaults() {
        return sendfileFaults.sum();
    }

    /** Namespace shutdown: listeners first (their queued connections go with them), then the rest. */
    private void closeAll() {
        for (PollableSocket s : List.copyOf(sockets)) if (s instanceof LocalListenerImpl) s.close();
        for (PollableSocket s : List.copyOf(sockets)) s.close();
    }
}
