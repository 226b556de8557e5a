package io.jnet.socket;

/** Notified when a socket's readiness may have changed (wakeup callback, Linux's sk_data_ready/sk_write_space). */
@FunctionalInterface
public interface ReadinessListener {
    void readinessChanged(PollableSocket socket);
}
