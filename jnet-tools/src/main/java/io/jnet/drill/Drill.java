package io.jnet.drill;

import io.jnet.drill.play.Player;
import io.jnet.drill.play.Verdict;
import io.jnet.drill.script.DrillParseException;
import io.jnet.drill.script.DrillParser;
import io.jnet.drill.script.Script;
import io.jnet.drill.target.Target;
import java.io.PrintStream;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * Plays scripts one after the other, each on a fresh target, and reports as {@code jnet drill} prints: one line
 * per script ({@code pass}, {@code FAIL} with the first mismatch, {@code expected failure}, {@code unsupported}),
 * then a summary line.
 */
public final class Drill {
    /** Opens a fresh target for one script. */
    @FunctionalInterface
    public interface TargetFactory {
        Target open() throws Exception;
    }

    /** One script's outcome. */
    public record Result(Path script, Outcome outcome, Verdict verdict, String note, long wallMillis) {}

    /** What a script's verdict means for the run. */
    public enum Outcome { PASS, FAIL, EXPECTED_FAILURE, UNEXPECTED_PASS, UNSUPPORTED }

    /**
     * How to play.
     *
     * @param runs how many times in a row each script must pass (3 on the kernel, whose timing is real)
     * @param defines {@code -D NAME=value}
     * @param toleranceUsecs the default tolerance (a script's own {@code --tolerance_usecs} wins)
     * @param verbose print every event
     */
    public record Settings(int runs, Map<String, String> defines, long toleranceUsecs, boolean verbose) {}

    private Drill() {}

    /**
     * Plays the built-in warm-up script {@code times} times on fresh targets, ignoring how it goes: on a real-time
     * target the first plays of anything are slowed by JIT compilation.
     */
    public static void warmUp(TargetFactory factory, int times) throws Exception {
        String text;
        try (var in = Drill.class.getResourceAsStream("warmup.pkt")) {
            text = new String(in.readAllBytes(), java.nio.charset.StandardCharsets.UTF_8);
        }
        Script s = DrillParser.parse("warmup.pkt", text);
        for (int i = 0; i < times; i++) {
            try (Target t = factory.open()) {
                Player.play(s, t, Player.Options.defaults());
            }
        }
    }

    /** Plays every script of {@code files} on targets from {@code factory}, printing to {@code out}. */
    public static List<Result> run(ScriptFiles files, TargetFactory factory, Settings settings, PrintStream out) throws InterruptedException {
        return play(files, factory, settings, out, 1, true);
    }

    /**
     * As {@link #run}, for a real-time target on a busy machine: a script that does not pass is played again, up to
     * {@code attempts} times in all, and counts by its last play. Expected failures do not apply (Linux is the
     * reference: every script must pass on it).
     */
    public static List<Result> runWithRetries(ScriptFiles files, TargetFactory factory, Settings settings, PrintStream out, int attempts)
            throws InterruptedException {
        return play(files, factory, settings, out, attempts, false);
    }

    private static List<Result> play(ScriptFiles files, TargetFactory factory, Settings settings, PrintStream out, int attempts,
                                     boolean expectedFailures) throws InterruptedException {
        List<Result> results = new ArrayList<>();
        for (Path p : files.scripts()) {
            Result r = null;
            for (int i = 0; i < attempts; i++) {
                r = playOne(p, expectedFailures ? files.expectedFailure(p) : null, factory, settings, out);
                if (r.outcome() == Outcome.PASS || r.outcome() == Outcome.UNSUPPORTED) break;
            }
            results.add(r);
            out.println(line(r));
            out.flush();
        }
        out.println(summary(results));
        out.flush();
        return results;
    }

