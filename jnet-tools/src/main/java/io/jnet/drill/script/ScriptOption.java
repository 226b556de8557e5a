package io.jnet.drill.script;

import java.util.Optional;

/**
 * An option line at the top of a script, as on packetdrill's command line: {@code --name=value} or {@code --name}.
 * A {@code --define=NAME=VALUE} also defines a symbol for the rest of the script (see {@link DrillParser}).
 *
 * @param pos where {@code --} is
 * @param name the name without {@code --}, e.g. {@code tolerance_usecs}
 * @param value the value as text (a quoted value without its quotes; {@code NAME=VALUE} for a define, a quoted
 *     VALUE keeping its quotes); empty for a bare {@code --name}
 */
public record ScriptOption(SourcePos pos, String name, Optional<String> value) {

    /** {@code --name=value}, the value in quotes unless it reads as one plain token (a define keeps its own quotes). */
    public String render() {
        if (value.isEmpty()) return "--" + name;
        String v = value.get();
        boolean plain = v.matches("[A-Za-z0-9_.:\\-]+") || name.equals("define") && v.matches("[A-Za-z0-9_]+=.+");
        return "--" + name + "=" + (plain ? v : "\"" + v + "\"");
    }

    @Override
    public String toString() {
        return render();
    }
}
