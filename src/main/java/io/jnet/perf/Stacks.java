package io.jnet.perf;

import java.lang.reflect.InvocationTargetException;
import java.util.Optional;

/**
 * Finds the {@link PerfPathFactory} of each stack. The kernel reference is always there; the jnet one is
 * the class {@value #JNET_FACTORY}, looked up by name so that the harness builds and runs while the jnet
 * stack is still incomplete.
 */
public final class Stacks {

    /** Fully qualified name of the jnet path factory. */
    public static final String JNET_FACTORY = "io.jnet.perf.JnetPaths";

    private Stacks() {}

    /** The host kernel through JDK NIO. */
    public static PerfPathFactory kernel() {
        return new KernelPaths();
    }

    /**
     * The jnet path factory, or empty when it is not part of this build.
     *
     * @throws IllegalStateException if the class exists but cannot be instantiated as a {@link PerfPathFactory}
     */
    public static Optional<PerfPathFactory> jnet() {
        Class<?> c;
        try {
            c = Class.forName(JNET_FACTORY);
        } catch (ClassNotFoundException e) {
            return Optional.empty();
        }
        try {
            return Optional.of((PerfPathFactory) c.getDeclaredConstructor().newInstance());
        } catch (ReflectiveOperationException | ClassCastException e) {
            Throwable cause = e instanceof InvocationTargetException ite ? ite.getCause() : e;
            throw new IllegalStateException(JNET_FACTORY + " cannot be created: " + cause, cause);
        }
    }
}
