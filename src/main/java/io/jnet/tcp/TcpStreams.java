package io.jnet.tcp;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;

/** Stream views of a TCP socket (blocking semantics regardless of the socket's mode). */
final class TcpStreams {
    private TcpStreams() {}

    static final class In extends InputStream {
        private final TcpConnection c;
        private final byte[] one = new byte[1];

        In(TcpConnection c) { this.c = c; }

        @Override
        public int read() throws IOException {
            int n;
            do {
                n = read(one, 0, 1);
            } while (n == 0);
            return n < 0 ? -1 : one[0] & 0xFF;
        }

        @Override
        public int read(byte[] b, int off, int len) throws IOException {
            if (len == 0) return 0;
            int n;
            do {
                n = c.read(b, off, len);
                if (n == 0 && !c.isBlocking()) Thread.onSpinWait();
            } while (n == 0);
            return n;
        }

        @Override
        public int available() { return c.available(); }

        @Override
        public void close() { c.close(); }
    }

    static final class Out extends OutputStream {
        private final TcpConnection c;

        Out(TcpConnection c) { this.c = c; }

        @Override
        public void write(int b) throws IOException { write(new byte[] {(byte) b}, 0, 1); }

        @Override
        public void write(byte[] b, int off, int len) throws IOException {
            while (len > 0) {
                int n = c.write(b, off, len);
                off += n;
                len -= n;
                if (n == 0) Thread.onSpinWait();
            }
        }

        @Override
        public void close() { c.close(); }
    }
}
