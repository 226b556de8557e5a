package io.jnet.drill.script;

/**
 * A script that is not valid packetdrill (as jnet drill reads it), or that uses a construct jnet drill does not
 * support (the message then starts with {@code not supported by jnet drill:}).
 *
 * <p>The message reads {@code file:line:column: reason}, e.g.
 * {@code script.pkt:12:17: expected ')' after syscall arguments, found '='}; line and column count from 1.
 */
public final class DrillParseException extends Exception {
    private final String file;
    private final int line;
    private final int column;
    private final String reason;

    /**
     * @param file the script's file name as given to the parser
     * @param pos where the problem is
     * @param reason what is wrong, for a user ({@code expected ')' ..., found '='})
     */
    public DrillParseException(String file, SourcePos pos, String reason) {
        super(file + ":" + pos.line() + ":" + pos.column() + ": " + reason, null, false, false);
        this.file = file;
        this.line = pos.line();
        this.column = pos.column();
        this.reason = reason;
    }

    /** The script's file name as given to the parser. */
    public String file() { return file; }

    /** The line of the problem, from 1. */
    public int line() { return line; }

    /** The column of the problem, from 1. */
    public int column() { return column; }

    /** The reason without the file and position. */
    public String reason() { return reason; }
}
