/**
 * A netperf-compatible benchmark harness that measures jnet against the host kernel ({@code jnet perf}), over
 * TCP and UDP.
 *
 * <h2>Tests</h2>
 * The tests, their options and units follow netperf's:
 * <ul>
 *   <li><b>TCP_STREAM</b>: the client writes {@code -m} bytes per call for {@code -l} seconds, the server
 *       reads {@code -M} bytes per call. Throughput in 10^6 bits/s of payload received, over the time from
 *       the start until the server has read everything.</li>
 *   <li><b>TCP_MAERTS</b>: the same with the direction reversed (the server sends).</li>
 *   <li><b>TCP_RR</b>: one connection; a transaction writes a request of {@code -r REQ} bytes and reads the
 *       whole response of {@code RESP} bytes (default {@code -r 1,1}). Transactions per second, and the
 *       per-transaction round trip as latency (min, p10, p50, mean, p99, max in microseconds, from an HdrHistogram).</li>
 *   <li><b>TCP_CRR</b>: a transaction is connect, request, response, close. Transactions per second and
 *       latency as for TCP_RR.</li>
 *   <li><b>TCP_SENDFILE</b>: TCP_STREAM with the client calling sendfile(2) for each {@code -m} bytes of a
 *       temporary file instead of send(2): netperf's send ring, SO_SNDBUF / {@code -m} + 1 (at least 2)
 *       slots filled with the fill pattern and sent in turn. jnet sends with
 *       {@link io.jnet.socket.TcpSocket#transferFrom}, which copies once from a kept read-only mapping of the
 *       file into the send queue; the kernel with {@link java.nio.channels.FileChannel#transferTo}, which is
 *       sendfile(2). Throughput in 10^6 bits/s received.</li>
 *   <li><b>UDP_STREAM</b>: the client sends datagrams of {@code -m} bytes (default 1472, the payload of one
 *       1500-byte Ethernet frame; at most 65507) as fast as the stack takes them for {@code -l} seconds; UDP
 *       has no flow control, so some may be dropped. As netperf, it reports the send line (messages sent,
 *       send errors, the send rate) and the receive line (messages received, the receive rate), both in
 *       10^6 bits/s, and the loss; the receive rate is the figure compared.</li>
 *   <li><b>UDP_RR</b>: TCP_RR with one datagram each way (client connected, server answering with sendto).
 *       Transactions per second and latency as for TCP_RR. UDP does not retransmit: a lost datagram would
 *       stall the run (netperf's UDP_RR waits for its timer), so after 2 s without a response the run ends
 *       with an error naming the transaction.</li>
 * </ul>
 * The default suite ({@link io.jnet.perf.PerfPlan#DEFAULT_SUITE}) runs every test but UDP_RR, which keeps it
 * under a minute.
 * {@code -s}/{@code -S} set SO_SNDBUF/SO_RCVBUF on the client/server before connect/listen (or bind, for
 * UDP), {@code -D} sets TCP_NODELAY on both. Sizes take netperf's suffixes (K = 1024, k = 1000, ...). Each
 * run checks that the receiver got exactly the bytes sent (TCP stream tests), that it got no more datagrams
 * than were sent, each of {@code -m} bytes (UDP_STREAM), or that the server answered as many requests as
 * the client completed (RR/CRR/UDP_RR); a mismatch fails the test.
 *
 * <h2>Comparison</h2>
 * Every test runs on the paths of a {@link io.jnet.perf.PathRegistry}, by id: {@code jnet:loopback},
 * {@code jnet:friends}, {@code jnet:veth} and {@code jnet:routed} ({@link io.jnet.perf.JnetPaths}: one namespace's
 * loopback, the same with {@code net.ipv4.tcp_friends=1}, two namespaces joined by a veth pair, or client,
 * router with {@code net.ipv4.ip_forward=1} and server namespaces joined by two), {@code kernel:tcp} and
 * {@code kernel:unix} ({@link io.jnet.perf.KernelPaths}: blocking JDK NIO over 127.0.0.1, or AF_UNIX stream
 * sockets in a temporary directory, which run the TCP tests only), or by the aliases {@code base},
 * {@code friends} and {@code unix} ({@code jnet:unix}, jnet's local stream sockets, where built). A
 * {@link io.jnet.perf.ComparisonRunner} warms each path up ({@link io.jnet.perf.Warmup}: short runs until
 * the rate stops rising or the budget is spent, the whole budget on a path's first test and a quarter on
 * later ones), then runs measured pairs whose order rotates (A B C, B C A, C A B, ...; {@code -i max,min},
 * clipped to 3..30) while a Student-t confidence interval ({@code -I level,width}, default 99% and 5% of the
 * mean) is wider than asked. The two-stack mode ({@code --path}, {@code --stack}) runs a jnet path against
 * {@code kernel:tcp}; reports give each stack's median, the median and min..max of the per-pair ratios
 * jnet/kernel, and netperf's warning when the interval was not met ({@code ci_met} in CSV and JSON).
 * {@code --compare} runs any paths at a list of sizes ({@link io.jnet.perf.Sizes}) and prints
 * {@link io.jnet.perf.SizeTable}: a row per size, a column per path, and the first path's figure over
 * each other's as the median of per-pair ratios; naming {@code friends} with {@code base} and/or
 * {@code unix} gives the TCP friends patch's own table ({@link io.jnet.perf.FriendsTable}: BASE, UNIX,
 * FRIENDS, FRIENDS/BASE, FRIENDS/UNIX, and the kernel's TCP and AF_UNIX for reference). Client and server are two threads of one JVM
 * ({@link io.jnet.perf.PeerRun}). Each path runs in a JVM of its own ({@link io.jnet.perf.ChildJvmLane}: a
 * {@link io.jnet.perf.LaneWorker} started once per path with this JVM's java, class path and options), as netperf
 * runs each test in a process of its own, so that the JIT compiles each path's code for that path alone;
 * {@code --same-jvm} runs them all in one ({@link io.jnet.perf.InProcessLane}). A {@link io.jnet.perf.ProgressMeter}
 * shows every run on stderr.
 *
 * <h2>AF_UNIX</h2>
 * {@code jnet:unix} ({@link io.jnet.perf.JnetUnixPath}) runs the TCP byte-stream tests over jnet's local stream
 * sockets ({@link io.jnet.socket.LocalSocket}) as {@code kernel:unix} runs them over the kernel's AF_UNIX: TCP_STREAM,
 * TCP_MAERTS, TCP_SENDFILE ({@link io.jnet.socket.LocalSocket#transferFrom}), TCP_RR and TCP_CRR, no UDP test and
 * no {@code -D}. netperf's own names for its AF_UNIX tests, {@code -t STREAM_STREAM} and {@code -t STREAM_RR}
 * ({@link io.jnet.perf.TestKind#unixAlias}), run TCP_STREAM and TCP_RR on {@code jnet:unix} against
 * {@code kernel:unix} (the two-stack report, path {@code unix}); {@code --stack} picks one of them, and
 * {@code --compare} takes only these two paths.
 *
 * <h2>Structure</h2>
 * {@link io.jnet.perf.PerfSuite} runs a {@link io.jnet.perf.PerfPlan} (tests at sizes, path ids) with one
 * {@link io.jnet.perf.ComparisonRunner}, which reaches each path through a {@link io.jnet.perf.LaneRunner} opened by a
 * {@link io.jnet.perf.LaneOpener}; the tests ({@link io.jnet.perf.PerfTest}) see only
 * {@link io.jnet.perf.PerfPath}, {@link io.jnet.perf.PerfListener}, {@link io.jnet.perf.PerfConnection}
 * and {@link io.jnet.perf.PerfDatagramSocket}, so any stack, or a fake in tests, can be measured. {@link io.jnet.perf.TextReport},
 * {@link io.jnet.perf.JsonReport} and {@link io.jnet.perf.CsvReport} print the results ({@link io.jnet.perf.SizeTable},
 * CSV and JSON those of {@code --compare}). A new path (another topology, another socket family) is one
 * more {@link io.jnet.perf.PathRegistry#register} call and becomes one more column.
 * {@link io.jnet.perf.BusyCores} keeps cores busy with spinning processes during a run ({@code --busy-cores}),
 * and {@link io.jnet.perf.plot.SizePlot} draws figures against message size ({@code --plot}).
 */
package io.jnet.perf;
