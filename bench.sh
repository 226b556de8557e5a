#!/usr/bin/env bash
# JMH micro-benchmarks of the packet path. Usage: ./bench.sh [JMH options], default: all with -prof gc.
# Example: ./bench.sh 'LoopbackPathBenchmark.requestResponse' -p path=loopback -prof gc
set -euo pipefail
cd "$(dirname "$0")"
for j in "${JAVA_HOME:-}" /usr/lib/jvm/*; do
  if [[ -n "$j" && -x "$j/bin/javac" ]] && "$j/bin/java" -version 2>&1 | grep -qE 'version "(2[5-9]|[3-9][0-9])'; then export JAVA_HOME="$j"; break; fi
done
mvn -q -B -ntp -DskipTests test-compile dependency:build-classpath -Dmdep.includeScope=test -Dmdep.outputFile=target/test.classpath >&2
exec "$JAVA_HOME/bin/java" --enable-native-access=ALL-UNNAMED -cp "target/test-classes:target/classes:$(cat target/test.classpath)" io.jnet.bench.Bench "$@"
