package io.jnet.drill.script;

/**
 * A block of code, {@code %{ ... }%} (packetdrill runs it as Python after the script, with the sockets' tcp_info).
 *
 * @param pos where <code>%&#123;</code> is
 * @param text the code between the delimiters, spaces and tabs at both ends removed (as packetdrill); it may span
 *     lines
 */
public record Code(SourcePos pos, String text) implements Action {

    @Override
    public String render() {
        return "%{ " + text + " }%";
    }

    @Override
    public String toString() {
        return render();
    }
}
