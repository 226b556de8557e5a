package io.jnet.drill.script;

import java.util.List;
import java.util.Optional;

/**
 * A parsed script: its options, an optional init command, its events in order and an optional cleanup command, as
 * packetdrill's {@code script} rule. Immutable.
 *
 * @param fileName the name given to the parser (for messages)
 * @param options the {@code --name=value} lines at the top, in order
 * @param initCommand a command without a time before the first event, run before it (packetdrill's init command)
 * @param events the events in order; at least one
 * @param cleanupCommand a command without a time after the last event, run at the end even when the script fails
 */
public record Script(String fileName, List<ScriptOption> options, Optional<Command> initCommand, List<Event> events,
                     Optional<Command> cleanupCommand) {

    public Script {
        options = List.copyOf(options);
        events = List.copyOf(events);
    }

    /** The value of the last option named {@code name} (empty when absent or written without a value). */
    public Optional<String> option(String name) {
        Optional<String> v = Optional.empty();
        for (ScriptOption o : options) {
            if (o.name().equals(name)) v = o.value();
        }
        return v;
    }

    /** The whole script in packetdrill's syntax, one line for each option, command and event. */
    public String render() {
        StringBuilder b = new StringBuilder();
        for (ScriptOption o : options) b.append(o.render()).append('\n');
        initCommand.ifPresent(c -> b.append(c.render()).append('\n'));
        for (Event e : events) b.append(e.render()).append('\n');
        cleanupCommand.ifPresent(c -> b.append(c.render()).append('\n'));
        return b.toString();
    }

    @Override
    public String toString() {
        return render();
    }
}
