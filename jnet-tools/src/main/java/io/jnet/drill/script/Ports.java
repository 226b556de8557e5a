package io.jnet.drill.script;

/**
 * Explicit ports on a TCP or UDP packet line, {@code 8080>80}: without them packetdrill uses the script's socket's
 * ports (the remote side's for an inbound packet's source).
 *
 * @param pos where the source port is written
 * @param source the source port, 0..65535
 * @param destination the destination port, 0..65535
 */
public record Ports(SourcePos pos, int source, int destination) {

    /** {@code source>destination}. */
    public String render() {
        return source + ">" + destination;
    }

    @Override
    public String toString() {
        return render();
    }
}
