/**
 * Link impairment: {@link io.jnet.link.impair.ImpairedDevice} wraps any device and drops, duplicates,
 * corrupts, reorders, delays and rate-limits frames in each direction, reproducibly from a seed, with a
 * record of what it did. Configured by {@link io.jnet.link.impair.ImpairmentConfig}, whose text form
 * ({@code loss=2%,dup=1%,delay=5ms,seed=7}) suits a command line.
 */
package io.jnet.link.impair;
