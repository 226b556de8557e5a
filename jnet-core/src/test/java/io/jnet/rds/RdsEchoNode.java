package io.jnet.rds;

import io.jnet.link.vxlan.VxlanDevice;
import io.jnet.socket.Errno;
import io.jnet.socket.ErrnoException;
import io.jnet.socket.RdsSocket;
import io.jnet.stack.NetNamespace;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.List;

/**
 * An RDS node for a child JVM ({@link RdsPeerRestartTest}): one namespace on a VXLAN device over a host UDP
 * socket on 127.0.0.1, RDS sockets that return every message to its sender unchanged. Prints {@code READY}
 * once the sockets are bound; on the stdin line {@code conns} prints {@code CONNS} and the namespace's RDS TCP
 * connections ({@code local -> remote}, separated by {@code ;}); exits at the end of stdin.
 *
 * <p>Given a hello address, once up it sends one hello message (its process id, as text) from its first socket to the hello address, as a
 * cluster node that rejoins makes itself known: RDS has no keepalive, so a peer whose connection to the dead
 * incarnation is idle (all acknowledged, its senders waiting on the dead node's congestion map) learns of the restart
 * only when the new incarnation sends.
 *
 * <p>Arguments: local UDP port, the peer's UDP port, MAC address (hex), inner address, first RDS port, number of
 * sockets, optionally the hello address (address:port).
 */
public final class RdsEchoNode {
    private RdsEchoNode() { }

    public static void main(String[] args) throws Exception {
        InetAddress lo = InetAddress.getLoopbackAddress();
        int localUdp = Integer.parseInt(args[0]);
        int remoteUdp = Integer.parseInt(args[1]);
        long mac = Long.parseLong(args[2], 16);
        String ip = args[3];
        int firstPort = Integer.parseInt(args[4]);
        int n = Integer.parseInt(args[5]);
        NetNamespace ns = NetNamespace.create("echo");
        VxlanDevice v = VxlanDevice.builder("vx0").vni(42).macAddress(mac).learning(false)
                .localAddress(new InetSocketAddress(lo, localUdp)).remote(new InetSocketAddress(lo, remoteUdp)).open();
        ns.attach(v);
        ns.addAddress("vx0", ip + "/24");
        List<RdsSocket> sockets = RdsFaultNet.sockets(ns, ip, firstPort, n, 1 << 20);
        for (RdsSocket s : sockets) {
            Thread.ofPlatform().daemon().name("echo " + s.localAddress()).start(() -> echo(s));
        }
        if (args.length > 6) {
            String[] hello = args[6].split(":");
            byte[] pid = Long.toString(ProcessHandle.current().pid()).getBytes(StandardCharsets.US_ASCII);
            sockets.getFirst().send(pid, 0, pid.length, new InetSocketAddress(hello[0], Integer.parseInt(hello[1])));
        }
        System.out.println("READY");
        System.out.flush();
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        for (String line; (line = in.readLine()) != null; ) {
            if (line.equals("conns")) {
                System.out.println("CONNS " + String.join(";", RdsFaultNet.rdsConnections(ns)));
                System.out.flush();
            }
        }
        ns.close();
        System.exit(0);
    }

    private static void echo(RdsSocket s) {
        byte[] b = new byte[RdsSocket.MAX_MESSAGE_SIZE];
        try {
            while (true) {
                RdsSocket.Received r = s.receive(b, 0, b.length);
                if (r == null || r.isCongestionUpdate()) continue;
                while (true) {
                    try {
                        s.send(b, 0, r.length(), r.sender());
                        break;
                    } catch (ErrnoException e) {
                        if (e.errno() != Errno.EAGAIN && e.errno() != Errno.ETIMEDOUT && e.errno() != Errno.ENOBUFS) throw e;
                        Thread.sleep(1);
                    }
                }
            }
        } catch (Exception e) {
            System.out.println("ECHO FAILED " + e);
            e.printStackTrace(System.out);
            System.out.flush();
        }
    }
}
