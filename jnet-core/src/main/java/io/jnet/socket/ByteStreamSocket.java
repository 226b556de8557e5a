package io.jnet.socket;

import java.io.IOException;

/** A connected byte-stream socket (TCP, local stream sockets): what the stream views of {@link SocketStreams} use. */
public interface ByteStreamSocket extends PollableSocket {
    /** read(2): up to {@code len} bytes; -1 at end of stream; 0 when non-blocking and nothing is there. */
    int read(byte[] b, int off, int len) throws IOException;

    /** write(2): up to {@code len} bytes; 0 when non-blocking and no room. */
    int write(byte[] b, int off, int len) throws IOException;

    /** Bytes readable now without blocking. */
    int available();
}
