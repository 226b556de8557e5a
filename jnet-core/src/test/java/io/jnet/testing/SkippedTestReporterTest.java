package io.jnet.testing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.platform.engine.discovery.DiscoverySelectors.selectClass;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Disabled;
import org.junit.jupiter.api.Test;
import org.junit.platform.launcher.Launcher;
import org.junit.platform.launcher.core.LauncherConfig;
import org.junit.platform.launcher.core.LauncherDiscoveryRequestBuilder;
import org.junit.platform.launcher.core.LauncherFactory;

/** {@link SkippedTestReporter} prints one line per skipped test, class or disabled test, with the reason. */
class SkippedTestReporterTest {

    /** Run only through the launcher below (surefire leaves nested classes alone). */
    static class Sample {
        @Test
        void runs() { }

        @Test
        void needsATool() {
            Assumptions.assumeTrue(false, "'frobnicate' is not installed");
        }

        @Test
        @Disabled("not on Tuesdays")
        void disabled() { }
    }

    static class SkippedClass {
        @BeforeAll
        static void needsRoot() {
            Assumptions.assumeTrue(false, "not root");
        }

        @Test
        void neverRuns() { }
    }

    private static String run(Class<?> testClass) {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        PrintStream out = new PrintStream(bytes, true, StandardCharsets.UTF_8);
        Launcher launcher = LauncherFactory.create(LauncherConfig.builder()
                .enableTestExecutionListenerAutoRegistration(false)
                .addTestExecutionListeners(new SkippedTestReporter(out))
                .build());
        launcher.execute(LauncherDiscoveryRequestBuilder.request().selectors(selectClass(testClass)).build());
        return bytes.toString(StandardCharsets.UTF_8);
    }

    @Test
    void abortedAndDisabledTestsArePrintedWithTheirReason() {
        String name = Sample.class.getName();
        assertThat(run(Sample.class).lines()).containsExactlyInAnyOrder(
                "SKIPPED " + name + ".needsATool: 'frobnicate' is not installed",
                "SKIPPED " + name + ".disabled: not on Tuesdays");
    }

    @Test
    void aClassSkippedInBeforeAllIsPrintedOnce() {
        assertThat(run(SkippedClass.class).lines())
                .containsExactly("SKIPPED " + SkippedClass.class.getName() + ": not root");
    }
}
