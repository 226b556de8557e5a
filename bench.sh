#!/usr/bin/env bash
# JMH micro-benchmarks of the packet path. Usage: ./bench.sh [JMH options], default: all with -prof gc.
# Example: ./bench.sh 'LoopbackPathBenchmark.requestResponse' -p path=loopback -prof gc
# Whole-program benchmarks (not JMH) run with --main: ./bench.sh --main io.jnet.bench.NettyEchoBenchmark 3 5 1
set -euo pipefail
cd "$(dirname "$0")"
for j in "${JAVA_HOME:-}" /usr/lib/jvm/*; do
  if [[ -n "$j" && -x "$j/bin/javac" ]] && "$j/bin/java" -version 2>&1 | grep -qE 'version "(2[5-9]|[3-9][0-9])'; then export JAVA_HOME="$j"; break; fi
done
# no ANSI resets from Maven's console (jansi), no sun.misc.Unsafe warnings when Maven runs on JDK 24+
mvn_opts="-Djansi.noreset=true"
java_opts="--enable-native-access=ALL-UNNAMED"
if "$JAVA_HOME/bin/java" --sun-misc-unsafe-memory-access=allow -version >/dev/null 2>&1; then
  mvn_opts="$mvn_opts --sun-misc-unsafe-memory-access=allow"
  java_opts="$java_opts --sun-misc-unsafe-memory-access=allow" # JMH itself uses sun.misc.Unsafe
fi
export MAVEN_OPTS="${MAVEN_OPTS:+$MAVEN_OPTS }$mvn_opts"
main=io.jnet.bench.Bench
module=jnet-core
if [[ "${1:-}" == "--main" ]]; then
  # whole-program benchmarks (Netty, the JDK's HTTP pair against the kernel) live in jnet-tools' tests
  main="$2"; module=jnet-tools; shift 2
fi
# the JMH benchmarks measure the stack: they live in jnet-core's tests
mvn -q -B -ntp -Dstyle.color=never -DskipTests -pl "$module" -am test-compile dependency:build-classpath -Dmdep.includeScope=test -Dmdep.outputFile=target/test.classpath >&2
cd "$module"
# JMH's forked JVMs inherit these options
exec "$JAVA_HOME/bin/java" $java_opts -cp "target/test-classes:target/classes:$(cat target/test.classpath)" "$main" "$@"
