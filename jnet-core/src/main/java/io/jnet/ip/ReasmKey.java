package io.jnet.ip;

import io.jnet.wire.Ipv4;

/**
 * Identifies the datagram a fragment belongs to (RFC 791 section 3.2: source, destination, protocol and
 * identification; Linux {@code struct frag_v4_compare_key}). Addresses as big-endian ints.
 */
record ReasmKey(int source, int destination, int protocol, int identification) {

    /** The key of the IPv4 header at {@code off}. */
    static ReasmKey of(byte[] b, int off) {
        return new ReasmKey(Ipv4.source(b, off), Ipv4.destination(b, off), Ipv4.protocol(b, off),
                Ipv4.identification(b, off));
    }

    @Override
    public String toString() {
        return Ipv4.addressToString(source) + ">" + Ipv4.addressToString(destination) + " proto " + protocol
                + " id " + identification;
    }
}
