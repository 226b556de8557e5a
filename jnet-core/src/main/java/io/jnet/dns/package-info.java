/**
 * Name resolution for programs on jnet, a layer above {@link io.jnet.socket}: per namespace a hosts table
 * ({@link io.jnet.dns.HostsTable}, hosts(5)), a resolver configuration ({@link io.jnet.dns.ResolvConf},
 * resolv.conf(5)) and a stub resolver ({@link io.jnet.dns.DnsResolver}, glibc's res_search over jnet UDP and TCP
 * sockets), held together by {@link io.jnet.dns.NameService}. The DNS wire format is
 * {@link io.jnet.wire.Dns}/{@link io.jnet.wire.DnsMessage}; the JDK reaches all this through
 * {@link io.jnet.nio.JnetResolverProvider}.
 */
package io.jnet.dns;
