#!/usr/bin/env bash
# JMH micro-benchmarks of the packet path. Usage: ./bench.sh [JMH options], default: all with -prof gc.
# Example: ./bench.sh 'LoopbackPathBenchmark.requestResponse' -p path=loopback -prof gc
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
# the benchmarks measure the stack: they live in jnet-core's tests
mvn -q -B -ntp -Dstyle.color=never -DskipTests -pl jnet-core test-compile dependency:build-classpath -Dmdep.includeScope=test -Dmdep.outputFile=target/test.classpath >&2
cd jnet-core
# JMH's forked JVMs inherit these options
exec "$JAVA_HOME/bin/java" $java_opts -cp "target/test-classes:target/classes:$(cat target/test.classpath)" io.jnet.bench.Bench "$@"
