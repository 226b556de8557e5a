package io.jnet.drill.script;

import java.util.Optional;

/**
 * The errno a failing system call must set, after its {@code -1}: {@code EAGAIN (Resource temporarily unavailable)}.
 *
 * @param pos where the name is written
 * @param name the symbolic name, e.g. {@code EINPROGRESS} (the player maps it to Linux's number)
 * @param text the strerror text in parentheses, as written (words joined by single spaces), if written; packetdrill
 *     does not check it
 */
public record Errno(SourcePos pos, String name, Optional<String> text) {

    /** {@code EAGAIN (Resource temporarily unavailable)}. */
    public String render() {
        return name + text.map(t -> " (" + t + ")").orElse("");
    }

    @Override
    public String toString() {
        return render();
    }
}
