package io.jnet.drill.play;

/** Which way a script's packet goes: {@code <} the runner injects it, {@code >} the stack must send it. */
public enum Direction { INBOUND, OUTBOUND }
