package io.jnet.perf;

import java.io.EOFException;
import java.io.IOException;
import java.io.ObjectInputStream;
import java.io.ObjectOutputStream;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.channels.Channels;
import java.nio.channels.SocketChannel;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Function;

/**
 * The main class of a lane's own JVM ({@link ChildJvmLane}): opens one path of {@link PathRegistry#standard()}
 * exactly as {@link PerfSuite} would in one JVM (the path's id and the {@code --sysctl} settings, through
 * {@link PathRegistry.Entry#open}), then runs every {@link TestSpec} the parent sends and sends back what it
 * measured, until the parent closes the connection ({@link LaneProtocol}).
 *
 * <p>Arguments: {@code SOCKET PATH_ID [NAME=VALUE]...}: the parent's Unix domain socket, the path's id, and
 * the sysctls in the order given. Exit status 0 once the parent has closed the connection (also after a
 * path that could not be opened, which the parent is told), 2 for bad arguments or no connection to the
 * parent. A run's error goes to the parent as the error it is; a RuntimeException of a run, which would stop a
 * one-JVM command, goes as a failed run.
 */
public final class LaneWorker {

    /** Exit status for bad arguments or a parent that cannot be reached. */
    static final int EXIT_USAGE = 2;

    private LaneWorker() {}

    public static void main(String[] args) {
        System.exit(run(args));
    }

    private static int run(String[] args) {
        if (args.length < 2) {
            System.err.println("usage: LaneWorker SOCKET PATH_ID [NAME=VALUE]...");
            return EXIT_USAGE;
        }
        Map<String, String> sysctls;
        try {
            sysctls = sysctls(Arrays.asList(args).subList(2, args.length));
        } catch (IllegalArgumentException e) {
            System.err.println("lane worker: " + e.getMessage());
            return EXIT_USAGE;
        }
        String id = args[1];
        try {
            serve(Path.of(args[0]), s -> PathRegistry.standard().get(id).open(s), sysctls, PerfTest::of);
            return 0;
        } catch (IOException e) {
            System.err.println("lane worker for " + id + ": lost the parent: " + PeerRun.describe(e));
            return EXIT_USAGE;
        }
    }

    /**
     * {@code NAME=VALUE} items to a map in order, split at the first {@code =}.
     *
     * @throws IllegalArgumentException for an item without {@code =} or without a name
     */
    static Map<String, String> sysctls(List<String> items) {
        Map<String, String> m = new LinkedHashMap<>();
        for (String item : items) {
            int eq = item.indexOf('=');
            if (eq <= 0) throw new IllegalArgumentException("sysctl must be NAME=VALUE: " + item);
            m.put(item.substring(0, eq), item.substring(eq + 1));
        }
        return m;
    }

    /**
     * Connects to the parent at {@code socket}, opens the path with {@code opener} and {@code sysctls}, and
     * serves runs ({@code tests} gives each kind's test) until the parent closes the connection; closes the
     * path then.
     *
     * @throws IOException if the parent cannot be reached, closes the connection mid-message, or sends what is
     *                     not a {@link TestSpec}
     */
    static void serve(Path socket, PathRegistry.Opener opener, Map<String, String> sysctls,
            Function<TestKind, PerfTest> tests) throws IOException {
        try (SocketChannel ch = SocketChannel.open(StandardProtocolFamily.UNIX)) {
            ch.connect(UnixDomainSocketAddress.of(socket));
            ObjectOutputStream out = LaneProtocol.output(Channels.newOutputStream(ch));
            ObjectInputStream in = LaneProtocol.input(Channels.newInputStream(ch));
            PerfPath path;
            try {
                path = opener.open(sysctls);
            } catch (UnsupportedOperationException | LinkageError e) {
                LaneProtocol.send(out, new LaneProtocol.Failed(true, e.getMessage()));
                return;
            } catch (IOException | RuntimeException e) {
                LaneProtocol.send(out, new LaneProtocol.Failed(false, PeerRun.describe(e)));
                return;
            }
            try (path) {
                LaneProtocol.send(out, new LaneProtocol.Ready(path.description()));
                while (true) {
                    TestSpec spec = next(in);
                    if (spec == null) return;
                    LaneProtocol.send(out, runOnce(tests, path, spec));
                }
            }
        }
    }

    /** The next spec, or null once the parent has closed the connection. */
    private static TestSpec next(ObjectInputStream in) throws IOException {
        Object o;
        try {
            o = in.readObject();
        } catch (EOFException e) {
            return null;
        } catch (ClassNotFoundException e) {
            throw new IOException("the parent sent an unknown class: " + e.getMessage(), e);
        }
        if (o instanceof TestSpec spec) return spec;
        throw new IOException("the parent sent " + (o == null ? "null" : o.getClass().getName()) + ", not a TestSpec");
    }

    private static LaneProtocol.Reply runOnce(Function<TestKind, PerfTest> tests, PerfPath path, TestSpec spec) {
        try {
            path.useAllocator(spec.allocator());
            return new LaneProtocol.Ran(tests.apply(spec.kind()).run(path, spec));
        } catch (StackUnavailableException e) {
            return new LaneProtocol.Failed(true, e.getMessage());
        } catch (PerfException e) {
            return new LaneProtocol.Failed(false, e.getMessage());
        } catch (RuntimeException e) {
            return new LaneProtocol.Failed(false, PeerRun.describe(e));
        }
    }
}
