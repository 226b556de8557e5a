package io.jnet.drill.play;

/** A construct the player cannot play (a script using it is reported unsupported, never passed). */
public final class Unsupported extends Exception {
    private final int line;

    public Unsupported(int line, String what) {
        super(what, null, false, false);
        this.line = line;
    }

    public int line() { return line; }
}
