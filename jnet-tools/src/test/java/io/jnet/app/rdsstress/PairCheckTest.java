package io.jnet.app.rdsstress;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class PairCheckTest {
    @Test
    void inOrderOnceIsOk() {
        PairCheck c = new PairCheck();
        for (long s = 1; s <= 5; s++) c.accept(s);
        PairResult r = c.result("a:1", "b:1", "requests", 5);
        assertThat(r.ok()).isTrue();
        assertThat(r.describe()).isEqualTo("a:1 -> b:1 requests: sent 5 received 5 lost 0 duplicated 0 reordered 0 corrupt 0");
    }

    @Test
    void gapsDuplicatesAndLateMessagesAreCounted() {
        PairCheck c = new PairCheck();
        c.accept(1);
        c.accept(3); // 2 missing so far: early
        c.accept(3); // again
        c.accept(2); // late
        c.accept(4);
        PairResult r = c.result("a:1", "b:1", "acks", 6);
        assertThat(r.received()).isEqualTo(4);
        assertThat(r.duplicated()).isEqualTo(1);
        assertThat(r.reordered()).isEqualTo(2);
        assertThat(r.lost()).as("5 and 6 never came").isEqualTo(2);
        assertThat(r.ok()).isFalse();
    }

    @Test
    void anUnknownSentCountFails() {
        PairCheck c = new PairCheck();
        c.accept(1);
        PairResult r = c.result("a:1", "b:1", "requests", -1);
        assertThat(r.ok()).isFalse();
        assertThat(r.lost()).isZero();
        assertThat(r.describe()).contains("sent unknown");
    }

    @Test
    void corruptMessagesFail() {
        PairCheck c = new PairCheck();
        c.accept(1);
        c.corrupt();
        assertThat(c.result("a:1", "b:1", "requests", 1).ok()).isFalse();
    }
}
