package io.jnet.socket;

/** Opens sockets; a jnet namespace is one (so {@code TcpSocket.open(ns)} reads like socket(2)). */
public interface SocketProvider {
    TcpSocket openTcpSocket();

    TcpServerSocket openTcpServerSocket();

    UdpSocket openUdpSocket();
}
