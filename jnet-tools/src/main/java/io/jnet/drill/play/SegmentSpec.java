package io.jnet.drill.play;

import io.jnet.drill.script.Direction;
import java.util.List;

/**
 * A TCP segment as a script line describes it, with sequence numbers relative to the sender's initial one (as
 * tcpdump prints them and packetdrill writes them).
 *
 * @param direction inbound (to inject) or outbound (to expect)
 * @param flags TCP flag bits ({@link io.jnet.wire.Tcp#SYN} ...); the script's {@code .} is ACK
 * @param seq the relative sequence number of the first byte (or of the SYN/FIN)
 * @param length payload bytes
 * @param ack the relative acknowledgment number, or null when the line has none
 * @param window the raw window field, or null when the line gives none (then not checked when expected;
 *     injected with 65535 as packetdrill's default... see {@link SegmentBuilder})
 * @param urgentPointer the urgent pointer, or null
 * @param options the options in order, or null for packetdrill's {@code <...>} wildcard (expected only)
 * @param ecn the IP ECN field: 0 not-ECT, 1 ECT(1), 2 ECT(0), 3 CE; -1 when the line does not say
 */
public record SegmentSpec(Direction direction, int flags, long seq, int length, Long ack, Integer window,
                          Integer urgentPointer, List<TcpOption> options, int ecn) {}
