package io.jnet.perf;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.function.Consumer;

/** What a report prints, as a string. */
final class ReportCapture {
    private ReportCapture() {}

    static String capture(Consumer<PrintStream> print) {
        ByteArrayOutputStream buf = new ByteArrayOutputStream();
        print.accept(new PrintStream(buf, true, StandardCharsets.UTF_8));
        return buf.toString(StandardCharsets.UTF_8);
    }
}
