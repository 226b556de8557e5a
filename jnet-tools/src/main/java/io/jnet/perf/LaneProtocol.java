package io.jnet.perf;

import java.io.BufferedInputStream;
import java.io.BufferedOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.ObjectInputFilter;
import java.io.ObjectInputStream;
import java.io.ObjectOutputStream;
import java.io.OutputStream;
import java.io.Serializable;

/**
 * What a parent ({@link ChildJvmLane}) and a lane worker ({@link LaneWorker}) say to each other: Java
 * serialization over one Unix domain stream socket, both ways.
 * <ol>
 *   <li>worker to parent, once: {@link Ready} when the path is open, or {@link Failed} when it could not be
 *       opened (after which the worker exits);</li>
 *   <li>parent to worker: a {@link TestSpec}, one per run; worker to parent: its {@link Ran} or {@link Failed};</li>
 *   <li>the parent closes the connection: the worker closes the path and exits.</li>
 * </ol>
 * The socket, not the worker's stdout, carries the messages, so that nothing the JVM itself prints there
 * ({@code -Xlog}, {@code -XX:+PrintCompilation}) can break the stream. Only the classes of these messages are
 * read ({@link #input}).
 */
final class LaneProtocol {

    private LaneProtocol() {}

    /** A worker's answer. */
    sealed interface Reply extends Serializable permits Ready, Ran, Failed {}

    /**
     * The path is open.
     *
     * @param description where its traffic goes ({@link PerfPath#description()})
     */
    record Ready(String description) implements Reply {}

    /** A run's result. */
    record Ran(RunResult result) implements Reply {}

    /**
     * Opening the path or a run failed.
     *
     * @param unavailable true when the stack cannot provide the path or open sockets at all (opening:
     *                    UnsupportedOperationException; a run: {@link StackUnavailableException})
     * @param message     the error as the same step in one JVM would report it
     */
    record Failed(boolean unavailable, String message) implements Reply {}

    /** The output side, its stream header already sent. */
    static ObjectOutputStream output(OutputStream raw) throws IOException {
        ObjectOutputStream out = new ObjectOutputStream(new BufferedOutputStream(raw));
        out.flush();
        return out;
    }

    /**
     * The input side: reads the peer's stream header (blocks until it came), and accepts only the classes
     * of the messages and what they hold (this package, HdrHistogram, {@link java.time.Duration}).
     */
    static ObjectInputStream input(InputStream raw) throws IOException {
        ObjectInputStream in = new ObjectInputStream(new BufferedInputStream(raw));
        in.setObjectInputFilter(LaneProtocol::check);
        return in;
    }

    /** Sends one message; the stream forgets it at once, so that a long run of messages holds no memory. */
    static void send(ObjectOutputStream out, Serializable message) throws IOException {
        out.writeObject(message);
        out.reset();
        out.flush();
    }

    private static ObjectInputFilter.Status check(ObjectInputFilter.FilterInfo info) {
        Class<?> c = info.serialClass();
        if (c == null) return ObjectInputFilter.Status.UNDECIDED;
        while (c.isArray()) c = c.getComponentType();
        String name = c.getName();
        boolean known = c.isPrimitive() || name.startsWith("io.jnet.perf.") || name.startsWith("org.HdrHistogram.")
                || name.equals("java.time.Duration") || name.equals("java.time.Ser") || name.equals("java.lang.Enum");
        return known ? ObjectInputFilter.Status.ALLOWED : ObjectInputFilter.Status.REJECTED;
    }
}
