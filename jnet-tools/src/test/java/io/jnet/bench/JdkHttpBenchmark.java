package io.jnet.bench;

import com.sun.net.httpserver.HttpServer;
import io.jnet.nio.JnetNetwork;
import io.jnet.nio.JnetSelectorProvider;
import io.jnet.perf.BusyCores;
import io.jnet.stack.NetNamespace;
import io.jnet.topology.Topology;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.channels.spi.SelectorProvider;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The JDK's {@code HttpClient} sending small GETs to the JDK's {@code HttpServer}, both with their default
 * settings (HTTP/1.1, keep-alive), on jnet and on the kernel. Both are unchanged programs: the network is the
 * JVM-wide provider, so each run is a child JVM, jnet's with
 * {@code -Djava.nio.channels.spi.SelectorProvider=io.jnet.nio.JnetSelectorProvider} (server and client in two
 * namespaces joined by a veth pair, in the child's process: no system call on the data path), the kernel's without
 * (127.0.0.1, system calls). Eight virtual threads each send GETs one after the other for the run's time; the figure
 * is responses per second, with the process's CPU time (user + system, every thread) per response over the same window.
 * Runs alternate jnet, kernel, ...; the report gives each pair's ratios and their medians.
 *
 * <pre>{@code ./bench.sh --main io.jnet.bench.JdkHttpBenchmark [seconds] [pairs] [busy-cores]}</pre>
 */
public final class JdkHttpBenchmark {
    private JdkHttpBenchmark() {}

    static final int CLIENTS = Integer.getInteger("jnet.bench.clients", 8);

    /** Responses per second and the process's CPU time per response (user + system, all threads, in us). */
    record Result(double rate, double cpuUsPerResponse) {}

    /** One run in this JVM. */
    static Result run(double seconds) throws Exception {
        boolean onJnet = SelectorProvider.provider() instanceof JnetSelectorProvider;
        NetNamespace a = null, b = null;
        InetSocketAddress addr;
        if (onJnet) {
            a = NetNamespace.create("http-client");
            b = NetNamespace.create("http-server");
            Topology.link(a, b, "veth0", "10.9.4.1/24", "10.9.4.2/24");
            addr = new InetSocketAddress("10.9.4.2", 8080);
        } else {
            addr = new InetSocketAddress("127.0.0.1", 18080);
        }
        byte[] body = "hello".getBytes(StandardCharsets.UTF_8);
        Callable<HttpServer> startServer = () -> {
            HttpServer s = HttpServer.create(addr, 0);
            s.createContext("/", ex -> {
                ex.getRequestBody().readAllBytes();
                ex.sendResponseHeaders(200, body.length);
                try (OutputStream o = ex.getResponseBody()) { o.write(body); }
            });
            s.start();
            return s;
        };
        HttpServer server = onJnet ? JnetNetwork.of(b).call(startServer) : startServer.call();
        var os = (com.sun.management.OperatingSystemMXBean) java.lang.management.ManagementFactory.getOperatingSystemMXBean();
        Callable<Result> load = () -> {
            try (HttpClient client = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build()) {
                HttpRequest req = HttpRequest.newBuilder(URI.create("http://" + addr.getHostString() + ":" + addr.getPort() + "/x")).build();
                AtomicLong count = new AtomicLong();
                AtomicBoolean counting = new AtomicBoolean(), stop = new AtomicBoolean();
                List<Thread> threads = new ArrayList<>();
                for (int i = 0; i < CLIENTS; i++) {
                    threads.add(Thread.ofVirtual().start(() -> {
                        while (!stop.get()) {
                            try {
                                HttpResponse<byte[]> r = client.send(req, HttpResponse.BodyHandlers.ofByteArray());
                                if (r.statusCode() == 200 && counting.get()) count.incrementAndGet();
                            } catch (IOException | InterruptedException e) {
                                throw new IllegalStateException(e);
                            }
                        }
                    }));
                }
                Thread.sleep(1000); // warm-up
                counting.set(true);
                long t0 = System.nanoTime(), cpu0 = os.getProcessCpuTime();
                Thread.sleep((long) (seconds * 1000));
                long n = count.get(), t1 = System.nanoTime(), cpu1 = os.getProcessCpuTime();
                stop.set(true);
                for (Thread t : threads) t.join();
                return new Result(n * 1e9 / (t1 - t0), n == 0 ? Double.NaN : (cpu1 - cpu0) / 1e3 / n);
            }
        };
        try {
            return onJnet ? JnetNetwork.of(a).call(load) : load.call();
        } finally {
            server.stop(0);
            if (a != null) a.close();
            if (b != null) b.close();
        }
    }

    /** Runs one child JVM (jnet's provider installed or not) and returns its result. */
    static Result child(boolean jnet, double seconds) throws Exception {
        List<String> cmd = new ArrayList<>(List.of(System.getProperty("java.home") + "/bin/java", "--enable-native-access=ALL-UNNAMED"));
        if (jnet) cmd.add("-Djava.nio.channels.spi.SelectorProvider=" + JnetSelectorProvider.class.getName());
        cmd.addAll(List.of("-cp", System.getProperty("java.class.path"), JdkHttpBenchmark.class.getName(), "--child", Double.toString(seconds)));
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        if (!p.waitFor(300, TimeUnit.SECONDS) || p.exitValue() != 0) throw new IllegalStateException("child failed:\n" + out);
        for (String line : out.split("\n")) {
            if (line.startsWith("rate ")) {
                String[] f = line.split(" ");
                return new Result(Double.parseDouble(f[1]), Double.parseDouble(f[3]));
            }
        }
        throw new IllegalStateException("no rate in:\n" + out);
    }

    private static String summary(List<Double> values) {
        List<Double> s = values.stream().sorted().toList();
        double median = s.size() % 2 == 1 ? s.get(s.size() / 2) : (s.get(s.size() / 2 - 1) + s.get(s.size() / 2)) / 2;
        return String.format(Locale.ROOT, "%.2f (min %.2f, max %.2f)", median, s.getFirst(), s.getLast());
    }

    public static void main(String[] args) throws Exception {
        if (args.length > 0 && args[0].equals("--child")) {
            Result r = run(Double.parseDouble(args[1]));
            System.out.printf(Locale.ROOT, "rate %.1f cpu-us %.1f%n", r.rate(), r.cpuUsPerResponse());
            return;
        }
        double seconds = args.length > 0 ? Double.parseDouble(args[0]) : 3;
        int pairs = args.length > 1 ? Integer.parseInt(args[1]) : 5;
        int busy = args.length > 2 ? Integer.parseInt(args[2]) : 0;
        try (BusyCores cores = busy > 0 ? BusyCores.start(busy) : null) {
            System.out.println("HttpClient -> HttpServer small GETs, " + CLIENTS + " clients, jnet (two namespaces, veth) vs kernel "
                    + "(127.0.0.1), a child JVM per run of " + seconds + " s, " + (busy > 0 ? cores.description() : "no core kept busy"));
            List<Double> ratios = new ArrayList<>(), cpuRatios = new ArrayList<>();
            for (int i = 0; i < pairs; i++) {
                Result j = child(true, seconds), k = child(false, seconds);
                ratios.add(j.rate() / k.rate());
                cpuRatios.add(j.cpuUsPerResponse() / k.cpuUsPerResponse());
                System.out.printf(Locale.ROOT, "  pair %d: jnet %.0f, kernel %.0f responses/s, ratio %.2f; CPU per response jnet %.0f us, kernel %.0f us, ratio %.2f%n",
                        i + 1, j.rate(), k.rate(), j.rate() / k.rate(), j.cpuUsPerResponse(), k.cpuUsPerResponse(),
                        j.cpuUsPerResponse() / k.cpuUsPerResponse());
            }
            System.out.printf(Locale.ROOT, "GETs/s: median jnet/kernel %s over %d pairs%n", summary(ratios), pairs);
            System.out.printf(Locale.ROOT, "CPU per response (process, user + system): median jnet/kernel %s (below 1: jnet spends less)%n",
                    summary(cpuRatios));
        }
    }
}
