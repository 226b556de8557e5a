/**
 * Reliable Datagram Sockets over TCP (Linux net/rds), one TCP connection per node pair.
 *
 * <p>So far the framing of RDS messages on the TCP byte stream: {@link io.jnet.rds.RdsStreamParser} reads
 * them back as net/rds/tcp_recv.c does, {@link io.jnet.rds.RdsStreamWriter} lays them out as
 * net/rds/tcp_send.c does, and {@link io.jnet.rds.RdsMessage} holds one. The header itself is
 * {@link io.jnet.wire.RdsHeader}.
 */
package io.jnet.rds;
