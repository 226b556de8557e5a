package io.jnet.stack;

/** A jnet namespace (in progress). */
public final class NetNamespace {
    public static NetNamespace create(String name) { throw new UnsupportedOperationException("not yet built"); }
}
