package io.jnet.topology;

import java.util.List;
import java.util.Objects;

/**
 * One namespace block of a {@link NetworkConfig}: its name and its statements in file order. The name-service
 * lines are plain data for a resolver: {@link #resolvConfLines()} in resolv.conf(5) form and {@link #hostsLines()} in
 * hosts(5) form; joined with {@code \n} they are the text {@code io.jnet.dns.ResolvConf.parse} and
 * {@code io.jnet.dns.HostsTable.addAll} read (this package does not feed them in). A namespace built by {@link NetworkConfig#apply()}
 * carries its block as an extension, so code that holds only the namespace finds them:
 * {@code ns.extension(NamespaceConfig.class).resolvConfLines()}.
 *
 * @param name the namespace's name ({@code NetNamespace.name()} of the namespace built from it)
 * @param statements the statements, in file order
 */
public record NamespaceConfig(String name, List<Statement> statements) {
    public NamespaceConfig {
        Objects.requireNonNull(name, "name");
        statements = List.copyOf(statements);
    }

    /** The statements of one kind, in file order, e.g. {@code statements(Statement.AddrAdd.class)}. */
    public <T extends Statement> List<T> statements(Class<T> kind) {
        return statements.stream().filter(kind::isInstance).map(kind::cast).toList();
    }

    /** The {@code link add} statements of this block (a veth's peer end is in the peer's namespace, not listed there). */
    public List<Statement.LinkAdd> links() { return statements(Statement.LinkAdd.class); }

    /**
     * The resolv.conf(5) lines ({@code nameserver}, {@code search}, {@code domain}, {@code options}) in file order,
     * as written (blanks collapsed): e.g. {@code ["nameserver 192.0.2.1", "search example.test"]}.
     */
    public List<String> resolvConfLines() {
        return statements(Statement.ResolvConfLine.class).stream().map(Statement.ResolvConfLine::line).toList();
    }

    /** The hosts(5) lines of the {@code host} statements in file order, e.g. {@code ["192.0.2.10 db.example.test db"]}. */
    public List<String> hostsLines() {
        return statements(Statement.Host.class).stream().map(Statement.Host::hostsLine).toList();
    }
}
