package io.jnet.drill.play;

import io.jnet.drill.script.Direction;
import io.jnet.drill.script.Direction;
import io.jnet.drill.target.Target;
import io.jnet.wire.Tcp;
import java.util.ArrayList;
import java.util.List;

/** Test helper: the runner's side of one flow, injecting segments and describing what the stack sent. */
public final class Wire {
    private final Target target;
    private final Flow flow;

    public Wire(Target target, long remoteIsn) {
        this.target = target;
        this.flow = new Flow(remoteIsn);
    }

    /** Sets the ports, as a bind and the runner's choice would. */
    public void ports(int local, int remote) {
        flow.localPort = local;
        flow.remotePort = remote;
    }

    /** Injects a segment: flags in packetdrill letters, relative seq/ack, an MSS option when {@code mss >= 0}. */
    public void inject(String flags, long seq, int len, Long ack, int win, int mss) throws Exception {
        List<TcpOption> options = new ArrayList<>();
        if (mss >= 0) options.add(new TcpOption.Mss(mss));
        SegmentSpec s = new SegmentSpec(Direction.INBOUND, flags(flags), seq, len, ack, win, null, options, -1);
        target.inject(SegmentBuilder.build(s, flow, target.localAddress(), target.remoteAddress(), 0));
    }

    /** The packet as the player prints it. */
    public String describe(byte[] packet) {
        SegmentMatcher.Actual a = SegmentMatcher.decode(packet, flow, target.localAddress(), target.remoteAddress());
        return a == null ? "not TCP from the stack" : a.text();
    }

    static int flags(String s) {
        int f = 0;
        for (char c : s.toCharArray()) {
            f |= switch (c) {
                case 'S' -> Tcp.SYN;
                case 'F' -> Tcp.FIN;
                case 'R' -> Tcp.RST;
                case 'P' -> Tcp.PSH;
                case '.' -> Tcp.ACK;
                default -> throw new IllegalArgumentException("flag " + c);
            };
        }
        return f;
    }
}
