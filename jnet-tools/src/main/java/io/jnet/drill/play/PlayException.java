package io.jnet.drill.play;

/** A script line the player cannot play as written: the script's fault, reported with its line. */
public final class PlayException extends Exception {
    private final int line;

    public PlayException(int line, String message) {
        super(message, null, false, false);
        this.line = line;
    }

    /** The script line (1-based). */
    public int line() { return line; }
}
