package io.jnet.topology;

/**
 * A statement of a {@link NetworkConfig} that cannot be read or carried out. The message names the source (a
 * file, when read from one), the line and the statement, then the problem:
 * {@code jnet.conf: line 7: addr add 10.0.0.1/24 dev veth9: no such device: veth9}.
 */
public final class NetworkConfigException extends IllegalArgumentException {
    private final String source;
    private final int line;
    private final String problem;

    /**
     * @param source the file name, or null for a string
     * @param line the line number (1-based; the statement number for {@code ;}-separated text), 0 when unknown
     * @param statement the statement as written, or null
     * @param problem what is wrong
     * @param cause the underlying exception, or null
     */
    public NetworkConfigException(String source, int line, String statement, String problem, Throwable cause) {
        super(format(source, line, statement, problem), cause);
        this.source = source;
        this.line = line;
        this.problem = problem;
    }

    static String format(String source, int line, String statement, String problem) {
        StringBuilder b = new StringBuilder();
        if (source != null) b.append(source).append(": ");
        if (line > 0) b.append("line ").append(line).append(": ");
        if (statement != null) b.append(statement).append(": ");
        return b.append(problem).toString();
    }

    /** The file the statement came from, or null. */
    public String source() { return source; }

    /** The statement's line (1-based), 0 when unknown. */
    public int line() { return line; }

    /** The problem alone, without source, line and statement. */
    public String problem() { return problem; }
}
