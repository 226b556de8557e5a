/**
 * The JDK's network entry points on jnet: a {@link java.nio.channels.spi.SelectorProvider} whose channels and
 * selectors are jnet sockets, the {@code java.net.Socket}/{@code ServerSocket} factories, and a name resolver;
 * {@link io.jnet.nio.JnetNetwork} picks the namespace they work in.
 */
package io.jnet.nio;
