package io.jnet.drill.target;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;

class TcpInfoLayoutTest {

    @Test
    void offsetsAreLinuxs() {
        assertThat(TcpInfoLayout.field("tcpi_state").offset()).isZero();
        assertThat(TcpInfoLayout.field("tcpi_rto").offset()).isEqualTo(8);
        assertThat(TcpInfoLayout.field("snd_mss").offset()).isEqualTo(16);
        assertThat(TcpInfoLayout.field("tcpi_rtt").offset()).isEqualTo(68);
        assertThat(TcpInfoLayout.field("tcpi_rcv_rtt").offset()).isEqualTo(92);
        assertThat(TcpInfoLayout.field("tcpi_total_retrans").offset()).isEqualTo(100);
        assertThat(TcpInfoLayout.field("tcpi_pacing_rate").offset()).isEqualTo(104);
        assertThat(TcpInfoLayout.field("tcpi_bytes_received").offset()).isEqualTo(128);
        assertThat(TcpInfoLayout.field("tcpi_min_rtt").offset()).isEqualTo(148);
        assertThat(TcpInfoLayout.field("tcpi_bytes_retrans").offset()).isEqualTo(208);
        assertThat(TcpInfoLayout.field("tcpi_snd_wnd").offset()).isEqualTo(228);
        assertThat(TcpInfoLayout.field("tcpi_rcv_wnd").offset()).isEqualTo(232);
        assertThat(TcpInfoLayout.field("tcpi_total_rto").offset()).isEqualTo(240);
        assertThat(TcpInfoLayout.field("tcpi_total_rto_time").end()).isEqualTo(248);
        assertThat(TcpInfoLayout.field("tcpi_received_ce").offset()).isEqualTo(248);
        assertThat(TcpInfoLayout.field("tcpi_options2").end()).isEqualTo(TcpInfoLayout.SIZE);
    }

    @Test
    void readsAndWritesLittleEndianFieldsAndBitFields() {
        byte[] info = TcpInfoLayout.newInfo();
        TcpInfoLayout.set(info, "tcpi_state", 1);
        TcpInfoLayout.set(info, "tcpi_rto", 201_000);
        TcpInfoLayout.set(info, "tcpi_snd_wscale", 7);
        TcpInfoLayout.set(info, "tcpi_rcv_wscale", 10);
        TcpInfoLayout.set(info, "tcpi_delivery_rate_app_limited", 1);
        TcpInfoLayout.set(info, "tcpi_fastopen_client_fail", 2);
        TcpInfoLayout.set(info, "tcpi_max_pacing_rate", -1);
        TcpInfoLayout.set(info, "tcpi_total_rto", 0xFFFF);
        TcpInfoLayout.set(info, "tcpi_accecn_fail_mode", 9);
        TcpInfoLayout.set(info, "tcpi_ecn_mode", 2);

        assertThat(info[0]).isEqualTo((byte) 1);
        assertThat(info[6]).isEqualTo((byte) 0xA7); // rcv_wscale in the high nibble, snd_wscale in the low one
        assertThat(info[7]).isEqualTo((byte) 0x05); // app_limited bit 0, fastopen_client_fail bits 1-2
        assertThat(info[8]).isEqualTo((byte) (201_000 & 0xFF));
        assertThat(info[276]).isEqualTo((byte) 0x92);
        assertThat(TcpInfoLayout.get(info, "tcpi_rto")).isEqualTo(201_000);
        assertThat(TcpInfoLayout.get(info, "snd_wscale")).isEqualTo(7);
        assertThat(TcpInfoLayout.get(info, "rcv_wscale")).isEqualTo(10);
        assertThat(TcpInfoLayout.get(info, "tcpi_delivery_rate_app_limited")).isEqualTo(1);
        assertThat(TcpInfoLayout.get(info, "tcpi_fastopen_client_fail")).isEqualTo(2);
        assertThat(TcpInfoLayout.get(info, "tcpi_max_pacing_rate")).isEqualTo(-1);
        assertThat(TcpInfoLayout.get(info, "tcpi_total_rto")).isEqualTo(0xFFFF);
        assertThat(TcpInfoLayout.get(info, "tcpi_accecn_fail_mode")).isEqualTo(9);
        assertThat(TcpInfoLayout.get(info, "tcpi_ecn_mode")).isEqualTo(2);
        assertThat(TcpInfoLayout.get(info, "tcpi_accecn_opt_seen")).isZero();
    }

    @Test
    void fieldsBeyondTheReturnedLengthAreAbsent() {
        byte[] old = new byte[232]; // what Linux 5.4 .. 6.1 return
        assertThat(TcpInfoLayout.isPresent("tcpi_snd_wnd", old.length)).isTrue();
        assertThat(TcpInfoLayout.isPresent("tcpi_rcv_wnd", old.length)).isFalse();
        assertThatThrownBy(() -> TcpInfoLayout.get(old, "tcpi_rcv_wnd"))
                .isInstanceOfSatisfying(TcpInfoLayout.FieldAbsentException.class, e -> {
                    assertThat(e.field()).isEqualTo("tcpi_rcv_wnd");
                    assertThat(e.length()).isEqualTo(232);
                })
                .hasMessageContaining("236 bytes").hasMessageContaining("only 232");
    }

    @Test
    void refusesUnknownFieldsAndValuesThatDoNotFit() {
        byte[] info = TcpInfoLayout.newInfo();
        assertThatThrownBy(() -> TcpInfoLayout.get(info, "tcpi_nonsense")).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> TcpInfoLayout.set(info, "tcpi_snd_wscale", 16)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> TcpInfoLayout.set(info, "tcpi_rto", -1)).isInstanceOf(IllegalArgumentException.class);
        assertThat(TcpInfoLayout.has("rto")).isTrue();
        assertThat(TcpInfoLayout.has("tcpi_nonsense")).isFalse();
    }

    /** The installed {@code linux/tcp.h} (possibly older: a prefix of the layout) lays out the same fields alike. */
    @Test
    void agreesWithTheInstalledHeader() throws Exception {
        Path h = Path.of("/usr/include/linux/tcp.h");
        Assumptions.assumeTrue(Files.isRegularFile(h),
                h + " is absent (Debian package linux-libc-dev): the layout is not checked against it");
        List<CHeaders.Member> members = new CHeaders(List.of(h)).struct("tcp_info");
        assertThat(members).hasSizeGreaterThan(50);
        for (CHeaders.Member m : members) {
            TcpInfoLayout.Field f = TcpInfoLayout.field(m.name());
            assertThat(new int[] {f.offset(), f.width(), f.bitOffset(), f.bits()})
                    .as(m.name()).containsExactly(m.offset(), m.width(), m.bitOffset(), m.bits());
        }
        List<String> names = TcpInfoLayout.fields().stream().map(TcpInfoLayout.Field::name).toList();
        assertThat(names.subList(0, members.size())).containsExactlyElementsOf(members.stream().map(CHeaders.Member::name).toList());
    }
}
