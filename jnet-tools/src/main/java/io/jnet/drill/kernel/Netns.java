package io.jnet.drill.kernel;

/**
 * Where calls that create namespaced objects run: {@code socket(2)} (a socket belongs to the network namespace of the
 * thread that creates it), opening {@code /dev/net/tun} and writing {@code /proc/sys/net}. {@link NetnsThread} runs
 * them on a thread that has entered the target's namespace; {@link #CALLER} on the calling thread, in whatever
 * namespace it is in (for tests that need no namespace of their own).
 */
interface Netns {

    /** A task that may throw {@code E}. */
    @FunctionalInterface
    interface Task<T, E extends Exception> {
        T run() throws E;
    }

    /**
     * Runs {@code task} in the namespace and returns its result, rethrowing what it throws.
     *
     * @throws IllegalStateException when the namespace's thread has stopped
     */
    <T, E extends Exception> T call(Task<T, E> task) throws E;

    /** Runs tasks on the caller's thread. */
    Netns CALLER = new Netns() {
        @Override
        public <T, E extends Exception> T call(Task<T, E> task) throws E {
            return task.run();
        }
    };
}