    static Result playOne(Path p, String expectedFailure, TargetFactory factory, Settings settings, PrintStream out) throws InterruptedException {
        long t0 = System.nanoTime();
        Script script;
        try {
            script = DrillParser.parse(p.toString(), ScriptFiles.read(p), settings.defines());
        } catch (java.io.IOException e) {
            Verdict v = new Verdict(Verdict.Status.FAIL, 0, "cannot read the script: " + e.getMessage(), 0);
            return new Result(p, Outcome.FAIL, v, null, ms(t0));
        } catch (RuntimeException e) {
            // a parser bug must not end the run: this script fails, the next ones play
            Verdict v = new Verdict(Verdict.Status.FAIL, 0, "cannot parse the script: " + e, 0);
            return new Result(p, Outcome.FAIL, v, null, ms(t0));
        } catch (DrillParseException e) {
            // the file and line are printed before the message: give the column and the reason only. A construct the
            // parser does not support is unsupported; anything else is the script's mistake
            boolean unsupported = e.reason().startsWith("not supported");
            Verdict v = new Verdict(unsupported ? Verdict.Status.UNSUPPORTED : Verdict.Status.FAIL, e.line(),
                    (unsupported ? "" : "parse error: ") + e.reason() + " (column " + e.column() + ")", 0);
            Outcome o = unsupported ? Outcome.UNSUPPORTED : expectedFailure == null ? Outcome.FAIL : Outcome.EXPECTED_FAILURE;
            return new Result(p, o, v, expectedFailure, ms(t0));
        }
        Verdict v = null;
        for (int run = 0; run < Math.max(1, settings.runs()); run++) {
            try (Target t = factory.open()) {
                v = Player.play(script, t, new Player.Options(settings.toleranceUsecs(), settings.defines(), settings.verbose() ? out : null));
            } catch (InterruptedException e) {
                throw e;
            } catch (Exception e) {
                // Player reports the script's own problems as verdicts: what lands here is the target's
                v = new Verdict(Verdict.Status.FAIL, 0, "could not open the target: " + e, 0);
            }
            if (v.status() != Verdict.Status.PASS) break;
        }
        Outcome o = switch (v.status()) {
            case PASS -> expectedFailure == null ? Outcome.PASS : Outcome.UNEXPECTED_PASS;
            case FAIL -> expectedFailure == null ? Outcome.FAIL : Outcome.EXPECTED_FAILURE;
            case UNSUPPORTED -> Outcome.UNSUPPORTED;
        };
        return new Result(p, o, v, expectedFailure, ms(t0));
    }

    private static long ms(long t0) { return (System.nanoTime() - t0) / 1_000_000; }

    /** The line printed for one script. */
    public static String line(Result r) {
        Verdict v = r.verdict();
        String where = r.script() + (v.line() > 0 ? ":" + v.line() : "");
        return switch (r.outcome()) {
            case PASS -> "pass        " + r.script() + " (" + r.wallMillis() + " ms)";
            case FAIL -> "FAIL        " + where + ": " + v.message();
            case EXPECTED_FAILURE -> "xfail       " + where + ": " + v.message() + " (listed: " + r.note() + ")";
            case UNEXPECTED_PASS -> "XPASS       " + r.script() + ": listed as an expected failure (" + r.note() + ") but passed";
            case UNSUPPORTED -> "unsupported " + where + ": " + v.message();
        };
    }

    /** The summary line: scripts, passed, failed, expected failures, unsupported. */
    public static String summary(List<Result> results) {
        long pass = count(results, Outcome.PASS), fail = count(results, Outcome.FAIL) + count(results, Outcome.UNEXPECTED_PASS),
                xfail = count(results, Outcome.EXPECTED_FAILURE), unsupported = count(results, Outcome.UNSUPPORTED);
        return String.format(Locale.ROOT, "scripts %d, passed %d, failed %d, expected failures %d, unsupported %d",
                results.size(), pass, fail, xfail, unsupported);
    }

    /** True when the run should exit 0: no failure, no unexpected pass, nothing unsupported. */
    public static boolean allGood(List<Result> results) {
        return results.stream().allMatch(r -> r.outcome() == Outcome.PASS || r.outcome() == Outcome.EXPECTED_FAILURE);
    }

    private static long count(List<Result> rs, Outcome o) { return rs.stream().filter(r -> r.outcome() == o).count(); }
}
