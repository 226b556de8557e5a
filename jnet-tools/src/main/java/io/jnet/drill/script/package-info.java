/**
 * The script language of jnet drill, packetdrill's: a hand-written lexer and recursive-descent parser
 * ({@link io.jnet.drill.script.DrillParser}) producing an immutable syntax tree ({@link io.jnet.drill.script.Script},
 * its {@link io.jnet.drill.script.Event}s and their {@link io.jnet.drill.script.Action}s: packets, system calls with
 * generic {@link io.jnet.drill.script.Expr}essions, commands and code blocks), every node with its
 * {@link io.jnet.drill.script.SourcePos} and a {@code render()} in packetdrill's syntax. No I/O.
 */
package io.jnet.drill.script;
