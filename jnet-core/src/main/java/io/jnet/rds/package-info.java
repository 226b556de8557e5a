/**
 * Reliable Datagram Sockets over TCP (Linux net/rds with its TCP transport), one TCP connection per pair of
 * addresses, shared by every RDS socket of the namespace.
 *
 * <ul>
 * <li>{@link io.jnet.rds.RdsFamily} installs {@link io.jnet.rds.RdsProtocol} in every namespace: the bind table
 *     (bind.c), the connections (connection.c), the congestion maps (cong.c, {@code RdsCongMap}), the work queue
 *     (threads.c, one daemon thread per namespace), the TCP listener on port 16385 (tcp_listen.c, opened with
 *     the first RDS socket) and the counters ({@link io.jnet.rds.RdsStatistics}, Linux's names).</li>
 * <li>{@code RdsSocketImpl} is the {@link io.jnet.socket.RdsSocket} (af_rds.c, send.c, recv.c): send-buffer
 *     accounting freed on TCP's acknowledgement, receive queue whose size congests the port, rds_poll readiness,
 *     RDS_CONG_MONITOR.</li>
 * <li>{@link io.jnet.rds.RdsConnection} is rds_connection with one path: the {@link io.jnet.rds.RdsConnState}
 *     machine, the send and retransmit queues, sequence numbers that survive reconnects, a single transmitting
 *     thread at a time (the sender itself when it can, up to 64 messages, as rds_send_xmit from sendmsg), shutdown and the
 *     randomised reconnect of the outgoing side.</li>
 * <li>Transports: {@code RdsLoopTransport} (rds_loop) between a namespace's own addresses; {@code RdsTcpTransport},
 *     {@code RdsTcpConnection} and {@code RdsTcpListener} (tcp.c, tcp_connect.c, tcp_listen.c, tcp_send.c,
 *     tcp_recv.c): TCP_NODELAY, buffers from net.rds.tcp.rds_tcp_sndbuf / rds_tcp_rcvbuf, TCP_CORK around each
 *     transmit pass, header and payload with MSG_MORE | MSG_SENDPAGE_NOTLAST (net.rds.tcp.jnet_msg_more), non-blocking writes resumed on write space, messages freed as TCP
 *     acknowledges them (written bytes minus SIOCOUTQ), reads on the worker straight into each message's own
 *     array, the duel of crossing connects settled as Linux 4.4's rds_tcp_accept_one.</li>
 * <li>Framing: {@link io.jnet.rds.RdsStreamParser} reads messages back as net/rds/tcp_recv.c does,
 *     {@link io.jnet.rds.RdsStreamWriter} lays them out as net/rds/tcp_send.c does, and
 *     {@link io.jnet.rds.RdsMessage} holds one. The header itself is {@link io.jnet.wire.RdsHeader}.</li>
 * </ul>
 *
 * <p>TCP readiness callbacks only schedule work on the namespace's RDS worker; they never read, write or block.
 * Bad input from a peer is counted (e.g. {@code jnet_s_recv_drop_bad_header}, then the TCP connection is reset)
 * and never escapes as an exception; exceptions caught in work items are counted in
 * {@link io.jnet.stack.NetNamespace#internalErrors()}.
 *
 * <p>Differences from Linux: one path per connection (a probe ping is answered with NPATHS 1, a probe pong is
 * consumed); at most 256 pongs wait per connection, further pings go unanswered; a header with h_len above 1 MiB resets the connection (Linux takes
 * any h_len); a socket's receive queue has a hard cap (SO_RCVBUF, at least 1 MiB) at which the TCP connections
 * filling it stop reading until the application catches up (jnet_s_recv_throttled), against a peer that
 * ignores the congestion map; a partial message holds an array that grows with what came (not h_len at once);
 * an accepted TCP connection on which the peer sent nothing within net.rds.tcp.jnet_accept_idle_timeout_ms is
 * reset (jnet_s_tcp_accept_idle_reaped); the higher address's outgoing connection counts as UP only once the peer has sent its first bytes,
 * and a socket that is shut down or replaced is read out under the same hold as its close, so that nothing TCP
 * acknowledged is thrown away; no RDMA, no IPv6.
 */
package io.jnet.rds;
