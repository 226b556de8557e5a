package io.jnet.drill.script;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;

class DrillTcpOptionTest {

    private static List<TcpOption> options(String list) {
        return Parse.tcp("0 > S 0:0(0) <" + list + ">").options();
    }

    private static String error(String list) {
        return Parse.error("0 > S 0:0(0) <" + list + ">").reason();
    }

    @Test
    void everyOption() {
        List<TcpOption> o = options("mss 1000,sackOK,TS val 100 ecr 0,nop,wscale 7,sack 1:1001 2001:3001,eol,"
            + "FO abcd1234,FO,FOEXP 00abaaabe8e954c2,FOEXP,md5 000102030405060708090a0b0c0d0e0f,wscale *,"
            + "ECN e1b 1 ceb 0 e0b 1,ECN");
        assertThat(o).hasSize(15);
        assertThat(o.get(0)).isEqualTo(new TcpOption.Mss(new SourcePos(1, 15), 1000));
        assertThat(o.get(1)).isInstanceOf(TcpOption.SackPermitted.class);
        assertThat(o.get(2)).isEqualTo(new TcpOption.Timestamp(o.get(2).pos(), 100, 0));
        assertThat(o.get(3)).isInstanceOf(TcpOption.Nop.class);
        assertThat(o.get(4)).isEqualTo(new TcpOption.WindowScale(o.get(4).pos(), 7));
        assertThat(((TcpOption.Sack) o.get(5)).blocks())
            .containsExactly(new TcpOption.SackBlock(1, 1001), new TcpOption.SackBlock(2001, 3001));
        assertThat(o.get(6)).isInstanceOf(TcpOption.Eol.class);
        assertThat(o.get(7)).isEqualTo(new TcpOption.FastOpen(o.get(7).pos(), "abcd1234"));
        assertThat(o.get(8)).isEqualTo(new TcpOption.FastOpen(o.get(8).pos(), ""));
        assertThat(o.get(9)).isEqualTo(new TcpOption.FastOpenExp(o.get(9).pos(), "00abaaabe8e954c2"));
        assertThat(o.get(10)).isEqualTo(new TcpOption.FastOpenExp(o.get(10).pos(), ""));
        assertThat(o.get(11)).isEqualTo(new TcpOption.Md5(o.get(11).pos(), "000102030405060708090a0b0c0d0e0f"));
        assertThat(o.get(12)).isInstanceOf(TcpOption.WindowScaleAny.class);
        assertThat(((TcpOption.AccEcn) o.get(13)).counters()).containsExactly(new TcpOption.AccEcnCounter("e1b", 1),
            new TcpOption.AccEcnCounter("ceb", 0), new TcpOption.AccEcnCounter("e0b", 1));
        assertThat(((TcpOption.AccEcn) o.get(14)).counters()).isEmpty();
    }

    @Test
    void optionsRenderBackAsWritten() {
        String list = "mss 1000,sackOK,TS val 100 ecr 0,nop,wscale 7,sack 1:1001 2001:3001,eol,FO abcd1234,FO,"
            + "FOEXP 00abaaabe8e954c2,md5 00ff,wscale *,ECN e1b 1 ceb 0 e0b 1";
        assertThat(Parse.tcp("0 > S 0:0(0) <" + list + ">").render()).isEqualTo("> S 0:0(0) <" + list + ">");
    }

    @Test
    void spacesAroundOptionsDoNotMatter() {
        assertThat(options("mss 1460, sackOK, TS val 100 ecr 0, nop,wscale 8")).hasSize(5);
        assertThat(options("FO 0123456789abcdef")).containsExactly(new TcpOption.FastOpen(new SourcePos(1, 15), "0123456789abcdef"));
        assertThat(options("FO 12345678")).containsExactly(new TcpOption.FastOpen(new SourcePos(1, 15), "12345678"));
    }

    @Test
    void valuesOutOfRangeAreRefused() {
        assertThat(error("mss 65536")).isEqualTo("mss 65536 out of range (0..65535)");
        assertThat(error("wscale 256")).isEqualTo("window scale shift count 256 out of range (0..255)");
        assertThat(error("TS val 4294967296 ecr 0")).startsWith("TS val 4294967296 out of range");
        assertThat(error("sack 1:4294967296")).startsWith("TCP SACK right sequence number 4294967296 out of range");
        assertThat(error("ECN e0b 16777216")).startsWith("AccECN e0b 16777216 out of range");
    }

    @Test
    void cookiesAndDigestsMustBeHex() {
        assertThat(error("FO abc")).isEqualTo("TCP fast open cookie 'abc' has an odd number of hex digits");
        assertThat(error("FO abcx")).isEqualTo("TCP fast open cookie 'abcx' is not a valid hex string");
        assertThat(error("FO 00112233445566778899aabbccddeeff00"))
            .isEqualTo("TCP fast open cookie of 17 bytes exceeds the maximum of 16 bytes");
        assertThat(error("md5 xyz0")).isEqualTo("TCP MD5 digest 'xyz0' is not a valid hex string");
        assertThat(error("md5")).startsWith("expected the MD5 digest in hex after 'md5', found '>'");
    }

    @Test
    void malformedListsAreRefused() {
        assertThat(error("mss")).startsWith("expected a number for the mss, found '>'");
        assertThat(error("TS 1 ecr 2")).startsWith("expected 'val' after 'TS', found '1'");
        assertThat(error("TS val 1 2")).startsWith("expected 'ecr' after the TS val, found '2'");
        assertThat(error("nop nop")).startsWith("expected ',' or '>' in the TCP options, found 'nop'");
        assertThat(error("timestamp 1")).startsWith("unknown TCP option 'timestamp' (TCP options are nop, eol, mss N");
        assertThat(error("")).startsWith("expected a TCP option (nop, eol");
        assertThat(Parse.error("0 > S 0:0(0) <mss 1000").reason()).startsWith("expected ',' or '>' in the TCP options, found end of input");
        assertThat(error("sack 1")).startsWith("expected ':' between the SACK block's edges");
    }
}
