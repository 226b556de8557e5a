package io.jnet.drill.script;

/**
 * A place in a script's text: {@code line} and {@code column}, both counted from 1; a column counts characters
 * (a tab is one).
 */
public record SourcePos(int line, int column) {

    /** {@code line:column}. */
    @Override
    public String toString() {
        return line + ":" + column;
    }
}
