package io.jnet.drill.target;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.jnet.drill.target.LinuxConstants.Group;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;

class LinuxConstantsTest {

    @Test
    void knowsTheValuesScriptsUse() {
        assertThat(LinuxConstants.value("AF_INET")).hasValue(2);
        assertThat(LinuxConstants.value("SOCK_STREAM")).hasValue(1);
        assertThat(LinuxConstants.value("SOCK_NONBLOCK")).hasValue(04000);
        assertThat(LinuxConstants.value("SOCK_CLOEXEC")).hasValue(02000000);
        assertThat(LinuxConstants.value("IPPROTO_TCP")).hasValue(6);
        assertThat(LinuxConstants.value("SOL_SOCKET")).hasValue(1);
        assertThat(LinuxConstants.value("SOL_TCP")).hasValue(6);
        assertThat(LinuxConstants.value("SO_REUSEADDR")).hasValue(2);
        assertThat(LinuxConstants.value("SO_ZEROCOPY")).hasValue(60);
        assertThat(LinuxConstants.value("TCP_INFO")).hasValue(11);
        assertThat(LinuxConstants.value("TCP_FASTOPEN_CONNECT")).hasValue(30);
        assertThat(LinuxConstants.value("TCP_TX_DELAY")).hasValue(37);
        assertThat(LinuxConstants.value("IP_PMTUDISC_PROBE")).hasValue(3);
        assertThat(LinuxConstants.value("MSG_ZEROCOPY")).hasValue(0x4000000);
        assertThat(LinuxConstants.value("EPOLLET")).hasValue(0x80000000L);
        assertThat(LinuxConstants.value("EPOLLEXCLUSIVE")).hasValue(1L << 28);
        assertThat(LinuxConstants.value("O_NONBLOCK")).hasValue(04000);
        assertThat(LinuxConstants.value("SIOCOUTQNSD")).hasValue(0x894B);
        assertThat(LinuxConstants.value("FIONREAD")).hasValue(0x541B);
        assertThat(LinuxConstants.value("TCP_ESTABLISHED")).hasValue(1);
        assertThat(LinuxConstants.value("TCP_CLOSING")).hasValue(11);
        assertThat(LinuxConstants.value("TCP_CA_Loss")).hasValue(4);
        assertThat(LinuxConstants.value("TCP_CA_LOSS")).hasValue(4);
        assertThat(LinuxConstants.value("TCPI_OPT_SYN_DATA")).hasValue(32);
    }

    @Test
    void errnoNamesResolveThroughLinuxErrno() {
        assertThat(LinuxConstants.value("EINPROGRESS")).hasValue(115);
        assertThat(LinuxConstants.value("EWOULDBLOCK")).hasValue(11);
        assertThat(LinuxConstants.value("NO_SUCH_THING")).isEmpty();
        assertThatThrownBy(() -> LinuxConstants.require("NO_SUCH_THING"))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("NO_SUCH_THING");
    }

    @Test
    void namesValuesBackWithinTheirGroup() {
        assertThat(LinuxConstants.name(Group.TCP_STATE, 7)).isEqualTo("TCP_CLOSE");
        assertThat(LinuxConstants.name(Group.TCP_OPTION, 1)).isEqualTo("TCP_NODELAY");
        assertThat(LinuxConstants.name(Group.TCP_STATE, 99)).isEqualTo("99");
        assertThat(LinuxConstants.optionName(6, 11)).isEqualTo("TCP_INFO");
        assertThat(LinuxConstants.optionName(1, 4)).isEqualTo("SO_ERROR");
        assertThat(LinuxConstants.optionName(0, 1)).isEqualTo("IP_TOS");
        assertThat(LinuxConstants.flags(Group.POLL_BIT, 0x5)).isEqualTo("POLLIN|POLLOUT");
        assertThat(LinuxConstants.flags(Group.EPOLL_BIT, 0x80000001L)).isEqualTo("EPOLLIN|EPOLLET");
        assertThat(LinuxConstants.flags(Group.POLL_BIT, 0x100001)).isEqualTo("POLLIN|0x100000");
        assertThat(LinuxConstants.flags(Group.MSG_FLAG, 0)).isEqualTo("0");
        assertThat(LinuxConstants.groupOf("SO_LINGER")).isEqualTo(Group.SOCKET_OPTION);
    }

    /** The installed kernel and glibc headers ({@code linux-libc-dev}, {@code libc6-dev}) agree with the table. */
    @Test
    void agreesWithTheInstalledHeaders() throws Exception {
        Path inc = Path.of("/usr/include");
        Assumptions.assumeTrue(Files.isRegularFile(inc.resolve("linux/tcp.h")),
                "/usr/include/linux/tcp.h is absent (Debian package linux-libc-dev): the values are not checked against headers");
        Path arch = inc.resolve("x86_64-linux-gnu");
        Assumptions.assumeTrue(Files.isDirectory(arch), "no x86_64 glibc headers in " + arch);
        CHeaders headers = new CHeaders(List.of(
                arch.resolve("bits/socket.h"), arch.resolve("bits/socket_type.h"), arch.resolve("bits/fcntl-linux.h"),
                arch.resolve("bits/fcntl.h"), arch.resolve("sys/epoll.h"), arch.resolve("bits/epoll.h"),
                arch.resolve("bits/poll.h"), inc.resolve("netinet/tcp.h"), inc.resolve("netinet/in.h"),
                inc.resolve("asm-generic/socket.h"), inc.resolve("asm-generic/sockios.h"), inc.resolve("linux/sockios.h"),
                inc.resolve("asm-generic/ioctls.h"), inc.resolve("asm-generic/poll.h"), inc.resolve("asm-generic/fcntl.h"),
                inc.resolve("linux/fcntl.h"), inc.resolve("linux/tcp.h"), inc.resolve("linux/in.h"),
                inc.resolve("linux/in6.h"), inc.resolve("linux/eventpoll.h"), inc.resolve("linux/net_tstamp.h"),
                inc.resolve("linux/errqueue.h"), inc.resolve("linux/socket.h")));
        // names whose header value differs on purpose: packetdrill's own spellings, and the old TCP_COOKIE_TRANSACTIONS
        Set<String> notInHeaders = Set.of("TCP_CA_OPEN", "TCP_CA_DISORDER", "TCP_CA_RECOVERY", "TCP_CA_LOSS");
        List<String> mismatches = new ArrayList<>();
        int checked = 0;
        for (Map.Entry<String, Long> e : LinuxConstants.all().entrySet()) {
            if (notInHeaders.contains(e.getKey())) continue;
            Set<Long> values = headers.values(e.getKey());
            if (values.isEmpty()) continue;
            checked++;
            long mine = e.getValue();
            if (!values.contains(mine) && !values.contains(mine & 0xFFFF_FFFFL)) {
                mismatches.add(e.getKey() + " = " + mine + " but the headers say " + values);
            }
        }
        assertThat(mismatches).isEmpty();
        assertThat(checked).as("constants found in the headers").isGreaterThan(250);
    }
}
