package io.jnet.perf;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

class BusyCoresTest {

    private static Set<Long> childPids() {
        return ProcessHandle.current().children().map(ProcessHandle::pid).collect(Collectors.toSet());
    }

    /** The scheduler state letter of a process from /proc/PID/stat (R running, S sleeping, ...), or "gone". */
    private static String state(long pid) {
        try {
            String stat = Files.readString(Path.of("/proc", Long.toString(pid), "stat"));
            return stat.substring(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3);
        } catch (IOException e) {
            return "gone";
        }
    }

    @Test
    void spinnersAreSeparateRunningProcessesWhileOpenAndGoneAfterClose() throws Exception {
        List<ProcessHandle> handles;
        try (BusyCores busy = BusyCores.start(1)) {
            assertThat(busy.count()).isEqualTo(1);
            handles = busy.processes();
            assertThat(handles).hasSize(1).allMatch(ProcessHandle::isAlive);
            assertThat(childPids()).as("children of this JVM").contains(handles.getFirst().pid());
            assertThat(handles.getFirst().pid()).isNotEqualTo(ProcessHandle.current().pid());
            // a spinner is runnable, not sleeping: sampled, it shows R (running or waiting for a core)
            boolean seenRunning = false;
            for (int i = 0; i < 50 && !seenRunning; i++) {
                seenRunning = state(handles.getFirst().pid()).equals("R");
                if (!seenRunning) Thread.sleep(10);
            }
            assertThat(seenRunning).as("spinner seen in state R").isTrue();
            assertThat(busy.description()).isEqualTo("busy cores: 1 (spinning processes)");
        }
        assertThat(handles).noneMatch(ProcessHandle::isAlive);
        assertThat(childPids()).doesNotContain(handles.getFirst().pid());
    }

    @Test
    void everyCoreCanBeMadeBusyAndCloseIsIdempotent() throws Exception {
        int cores = Runtime.getRuntime().availableProcessors();
        BusyCores busy = BusyCores.start(cores);
        List<ProcessHandle> handles = busy.processes();
        try {
            assertThat(handles).hasSize(cores).allMatch(ProcessHandle::isAlive);
            assertThat(handles.stream().map(ProcessHandle::pid).distinct()).hasSize(cores);
        } finally {
            busy.close();
        }
        busy.close();
        assertThat(handles).noneMatch(ProcessHandle::isAlive);
    }

    @Test
    void zeroStartsNothing() throws Exception {
        Set<Long> before = childPids();
        try (BusyCores busy = BusyCores.start(0)) {
            assertThat(busy.count()).isZero();
            assertThat(busy.processes()).isEmpty();
            assertThat(childPids()).isEqualTo(before);
        }
    }

    @Test
    void countOutsideZeroToTheCoresIsRefused() {
        int cores = Runtime.getRuntime().availableProcessors();
        Set<Long> before = childPids();
        assertThatThrownBy(() -> BusyCores.start(cores + 1)).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("busy cores must be 0 to " + cores + " (the cores of this machine): " + (cores + 1));
        assertThatThrownBy(() -> BusyCores.start(-1)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining(": -1");
        assertThat(childPids()).isEqualTo(before);
    }

    @Test
    void aSpinnerExitsByItselfWhenTheProcessThatStartedItIsGone() throws Exception {
        // an intermediate shell starts the spinner, prints its pid and waits; killing it orphans the spinner
        Process parent = new ProcessBuilder("/bin/sh", "-c", "/bin/sh -c \"$1\" spin $$ & echo $!; exec sleep 60", "spin",
                BusyCores.SPIN_SCRIPT).redirectErrorStream(true).start();
        long spinner = -1;
        try {
            String line = new java.io.BufferedReader(new java.io.InputStreamReader(parent.getInputStream())).readLine();
            spinner = Long.parseLong(line.trim());
            assertThat(state(spinner)).as("spinner alive while its parent is").isIn("R", "S");
            parent.destroyForcibly().waitFor();
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
            while (!List.of("gone", "Z").contains(state(spinner)) && System.nanoTime() < deadline) Thread.sleep(20);
            assertThat(state(spinner)).as("spinner exited after its parent").isIn("gone", "Z");
        } finally {
            parent.destroyForcibly();
            if (spinner > 0) ProcessHandle.of(spinner).ifPresent(ProcessHandle::destroyForcibly);
        }
    }
}
