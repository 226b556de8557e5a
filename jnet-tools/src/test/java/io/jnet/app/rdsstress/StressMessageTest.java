package io.jnet.app.rdsstress;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class StressMessageTest {
    @Test
    void headerFieldsRoundTripAndTheChecksumCoversEveryByte() {
        byte[] b = new byte[100];
        for (int i = 0; i < b.length; i++) b[i] = (byte) (i * 7);
        StressMessage.write(b, 100, StressMessage.REQUEST, StressMessage.FLAG_ONE_WAY, 42, 7, 123456789L, 256);
        assertThat(StressMessage.valid(b, 100)).isTrue();
        assertThat(StressMessage.type(b)).isEqualTo(StressMessage.REQUEST);
        assertThat(StressMessage.flags(b)).isEqualTo(StressMessage.FLAG_ONE_WAY);
        assertThat(StressMessage.seq(b)).isEqualTo(42);
        assertThat(StressMessage.echo(b)).isEqualTo(7);
        assertThat(StressMessage.time(b)).isEqualTo(123456789L);
        assertThat(StressMessage.ackBytes(b)).isEqualTo(256);
        for (int i = 0; i < b.length; i++) {
            b[i] ^= 1;
            assertThat(StressMessage.valid(b, 100)).as("byte %d flipped", i).isFalse();
            b[i] ^= 1;
        }
        assertThat(StressMessage.valid(b, 99)).as("truncated").isFalse();
        assertThat(StressMessage.valid(b, 10)).isFalse();
    }

    @Test
    void endAckCountersAreCheckedToo() {
        byte[] b = new byte[StressMessage.END_ACK_BYTES];
        for (int i = 0; i < 4; i++) StressMessage.putCounter(b, i, 1000 + i);
        StressMessage.write(b, b.length, StressMessage.END_ACK, (byte) 0, 9, 0, 0, 0);
        assertThat(StressMessage.valid(b, b.length)).isTrue();
        assertThat(StressMessage.counter(b, 3)).isEqualTo(1003);
        b[StressMessage.HEADER_BYTES + 7]++;
        assertThat(StressMessage.valid(b, b.length)).isFalse();
    }

    @Test
    void aMessageShorterThanTheHeaderIsRefused() {
        assertThatThrownBy(() -> StressMessage.write(new byte[39], 39, StressMessage.HELLO, (byte) 0, 0, 0, 0, 0))
                .isInstanceOf(IllegalArgumentException.class);
    }
}
