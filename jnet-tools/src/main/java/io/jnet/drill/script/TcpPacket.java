package io.jnet.drill.script;

import java.util.List;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.OptionalLong;
import java.util.stream.Collectors;

/**
 * A TCP packet line: {@code < S 0:0(0) win 32792 <mss 1000,sackOK,nop,nop,nop,wscale 7>},
 * {@code > P. 1:1001(1000) ack 1}.
 *
 * @param pos where the direction is written
 * @param direction inbound or outbound
 * @param encapsulation outer IPv4 headers, usually none
 * @param ip the IP header's ECN/TOS/TTL, if written
 * @param ports explicit ports ({@code 8080>80}), if written
 * @param flags the flags as written: letters {@code F S R P U E W A}
 *     (FIN, SYN, RST, PSH, URG, ECE, CWR, AE) and {@code .} for ACK, e.g. {@code S.}, {@code P.}, {@code .};
 *     empty for a segment with no flags (written {@code -})
 * @param seqStart the first sequence number, 0..2^32-1, as written (relative, see {@link Packet})
 * @param seqEnd {@code seqStart + payloadLength}, as written
 * @param payloadLength payload bytes, 0..65535
 * @param ack the acknowledgment number ({@code ack N}), 0..2^32-1, if written
 * @param window the window field ({@code win N}), 0..65535 as on the wire (unscaled), if written; packetdrill
 *     does not check an outbound packet's window when absent
 * @param urgentPointer the urgent pointer ({@code urg N}), 0..65535, if written
 * @param options the TCP options in order ({@code <...>}); empty when none are written, which means the packet
 *     has none, unless {@code anyOptions}
 * @param anyOptions whether the options are written {@code <...>}: any options, not checked (outbound only)
 */
public record TcpPacket(SourcePos pos, Direction direction, List<Ipv4Encapsulation> encapsulation,
                        Optional<IpInfo> ip, Optional<Ports> ports, String flags, long seqStart, long seqEnd,
                        int payloadLength, OptionalLong ack, OptionalInt window, OptionalInt urgentPointer,
                        List<TcpOption> options, boolean anyOptions) implements Packet {

    public TcpPacket {
        encapsulation = List.copyOf(encapsulation);
        options = List.copyOf(options);
    }

    /** Whether the flags include {@code flag} ({@code '.'} for ACK). */
    public boolean hasFlag(char flag) {
        return flags.indexOf(flag) >= 0;
    }

    @Override
    public String render() {
        StringBuilder b = new StringBuilder(renderPrefix());
        ports.ifPresent(p -> b.append(p.render()).append(' '));
        b.append(flags.isEmpty() ? "-" : flags).append(' ')
            .append(seqStart).append(':').append(seqEnd).append('(').append(payloadLength).append(')');
        ack.ifPresent(a -> b.append(" ack ").append(a));
        window.ifPresent(w -> b.append(" win ").append(w));
        urgentPointer.ifPresent(u -> b.append(" urg ").append(u));
        if (anyOptions) {
            b.append(" <...>");
        } else if (!options.isEmpty()) {
            b.append(" <").append(options.stream().map(TcpOption::render).collect(Collectors.joining(","))).append('>');
        }
        return b.toString();
    }

    @Override
    public String toString() {
        return render();
    }
}
