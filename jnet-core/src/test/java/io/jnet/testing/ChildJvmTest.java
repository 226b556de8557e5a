package io.jnet.testing;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

class ChildJvmTest {

    /** The child: prints the property {@code child.word} and its arguments, then exits or sleeps as asked. */
    public static final class Main {
        public static void main(String[] args) throws InterruptedException {
            System.out.println("word=" + System.getProperty("child.word") + " args=" + List.of(args));
            System.err.println("to stderr");
            if (args[0].equals("sleep")) Thread.sleep(60_000);
            System.exit(Integer.parseInt(args[0]));
        }
    }

    @Test
    void runsTheMainClassWithTheGivenOptionsAndReturnsItsStatusAndOutput() throws Exception {
        CommandResult r = ChildJvm.run(Main.class, List.of("-Dchild.word=hello"), List.of("3", "x"), Duration.ofSeconds(60));
        assertThat(r.timedOut()).isFalse();
        assertThat(r.exitCode()).isEqualTo(3);
        assertThat(r.stdout()).isEqualTo("word=hello args=[3, x]\n");
        assertThat(r.stderr()).isEqualTo("to stderr\n");
        assertThat(r.command()).startsWith(ChildJvm.javaLauncher().toString(), "-Dchild.word=hello", "-cp")
                .endsWith(Main.class.getName(), "3", "x");
    }

    @Test
    void killsAChildThatRunsPastItsTimeout() throws Exception {
        long t0 = System.nanoTime();
        CommandResult r = ChildJvm.run(Main.class, List.of(), List.of("sleep"), Duration.ofSeconds(2));
        assertThat(r.timedOut()).isTrue();
        assertThat(r.exitCode()).isEqualTo(-1);
        assertThat(r.ok()).isFalse();
        assertThat(System.nanoTime() - t0).isLessThan(Duration.ofSeconds(30).toNanos());
    }
}
