#!/usr/bin/env bash
# The test command: builds jnet with a JDK >= 25 and runs the default test suite.
# Kernel-interop tests need root and iproute2, iputils-ping, ethtool, curl, tshark, python3, dnsmasq-base (README, .ci/run);
# without them they are skipped and print "SKIPPED class.method: reason" on the console.
set -euo pipefail
cd "$(dirname "$0")"
if [[ -z "${JAVA_HOME:-}" ]] || ! "$JAVA_HOME/bin/java" -version 2>&1 | grep -qE 'version "(2[5-9]|[3-9][0-9])'; then
  for j in /usr/lib/jvm/*; do
    if [[ -x "$j/bin/javac" ]] && "$j/bin/java" -version 2>&1 | grep -qE 'version "(2[5-9]|[3-9][0-9])'; then export JAVA_HOME="$j"; break; fi
  done
fi
# no ANSI resets from Maven's console (jansi), no sun.misc.Unsafe warnings when Maven runs on JDK 24+
mvn_opts="-Djansi.noreset=true"
if "${JAVA_HOME:+$JAVA_HOME/bin/}java" --sun-misc-unsafe-memory-access=allow -version >/dev/null 2>&1; then
  mvn_opts="$mvn_opts --sun-misc-unsafe-memory-access=allow"
fi
export MAVEN_OPTS="${MAVEN_OPTS:+$MAVEN_OPTS }$mvn_opts"
exec mvn -B -ntp -Dstyle.color=never test "$@"
