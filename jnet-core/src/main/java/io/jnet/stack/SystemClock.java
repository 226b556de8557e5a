package io.jnet.stack;

/** Real monotonic time ({@link System#nanoTime()}); each wheel runs its own timer thread. */
public final class SystemClock implements Clock {
    public static final SystemClock INSTANCE = new SystemClock();

    private SystemClock() {}

    @Override public long nanoTime() { return System.nanoTime(); }
    @Override public boolean isVirtual() { return false; }
    @Override public void register(TimerWheel wheel) { wheel.startThread(); }
    @Override public void unregister(TimerWheel wheel) { wheel.stopThread(); }
}
