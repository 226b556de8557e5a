package io.jnet.drill.jnet;

import io.jnet.socket.Poller;
import java.util.HashMap;
import java.util.Map;

/** An epoll descriptor: a jnet {@link Poller} and, per watched descriptor, the 64-bit data given to epoll_ctl. */
final class EpollFile {
    final Poller poller;
    /** Watched descriptor number to its epoll_data. */
    final Map<Integer, Long> data = new HashMap<>();

    EpollFile(Poller poller) { this.poller = poller; }
}
