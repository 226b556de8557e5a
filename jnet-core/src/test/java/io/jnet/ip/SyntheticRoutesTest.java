package io.jnet.ip;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.jnet.wire.Ipv4;
import java.util.HashSet;
import java.util.Set;
import org.junit.jupiter.api.Test;

class SyntheticRoutesTest {

    @Test
    void sameSeedSameTableOtherSeedOtherTable() {
        assertThat(SyntheticRoutes.prefixes(1, 5000)).containsExactly(SyntheticRoutes.prefixes(1, 5000));
        assertThat(SyntheticRoutes.prefixes(2, 5000)).isNotEqualTo(SyntheticRoutes.prefixes(1, 5000));
        // a longer table starts with the shorter one
        long[] shortOne = SyntheticRoutes.prefixes(3, 1000), longOne = SyntheticRoutes.prefixes(3, 2000);
        for (int i = 0; i < shortOne.length; i++) assertThat(longOne[i]).isEqualTo(shortOne[i]);
    }

    @Test
    void distinctMaskedUnicastPrefixes() {
        long[] ps = SyntheticRoutes.prefixes(9, 200_000);
        Set<Long> seen = new HashSet<>();
        for (long p : ps) {
            int prefix = SyntheticRoutes.prefixOf(p), len = SyntheticRoutes.lengthOf(p);
            assertThat(seen.add(p)).as("duplicate %s/%d", Ipv4.addressToString(prefix), len).isTrue();
            assertThat(prefix & ~Ipv4.prefixMask(len)).isZero();
            int first = prefix >>> 24;
            assertThat(first).isBetween(1, 223).isNotIn(10, 127);
        }
    }

    @Test
    void prefixLengthMixLikeBgpTable() {
        long[] ps = SyntheticRoutes.prefixes(4, 200_000);
        int[] byLen = new int[33];
        for (long p : ps) byLen[SyntheticRoutes.lengthOf(p)]++;
        double n = ps.length;
        assertThat(byLen[24] / n).isBetween(0.55, 0.61);
        assertThat((byLen[22] + byLen[23]) / n).isBetween(0.18, 0.22);
        assertThat(sum(byLen, 16, 21) / n).isBetween(0.16, 0.21);
        assertThat(sum(byLen, 8, 15) / n).isBetween(0.005, 0.015);
        assertThat(sum(byLen, 25, 32) / n).isBetween(0.001, 0.006);
        assertThat(byLen[32]).isPositive();
        assertThat(sum(byLen, 0, 7)).isZero();
    }

    @Test
    void addressInIsInsideThePrefix() {
        var rnd = new java.util.SplittableRandom(1);
        for (long p : SyntheticRoutes.prefixes(5, 1000)) {
            int a = SyntheticRoutes.addressIn(p, rnd), len = SyntheticRoutes.lengthOf(p);
            assertThat(a & Ipv4.prefixMask(len)).isEqualTo(SyntheticRoutes.prefixOf(p));
        }
    }

    @Test
    void badCountRejected() {
        assertThatThrownBy(() -> SyntheticRoutes.prefixes(1, -1)).isInstanceOf(IllegalArgumentException.class);
        assertThat(SyntheticRoutes.prefixes(1, 0)).isEmpty();
    }

    private static int sum(int[] a, int from, int to) {
        int s = 0;
        for (int i = from; i <= to; i++) s += a[i];
        return s;
    }
}
