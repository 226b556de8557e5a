package io.jnet.socket;

/** Opens sockets; a jnet namespace is one (so {@code TcpSocket.open(ns)} reads like socket(2)). */
public interface SocketProvider {
    TcpSocket openTcpSocket();

    TcpServerSocket openTcpServerSocket();

    UdpSocket openUdpSocket();

    /** socket(AF_UNIX, SOCK_STREAM, 0): an unconnected local stream socket. */
    LocalSocket openLocalSocket();

    /** socket(AF_UNIX, SOCK_STREAM, 0) to listen with. */
    LocalServerSocket openLocalServerSocket();

    /** socketpair(AF_UNIX, SOCK_STREAM, 0): two local stream sockets connected to each other. */
    LocalSocket.Pair openLocalSocketPair();

    /** socket(AF_RDS, SOCK_SEQPACKET, 0): an unbound reliable datagram socket. */
    RdsSocket openRdsSocket();
}
