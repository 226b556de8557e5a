package io.jnet.drill.script;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.OptionalInt;

/**
 * IP header fields a packet line sets or checks, in brackets after the direction: {@code [ect0]}, {@code [ce]},
 * {@code [tos 0x2]}, {@code [ttl 64]}, {@code [ect0,flowlabel 0x1234]} (packetdrill also takes parentheses).
 *
 * @param pos where the opening bracket is
 * @param ecn the ECN mark, if written
 * @param tos the whole TOS byte (0..255), if written as {@code tos 0x..}
 * @param flowLabel an IPv6 flow label (0..0xfffff), if written
 * @param ttl the TTL (hop limit), if written
 */
public record IpInfo(SourcePos pos, Optional<Ecn> ecn, OptionalInt tos, OptionalInt flowLabel, OptionalInt ttl) {

    /** {@code [ect0]}, {@code [tos 0x2,flowlabel 0x12]} ... */
    public String render() {
        List<String> parts = new ArrayList<>();
        ecn.ifPresent(e -> parts.add(e.keyword()));
        tos.ifPresent(t -> parts.add("tos 0x" + Integer.toHexString(t)));
        flowLabel.ifPresent(f -> parts.add("flowlabel 0x" + Integer.toHexString(f)));
        ttl.ifPresent(t -> parts.add("ttl " + t));
        return "[" + String.join(",", parts) + "]";
    }

    @Override
    public String toString() {
        return render();
    }
}
