package io.jnet.tcp;

import java.security.GeneralSecurityException;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/**
 * A keyed hash of a connection's 4-tuple (HMAC-SHA256 with a per-namespace random secret from NetNamespace.randomLong): the F()
 * of RFC 6528 initial sequence numbers, RFC 6056 port offsets and RFC 7323 timestamp offsets. Called
 * once per connection, not per packet.
 */
final class SecretHash {
    private final byte[] key = new byte[32];
    private final ThreadLocal<Mac> mac;

    SecretHash(java.util.function.LongSupplier random) {
        for (int i = 0; i < key.length; i += 8) {
            long v = random.getAsLong();
            for (int k = 0; k < 8; k++) key[i + k] = (byte) (v >>> (8 * k));
        }
        mac = ThreadLocal.withInitial(() -> {
            try {
                Mac m = Mac.getInstance("HmacSHA256");
                m.init(new SecretKeySpec(key, "HmacSHA256"));
                return m;
            } catch (GeneralSecurityException e) {
                throw new IllegalStateException("HmacSHA256 unavailable", e);
            }
        });
    }

    /** 32 pseudo-random bits for (purpose, tuple). */
    int hash(int purpose, int laddr, int lport, int raddr, int rport) {
        Mac m = mac.get();
        byte[] in = new byte[16];
        put(in, 0, purpose);
        put(in, 4, laddr);
        put(in, 8, raddr);
        put(in, 12, (lport << 16) | (rport & 0xFFFF));
        byte[] out = m.doFinal(in);
        return ((out[0] & 0xFF) << 24) | ((out[1] & 0xFF) << 16) | ((out[2] & 0xFF) << 8) | (out[3] & 0xFF);
    }

    private static void put(byte[] b, int o, int v) {
        b[o] = (byte) (v >>> 24);
        b[o + 1] = (byte) (v >>> 16);
        b[o + 2] = (byte) (v >>> 8);
        b[o + 3] = (byte) v;
    }
}
