package io.jnet.tcp;

/** Hashing of a connection's 4-tuple (local/remote address and port). */
final class ConnKey {
    private ConnKey() {}

    static int hash(int laddr, int lport, int raddr, int rport) {
        int h = laddr * 0x9E3779B1 ^ raddr * 0x85EBCA77 ^ (lport << 16 | rport) * 0xC2B2AE3D;
        return h ^ (h >>> 15);
    }
}
