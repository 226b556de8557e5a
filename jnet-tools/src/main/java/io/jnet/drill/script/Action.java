package io.jnet.drill.script;

/** What an {@link Event} does: a packet, a system call, a shell command or a block of code. */
public sealed interface Action permits Packet, Syscall, Command, Code {

    /** Where the action starts (after the event's time). */
    SourcePos pos();

    /** The action in packetdrill's syntax, e.g. {@code > P. 1:1001(1000) ack 1}. */
    String render();
}
