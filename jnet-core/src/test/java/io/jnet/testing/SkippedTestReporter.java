package io.jnet.testing;

import java.io.PrintStream;
import java.util.Optional;
import org.junit.platform.engine.TestExecutionResult;
import org.junit.platform.engine.TestSource;
import org.junit.platform.engine.support.descriptor.ClassSource;
import org.junit.platform.engine.support.descriptor.MethodSource;
import org.junit.platform.launcher.TestExecutionListener;
import org.junit.platform.launcher.TestIdentifier;

/**
 * Prints one line per skipped test or test class on the console of {@code ./test.sh}:
 * {@code SKIPPED io.jnet.link.tap.TapDeviceTest.closeFromTheReceiverThreadDoesNotDeadlock: 'ping' is not installed ...}.
 * Covers tests aborted by an assumption (a missing tool, no root) and tests disabled by a condition.
 * Surefire's summary only counts skips; their reasons otherwise appear only in the XML reports.
 *
 * <p>Registered for the JUnit Platform launcher in
 * {@code src/test/resources/META-INF/services/org.junit.platform.launcher.TestExecutionListener}; it
 * writes to standard error, which surefire copies to the console.
 */
public final class SkippedTestReporter implements TestExecutionListener {
    private final PrintStream out;

    public SkippedTestReporter() {
        this(System.err);
    }

    SkippedTestReporter(PrintStream out) {
        this.out = out;
    }

    @Override
    public void executionSkipped(TestIdentifier test, String reason) {
        report(test, reason);
    }

    @Override
    public void executionFinished(TestIdentifier test, TestExecutionResult result) {
        if (result.getStatus() != TestExecutionResult.Status.ABORTED) return;
        report(test, result.getThrowable().map(Throwable::getMessage).map(SkippedTestReporter::stripPrefix).orElse("aborted"));
    }

    /** JUnit's "Assumption failed: " adds nothing on a line that starts with SKIPPED. */
    private static String stripPrefix(String message) {
        String prefix = "Assumption failed: ";
        return message != null && message.startsWith(prefix) ? message.substring(prefix.length()) : message;
    }

    private void report(TestIdentifier test, String reason) {
        out.println("SKIPPED " + name(test) + ": " + (reason == null || reason.isBlank() ? "no reason given" : reason));
        out.flush();
    }

    /** {@code package.Class.method} for a test method, {@code package.Class} for a class, else the display name. */
    static String name(TestIdentifier test) {
        Optional<TestSource> source = test.getSource();
        if (source.isPresent() && source.get() instanceof MethodSource m) {
            String name = m.getClassName() + "." + m.getMethodName();
            String display = test.getDisplayName();
            // a parameterized or repeated invocation: say which one
            return display.startsWith(m.getMethodName() + "(") ? name : name + " " + display;
        }
        if (source.isPresent() && source.get() instanceof ClassSource c) return c.getClassName();
        return test.getDisplayName();
    }
}
