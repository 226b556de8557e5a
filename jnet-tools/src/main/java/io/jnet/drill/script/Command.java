package io.jnet.drill.script;

/**
 * A shell command in backquotes, e.g. {@code `sysctl -q net.ipv4.tcp_sack=0`}: an event's action, or the script's
 * init command (before the first event, without a time) or cleanup command (after the last).
 *
 * @param pos where the opening backquote is
 * @param commandLine the text between the backquotes as written (it may span lines; backslash escapes kept)
 */
public record Command(SourcePos pos, String commandLine) implements Action {

    @Override
    public String render() {
        return "`" + commandLine + "`";
    }

    @Override
    public String toString() {
        return render();
    }
}
