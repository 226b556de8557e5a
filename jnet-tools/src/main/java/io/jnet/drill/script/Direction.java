package io.jnet.drill.script;

/** A packet's direction as the stack under test sees it. */
public enum Direction {
    /** {@code <}: the script injects it into the stack. */
    INBOUND('<'),
    /** {@code >}: the script expects the stack to send it. */
    OUTBOUND('>');

    private final char symbol;

    Direction(char symbol) {
        this.symbol = symbol;
    }

    /** {@code <} or {@code >}. */
    public char symbol() {
        return symbol;
    }
}
