package io.jnet.drill.play;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.fail;
import static org.assertj.core.api.Assumptions.assumeThat;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import org.junit.jupiter.api.Test;

class CodeBlockTest {
    /** The names the blocks below read; tcpi_max_pacing_rate is ~0ULL, as Linux reports an unlimited rate. */
    static final Map<String, Long> NAMES = Map.of("tcpi_snd_cwnd", 10L, "tcpi_rto", 204000L, "tcpi_ca_state", 1L,
            "TCP_CA_Open", 0L, "TCP_CA_Disorder", 1L, "TCPI_OPT_SACK", 2L, "tcpi_options", 7L,
            "tcpi_max_pacing_rate", -1L, "tcpi_reordering", 3L);

    /** Expressions and Python 3's repr of their values (or the exception's type), as python3 gave them. */
    static final String[][] TABLE = {
            {"1 + 2 * 3", "7"},
            {"(1 + 2) * 3", "9"},
            {"2 * 3 % 4", "2"},
            {"7 - 2 - 1", "4"},
            {"100 // 10 // 3", "3"},
            {"2 ** 3 ** 2", "512"},
            {"-2 ** 2", "-4"},
            {"(-2) ** 2", "4"},
            {"2 ** 0", "1"},
            {"0 ** 0", "1"},
            {"(-1) ** 3", "-1"},
            {"-3 // 2", "-2"},
            {"3 // -2", "-2"},
            {"-7 % 3", "2"},
            {"7 % -3", "-2"},
            {"-7 // 2.0", "-4.0"},
            {"7.5 % 2", "1.5"},
            {"-7.5 % 2", "0.5"},
            {"7 / 2", "3.5"},
            {"6 / 3", "2.0"},
            {"1 / 3", "0.3333333333333333"},
            {"0 / -5", "-0.0"},
            {"-1 / 3", "-0.3333333333333333"},
            {"2 ** 64 / 3", "6.148914691236517e+18"},
            {"(2 ** 70 + 1) / 2 ** 17", "9007199254740992.0"},
            {"10 ** 30 / 7", "1.4285714285714285e+29"},
            {"-(10 ** 30) / 7", "-1.4285714285714285e+29"},
            {"1 / 10 ** 320", "1e-320"},
            {"3 ** 700 / 2 ** 1200", "5.6089750346741605e-28"},
            {"(2 ** 53 + 1) / 1", "9007199254740992.0"},
            {"(2 ** 54 + 6) / 2", "9007199254740996.0"},
            {"1 / 2 ** 1074", "5e-324"},
            {"1 / 2 ** 1075", "0.0"},
            {"3 / 2 ** 1076", "5e-324"},
            {"(2 ** 1075 + 1) / 2 ** 2150", "5e-324"},
            {"2 ** 1024 / 2", "8.98846567431158e+307"},
            {"(2 ** 1024 - 1) / 1", "OverflowError"},
            {"(2 ** 1024 - 2 ** 970) / 1", "OverflowError"},
            {"-(2 ** 1024 - 2 ** 971) / 1", "-1.7976931348623157e+308"},
            {"(2**60+1)/(2**7)", "9007199254740992.0"},
            {"10**22/10**5", "1e+17"},
            {"7 / -(2 ** 60)", "-6.071532165918825e-18"},
            {"1 << 3 + 1", "16"},
            {"1 + 1 << 2", "8"},
            {"1 | 2 ^ 3 & 4", "3"},
            {"6 & 3 == 2", "True"},
            {"tcpi_options & TCPI_OPT_SACK != 0", "True"},
            {"(tcpi_options & TCPI_OPT_SACK) != 0", "True"},
            {"tcpi_options & TCPI_OPT_SACK == 0", "False"},
            {"~5", "-6"},
            {"~-1", "0"},
            {"-~5", "6"},
            {"- -5", "5"},
            {"+-5", "-5"},
            {"-5 >> 1", "-3"},
            {"-1 >> 100", "-1"},
            {"5 >> 100", "0"},
            {"1 << 64", "18446744073709551616"},
            {"-3 & 5", "5"},
            {"-3 | 5", "-3"},
            {"-3 ^ 5", "-8"},
            {"tcpi_max_pacing_rate", "18446744073709551615"},
            {"tcpi_max_pacing_rate + 1", "18446744073709551616"},
            {"tcpi_max_pacing_rate * tcpi_max_pacing_rate", "340282366920938463426481119284349108225"},
            {"0xffffffff + 1", "4294967296"},
            {"0o17", "15"},
            {"0b1010", "10"},
            {"1_000_000", "1000000"},
            {"0x_ff", "255"},
            {"00", "0"},
            {"1 < 2 < 3", "True"},
            {"3 > 2 > 2", "False"},
            {"1 < 3 > 2", "True"},
            {"1 == 1.0", "True"},
            {"1 < 2 == 2", "True"},
            {"(1 < 2) < 3", "True"},
            {"1 < 2 < 3 < 2", "False"},
            {"200000 <= tcpi_rto <= 300000", "True"},
            {"tcpi_ca_state == TCP_CA_Disorder != TCP_CA_Open", "True"},
            {"not 1 == 2", "True"},
            {"not 0", "True"},
            {"not tcpi_snd_cwnd", "False"},
            {"not not 2", "True"},
            {"1 and 2", "2"},
            {"0 and 2", "0"},
            {"0 or 3", "3"},
            {"2 or 3", "2"},
            {"0 or 0.0", "0.0"},
            {"1 and 0 or 5", "5"},
            {"1 or 0 and 5", "1"},
            {"not 1 or 1", "1"},
            {"0.0 or not 0", "True"},
            {"True or 1 // 0", "True"},
            {"0 and 1 // 0", "0"},
            {"False or 1 // 0", "ZeroDivisionError"},
            {"True + True", "2"},
            {"True * 3", "3"},
            {"True / 2", "0.5"},
            {"True // True", "1"},
            {"True & False", "False"},
            {"True | 2", "3"},
            {"True ^ True", "False"},
            {"False | False", "False"},
            {"-True", "-1"},
            {"+True", "1"},
            {"~True", "-2"},
            {"True == 1", "True"},
            {"abs(-True)", "1"},
            {"abs(True)", "1"},
            {"abs(-5)", "5"},
            {"abs(-2.5)", "2.5"},
            {"abs(-0.0)", "0.0"},
            {"abs(-tcpi_max_pacing_rate)", "18446744073709551615"},
            {"min(3, 1, 2)", "1"},
            {"max(3, 1, 2)", "3"},
            {"min(1, 1.0)", "1"},
            {"max(1.0, 1)", "1.0"},
            {"min(True, 1)", "True"},
            {"max(2, 10 ** 20)", "100000000000000000000"},
            {"min(-0.0, 0.0)", "-0.0"},
            {"max(1, 2,)", "2"},
            {"max(1 < 2, 0)", "True"},
            {"min(tcpi_snd_cwnd, tcpi_reordering) * 2", "6"},
            {"0.1 + 0.2", "0.30000000000000004"},
            {"1e16", "1e+16"},
            {"1e15 * 1.0", "1000000000000000.0"},
            {"1.5e-5", "1.5e-05"},
            {"0.0001", "0.0001"},
            {"2.5 * 4", "10.0"},
            {".5 + 1.", "1.5"},
            {"1e308 * 10", "inf"},
            {"-1e308 * 10", "-inf"},
            {"1e308 * 10 - 1e308 * 10", "nan"},
            {"1e999", "inf"},
            {"1e-400", "0.0"},
            {"3.0 // 0.7", "4.0"},
            {"-0.0", "-0.0"},
            {"0.0 * -1", "-0.0"},
            {"123456789012345678.0", "1.2345678901234568e+17"},
            {"1e22", "1e+22"},
            {"2 ** 53 + 1 == 9007199254740992.0", "False"},
            {"2 ** 53 == 9007199254740992.0", "True"},
            {"10 ** 400 > 1e308", "True"},
            {"1e999 > 10 ** 400", "True"},
            {"-1e999 < -10 ** 400", "True"},
            {"1e300 * 1e300 == 1e300 * 1e300", "True"},
            {"(1e999 - 1e999) == (1e999 - 1e999)", "False"},
            {"(1e999 - 1e999) != 1", "True"},
            {"(1e999 - 1e999) < 1", "False"},
            {"min(1e999 - 1e999, 1)", "nan"},
            {"max(1, 1e999 - 1e999)", "1"},
            {"10 ** 20 + 0.5", "1e+20"},
            {"3 * 1.1", "3.3000000000000003"},
            {"7 // 2.5", "2.0"},
            {"-7 // 2.5", "-3.0"},
            {"7 % -2.5", "-0.5"},
            {"(2 ** 63) % 10", "8"},
            {"1e308 // 1e-308", "inf"},
            {"1e999 // 1", "nan"},
            {"-5.0 % 1e999", "inf"},
            {"5.0 % 1e999", "5.0"},
            {"0.0 // -3", "-0.0"},
            {"-0.0 % 5", "0.0"},
            {"10 ** 400 / 10 ** 399", "10.0"},
            {"1 / 0", "ZeroDivisionError"},
            {"1 // 0", "ZeroDivisionError"},
            {"1 % 0", "ZeroDivisionError"},
            {"1.0 / 0", "ZeroDivisionError"},
            {"1 // 0.0", "ZeroDivisionError"},
            {"1 % 0.0", "ZeroDivisionError"},
            {"1 << -1", "ValueError"},
            {"~1.5", "TypeError"},
            {"1.5 & 1", "TypeError"},
            {"1 << 1.0", "TypeError"},
            {"abs()", "TypeError"},
            {"abs(1, 2)", "TypeError"},
            {"min(1)", "TypeError"},
            {"min()", "TypeError"},
            {"10 ** 400 + 1.0", "OverflowError"},
            {"10 ** 400 / 1", "OverflowError"},
            {"-(10 ** 400) // 0.5", "OverflowError"},
    };

    static CodeBlock.Result run(String code) throws CodeBlock.Unsupported {
        return CodeBlock.evaluate(code, NAMES::get);
    }

    static String failure(String code) throws CodeBlock.Unsupported {
        CodeBlock.Result r = CodeBlock.evaluate(code, NAMES::get);
        assertThat(r.passed()).as(code).isFalse();
        return r.message();
    }

    static String unsupported(String code) {
        try {
            CodeBlock.Result r = CodeBlock.evaluate(code, NAMES::get);
            return fail("expected Unsupported for %s, got %s", code, r);
        } catch (CodeBlock.Unsupported u) {
            return u.getMessage();
        }
    }

    /** Our value of an expression, an exception reduced to its type as the table gives it. */
    static String ours(String expression) throws CodeBlock.Unsupported {
        String v = CodeBlock.valueOf(expression, NAMES::get);
        int colon = v.indexOf(':');
        return colon > 0 && v.substring(0, colon).endsWith("Error") ? v.substring(0, colon) : v;
    }

    @Test
    void operatorsPrecedenceAndNumbersAsPython3() throws Exception {
        List<String> wrong = new ArrayList<>();
        for (String[] row : TABLE) {
            String got = ours(row[0]);
            if (!got.equals(row[1])) wrong.add(row[0] + " gave " + got + ", Python " + row[1]);
        }
        assertThat(wrong).isEmpty();
    }

    @Test
    void theTableIsWhatPython3Gives() throws Exception {
        List<String> exprs = new ArrayList<>();
        for (String[] row : TABLE) exprs.add(row[0]);
        List<String> python = python3(exprs);
        for (int k = 0; k < TABLE.length; k++) assertThat(python.get(k)).as(TABLE[k][0]).isEqualTo(TABLE[k][1]);
    }

    @Test
    void randomExpressionsAgreeWithPython3() throws Exception {
        Random random = new Random(20240611);
        List<String> exprs = new ArrayList<>();
        List<String> expected = new ArrayList<>();
        for (int k = 0; k < 3000; k++) {
            String e = expression(random, 4);
            try {
                expected.add(ours(e));
                exprs.add(e);
            } catch (CodeBlock.Unsupported u) {
                // too large an integer, ** with a float: not compared
            }
        }
        assertThat(exprs.size()).as("expressions evaluated").isGreaterThan(2500);
        List<String> python = python3(exprs);
        List<String> wrong = new ArrayList<>();
        for (int k = 0; k < exprs.size(); k++) {
            if (!python.get(k).equals(expected.get(k))) {
                wrong.add(exprs.get(k) + " gave " + expected.get(k) + ", Python " + python.get(k));
            }
        }
        assertThat(wrong).isEmpty();
    }

    /** Random token sequences, mostly not Python: what this class evaluates, Python evaluates alike. */
    @Test
    void tokenSoupThatParsesAgreesWithPython3() throws Exception {
        String[] pieces = {"1", "2", "0", "10", "0x1f", "1.5", "1e3", "tcpi_rto", "tcpi_snd_cwnd", "True", "False",
            "(", "(", ")", ")", "+", "-", "*", "/", "//", "%", "&", "|", "^", "~", "<<", ">>", "<", "<=", ">", ">=",
            "==", "!=", "not", "and", "or", ",", "abs(", "min(", "max("};
        Random random = new Random(5);
        List<String> exprs = new ArrayList<>();
        List<String> expected = new ArrayList<>();
        while (exprs.size() < 1000) {
            StringBuilder e = new StringBuilder();
            for (int n = random.nextInt(1, 9); n > 0; n--) e.append(pieces[random.nextInt(pieces.length)]).append(' ');
            try {
                expected.add(ours(e.toString().strip()));
                exprs.add(e.toString().strip());
            } catch (CodeBlock.Unsupported u) {
                // not Python, or outside the subset
            }
        }
        List<String> python = python3(exprs);
        List<String> wrong = new ArrayList<>();
        for (int k = 0; k < exprs.size(); k++) {
            if (!python.get(k).equals(expected.get(k))) {
                wrong.add(exprs.get(k) + " gave " + expected.get(k) + ", Python " + python.get(k));
            }
        }
        assertThat(wrong).isEmpty();
    }

    @Test
    void floatsPrintAsPython3PrintsThem() throws Exception {
        Random random = new Random(7);
        List<String> literals = new ArrayList<>();
        for (int k = 0; k < 1500; k++) {
            double d = Double.longBitsToDouble(random.nextLong());
            if (Double.isFinite(d)) literals.add(Double.toString(d));
            literals.add(Double.toString(Double.MIN_VALUE * random.nextInt(1, 1000)));
            literals.add(Double.toString(random.nextInt(1, 10) * Math.pow(10, random.nextInt(-30, 30))));
        }
        List<String> ours = new ArrayList<>();
        for (String l : literals) ours.add(CodeBlock.floatRepr(Double.parseDouble(l)));
        assertThat(ours).isEqualTo(python3(literals));
    }

    private static final String[] ATOMS = {"0", "1", "2", "3", "7", "10", "255", "18446744073709551615", "0x7fffffff",
        "0.5", "2.5", "3.0", "1e300", "1e-300", "0.0", "tcpi_snd_cwnd", "tcpi_rto", "tcpi_max_pacing_rate",
        "TCPI_OPT_SACK", "True", "False"};

    private static final String[] BINARY = {"+", "-", "*", "/", "//", "%", "&", "|", "^", "==", "!=", "<", "<=", ">",
        ">=", "and", "or"};

    /** A random well-formed expression of the subset, at most {@code depth} deep. */
    static String expression(Random r, int depth) {
        if (depth == 0 || r.nextInt(5) == 0) return ATOMS[r.nextInt(ATOMS.length)];
        int d = depth - 1;
        return switch (r.nextInt(12)) {
            case 0 -> "(" + expression(r, d) + ")";
            case 1 -> List.of("-", "+", "~", "not ").get(r.nextInt(4)) + expression(r, d);
            case 2 -> expression(r, d) + " " + BINARY[r.nextInt(6, 15)] + " " + expression(r, d) + " "
                    + BINARY[r.nextInt(9, 15)] + " " + expression(r, d);
            case 3 -> List.of("abs", "min", "max").get(r.nextInt(3)) + "(" + expression(r, d)
                    + (r.nextBoolean() ? ", " + expression(r, d) : "") + (r.nextBoolean() ? ", " + expression(r, d) : "")
                    + ")";
            case 4 -> "(" + expression(r, d) + ")" + (r.nextBoolean() ? " << " : " >> ") + r.nextInt(70);
            case 5 -> "(" + expression(r, d) + ") ** " + r.nextInt(4);
            default -> expression(r, d) + " " + BINARY[r.nextInt(BINARY.length)] + " " + expression(r, d);
        };
    }

    /** Python 3's repr of each expression's value (or its exception's type); skips the test if there is no python3. */
    static List<String> python3(List<String> expressions) throws Exception {
        StringBuilder env = new StringBuilder();
        NAMES.forEach((k, v) -> env.append(k).append('=').append(Long.toUnsignedString(v)).append(", "));
        String script = """
                import sys, warnings
                warnings.simplefilter('ignore')
                env = dict(%s)
                for line in sys.stdin.read().split('\\n')[:-1]:
                    try:
                        v = repr(eval(line, {'__builtins__': {'abs': abs, 'min': min, 'max': max}}, dict(env)))
                    except Exception as e:
                        v = type(e).__name__
                    print(v)
                """.formatted(env);
        Process p;
        try {
            p = new ProcessBuilder("python3", "-c", script).redirectError(ProcessBuilder.Redirect.DISCARD).start();
        } catch (IOException e) {
            assumeThat(false).as("python3 is installed (to compare with Python 3)").isTrue();
            throw e;
        }
        try (OutputStream in = p.getOutputStream()) {
            in.write((String.join("\n", expressions) + "\n").getBytes(StandardCharsets.UTF_8));
        }
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(p.waitFor(60, TimeUnit.SECONDS)).isTrue();
        List<String> lines = out.lines().toList();
        if (p.exitValue() != 0 || lines.size() != expressions.size()) {
            assumeThat(false).as("python3 runs (exit status " + p.exitValue() + ")").isTrue();
        }
        return lines;
    }

    @Test
    void assertsThatHoldPass() throws Exception {
        assertThat(run("assert tcpi_snd_cwnd == 10, tcpi_snd_cwnd")).isEqualTo(new CodeBlock.Result(true, ""));
        assertThat(run("""

                assert tcpi_ca_state == TCP_CA_Disorder, tcpi_ca_state
                assert 200000 <= tcpi_rto <= 300000, tcpi_rto
                assert tcpi_reordering == 3
                """).passed()).isTrue();
        assertThat(run("assert (tcpi_options & TCPI_OPT_SACK) != 0").passed()).isTrue();
        assertThat(run("").passed()).isTrue();
        assertThat(run("  # nothing to check\n\n").passed()).isTrue();
        assertThat(run("pass; tcpi_rto").passed()).isTrue();
    }

    @Test
    void aFailedAssertGivesItsTextTheValuesItReadAndItsMessage() throws Exception {
        assertThat(failure("assert tcpi_snd_cwnd == 12")).isEqualTo("assert tcpi_snd_cwnd == 12 failed: tcpi_snd_cwnd = 10");
        assertThat(failure("assert tcpi_snd_cwnd == 12, tcpi_snd_cwnd"))
                .isEqualTo("assert tcpi_snd_cwnd == 12 failed: tcpi_snd_cwnd = 10 (AssertionError: 10)");
        assertThat(failure("assert tcpi_ca_state == TCP_CA_Open, 'not ' \"open\""))
                .isEqualTo("assert tcpi_ca_state == TCP_CA_Open failed: tcpi_ca_state = 1, TCP_CA_Open = 0"
                        + " (AssertionError: not open)");
        assertThat(failure("assert 200000 <= tcpi_rto <= 202000, tcpi_rto"))
                .isEqualTo("assert 200000 <= tcpi_rto <= 202000 failed: tcpi_rto = 204000 (AssertionError: 204000)");
        assertThat(failure("assert   1==2")).isEqualTo("assert 1==2 failed");
        assertThat(failure("assert False, 1 < 2")).isEqualTo("assert False failed (AssertionError: True)");
        assertThat(failure("x = tcpi_rto / 1000\nassert x < 200, x"))
                .isEqualTo("assert x < 200 failed: x = 204.0 (AssertionError: 204.0)");
        // spread over lines in brackets, with a comment: one line of text
        assertThat(failure("assert (tcpi_options &  # sack\n     TCPI_OPT_SACK) == 0"))
                .isEqualTo("assert (tcpi_options & TCPI_OPT_SACK) == 0 failed: tcpi_options = 7, TCPI_OPT_SACK = 2");
        // only the names evaluated before the result was known
        assertThat(failure("assert tcpi_snd_cwnd == 1 and tcpi_rto == 2"))
                .isEqualTo("assert tcpi_snd_cwnd == 1 and tcpi_rto == 2 failed: tcpi_snd_cwnd = 10");
    }

    @Test
    void theFirstFailureEndsTheBlock() throws Exception {
        assertThat(failure("assert 1 == 1\nassert tcpi_rto == 1\nassert tcpi_snd_cwnd == 1"))
                .isEqualTo("assert tcpi_rto == 1 failed: tcpi_rto = 204000");
        assertThat(failure("assert 1 == 2\nassert tcpi_not_known == 1")).isEqualTo("assert 1 == 2 failed");
    }

    @Test
    void statementsSeparatedBySemicolonsAndJoinedByBackslashes() throws Exception {
        assertThat(run("assert tcpi_snd_cwnd == 10, tcpi_snd_cwnd; \\\n          assert tcpi_reordering == 3, "
                + "tcpi_reordering").passed()).isTrue();
        assertThat(failure("assert 1 == 1; assert 2 == 3;")).isEqualTo("assert 2 == 3 failed");
        assertThat(run("assert tcpi_snd_cwnd \\\r\n == 10\r\nassert True\r\n").passed()).isTrue();
    }

    @Test
    void assignmentsMakeLocalNames() throws Exception {
        assertThat(failure("cwnd = tcpi_snd_cwnd * 2\nassert cwnd == 20, cwnd\nassert cwnd == 21"))
                .isEqualTo("assert cwnd == 21 failed: cwnd = 20");
        List<String> asked = new ArrayList<>();
        CodeBlock.Result r = CodeBlock.evaluate("tcpi_rto = 5\nassert tcpi_rto == 5 or tcpi_snd_cwnd", n -> {
            asked.add(n);
            return NAMES.get(n);
        });
        assertThat(r.passed()).isTrue();
        assertThat(asked).as("names read from the socket").isEmpty();
    }

    @Test
    void andOrAndMessagesEvaluateOnlyWhatPythonWould() throws Exception {
        assertThat(run("assert True or tcpi_not_known").passed()).isTrue();
        assertThat(run("assert tcpi_snd_cwnd == 10 or 1 // 0").passed()).isTrue();
        assertThat(failure("assert False and 1 / 0")).isEqualTo("assert False and 1 / 0 failed");
        assertThat(run("assert True, 1 // 0").passed()).isTrue();
        assertThat(failure("assert 1 < 0 < 1 // 0")).isEqualTo("assert 1 < 0 < 1 // 0 failed");
    }

    @Test
    void pythonErrorsFailTheBlock() throws Exception {
        assertThat(failure("assert tcpi_snd_cwnd / (tcpi_reordering - 3) > 1"))
                .isEqualTo("ZeroDivisionError: division by zero (in: assert tcpi_snd_cwnd / (tcpi_reordering - 3) > 1)");
        assertThat(failure("assert False, 1 // 0"))
                .isEqualTo("ZeroDivisionError: integer division or modulo by zero (in: assert False, 1 // 0)");
        assertThat(failure("x = tcpi_rto % 0")).startsWith("ZeroDivisionError: integer modulo by zero");
        assertThat(failure("assert 1 << -1")).startsWith("ValueError: negative shift count");
        assertThat(failure("assert ~0.5")).startsWith("TypeError: bad operand type for unary ~: 'float'");
        assertThat(failure("assert min(tcpi_rto)")).startsWith("TypeError: 'int' object is not iterable");
    }

    @Test
    void valuesAreUnsigned64BitNumbers() throws Exception {
        assertThat(run("assert tcpi_max_pacing_rate == 2 ** 64 - 1 == 0xffff_ffff_ffff_ffff > 0").passed()).isTrue();
    }

    @Test
    void unknownNamesAreUnsupported() throws Exception {
        assertThat(unsupported("assert tcpi_not_known == 1")).isEqualTo("unknown name 'tcpi_not_known' in a %{ }% block");
        assertThat(failure("assert 1 == 2, tcpi_not_known")).isEqualTo("assert 1 == 2 failed (AssertionError: not "
                + "evaluated: unknown name 'tcpi_not_known' in a %{ }% block)");
    }

    @Test
    void constructsOutsideTheSubsetAreUnsupported() {
        assertThat(unsupported("for i in range(3): pass")).isEqualTo("Python 'for' loops are not supported in %{ }% blocks");
        String[][] cases = {
                {"while True: pass", "'while' loops are not supported"},
                {"if tcpi_rto > 1:\n  assert False", "'if' statements"},
                {"assert 1 if tcpi_rto else 2", "conditional expressions"},
                {"def f(): pass", "function definitions"},
                {"class A: pass", "class definitions"},
                {"import sys", "imports"},
                {"from os import path", "imports"},
                {"lambda: 1", "lambdas"},
                {"try:\n  pass\nexcept: pass", "'try' is"},
                {"return 1", "'return' is"},
                {"with x: pass", "'with' is"},
                {"del x", "'del' is"},
                {"raise ValueError", "'raise' is"},
                {"global x", "'global' is"},
                {"print(tcpi_rto)", "print"},
                {"print tcpi_rto", "print"},
                {"assert len(tcpi_rto) == 1", "calls to len()"},
                {"assert abs(tcpi_rto)(1)", "calls other than abs(), min() and max()"},
                {"assert tcpi_rto.real", "attribute accesses"},
                {"assert tcpi_rto[0]", "subscripts"},
                {"assert [1][0]", "lists"},
                {"assert {1: 2}", "dicts and sets"},
                {"assert (1, 2)", "tuples"},
                {"assert ()", "tuples"},
                {"a, b = 1, 2", "tuples"},
                {"assert tcpi_rto, 1, 2", "tuples"},
                {"assert 'a' == 'a'", "string literals other than a whole assert message"},
                {"assert tcpi_rto, 'rto ' + tcpi_rto", "string literals other than a whole assert message"},
                {"assert tcpi_rto, 'rto %d' % tcpi_rto", "string literals other than a whole assert message"},
                {"assert tcpi_rto, f'{tcpi_rto}'", "prefixed string literals"},
                {"assert tcpi_rto, '''x'''", "triple-quoted strings"},
                {"assert max(x for x in y)", "comprehensions"},
                {"assert min(1, key=abs)", "keyword arguments"},
                {"assert max(*x)", "argument unpacking"},
                {"assert tcpi_rto in (1, 2)", "'in' tests"},
                {"assert tcpi_rto not in (1, 2)", "'in' tests"},
                {"assert tcpi_rto is None", "'is' tests"},
                {"assert tcpi_rto != None", "None is"},
                {"x += 1", "augmented assignments"},
                {"a = b = 1", "chained assignments"},
                {"tcpi_rto + 1 = 2", "assignments to anything but a simple name"},
                {"abs = 3", "assignments to abs"},
                {"assert (x := 1)", "assignment expressions"},
                {"assert 2 ** -1 == 0.5", "'**' with a negative exponent"},
                {"assert 2.0 ** 2", "'**' with a float"},
                {"assert 1j", "complex numbers"},
                {"assert 1 @ 2", "matrix multiplications"},
                {"assert ...", "Ellipsis"},
                {"assert 1 << 20000", "integers of more than 13000 bits"},
                {"assert 10 ** 5000", "integers of more than 13000 bits"},
                {"assert " + "(".repeat(150) + "1" + ")".repeat(150), "nested more than 100 deep"},
                {"assert " + "1 + ".repeat(2000) + "1", "nested more than 500 deep"},
                {"\n   assert 1 == 1", "an indented line"},
                {"assert 1 ==", "cannot parse the %{ }% block as Python: the line ends early (line 1, column 12)"},
                {"assert 1\nassert 0777", "cannot parse the %{ }% block as Python: a decimal integer with a leading zero"},
                {"assert (1", "cannot parse the %{ }% block as Python: a bracket is never closed"},
                {"assert 1)", "unmatched ')'"},
                {"assert 1 $ 2", "unexpected character '$'"},
                {"assert 1 == 1 \\ 2", "a backslash not at the end of a line"},
                {"assert 'abc", "an unterminated string"},
                {"assert 1 2", "unexpected '2'"},
                {"assert 1; ; assert 2", "unexpected ';'"},
                {"assert 1.real", "a malformed number"},
        };
        for (String[] c : cases) assertThat(unsupported(c[0])).as(c[0]).contains(c[1]);
        // compiled before it runs: an unsupported construct anywhere, even after a failed assert
        assertThat(unsupported("assert 1 == 2\nfor x in y: pass")).contains("'for' loops");
    }

    @Test
    void surroundingSpacesAndTabsAreIgnoredAsPacketdrillDoes() throws Exception {
        assertThat(run(" \t assert tcpi_rto == 204000 \t").passed()).isTrue();
    }

    /** Random text, random token soup and pathological nesting: a Result or Unsupported, never anything else. */
    @Test
    void fuzzOnlyEverGivesAResultOrUnsupported() {
        String[] pieces = {"assert ", "tcpi_rto", "tcpi_x", "TCP_CA_Open", "x", " = ", "==", "!=", "<", "<=", ">", ">=",
            "+", "-", "*", "/", "//", "%", "**", "&", "|", "^", "~", "<<", ">>", "(", ")", "[", "]", "{", "}", ",",
            ";", ":", ".", "...", "@", "and ", " or ", "not ", "if ", "else ", "for ", "in ", "is ", "None", "True",
            "False", "lambda", "0", "1", "007", "0x", "0xff", "1e", "1e5", "1.5", ".5", "1_0", "99999999999999999999",
            "abs(", "min(", "max(", "print(", "'s'", "\"t", "'''", "f'", "#c", "\n", "\r\n", "\\\n", "\\", " ", "\t",
            "é", "\uD83D", "\u0000", "$", "?", "!", "`", "1j", "2 ** 99999", "1 << 99999", "0 <<", "1 / 0"};
        Random r = new Random(42);
        Function<String, Long> names = NAMES::get;
        List<String> inputs = new ArrayList<>();
        for (int k = 0; k < 10000; k++) {
            StringBuilder s = new StringBuilder();
            int n = r.nextInt(25);
            for (int j = 0; j < n; j++) {
                if (r.nextInt(4) == 0) s.append((char) r.nextInt(0x20, 0x7f));
                else s.append(pieces[r.nextInt(pieces.length)]);
            }
            inputs.add(s.toString());
            inputs.add("assert " + expression(r, 5));
        }
        inputs.addAll(List.of("(".repeat(5000) + "1" + ")".repeat(5000), "assert " + "-".repeat(20000) + "1",
                "assert " + "not ".repeat(5000) + "1", "assert " + "1+".repeat(30000) + "1",
                "assert " + "1 < ".repeat(5000) + "2", "assert " + "min(".repeat(3000) + "1" + ")".repeat(3000),
                "assert " + "2 ** ".repeat(3000) + "2", "assert " + "~".repeat(3000) + "1", "x = 1\n".repeat(3000),
                "assert " + "1 and ".repeat(20000) + "1", "assert " + "1 * ".repeat(5000) + "1", "\\", "'", "(", ")"));
        Map<String, Integer> outcomes = new HashMap<>();
        for (String in : inputs) {
            try {
                CodeBlock.Result res = CodeBlock.evaluate(in, names);
                assertThat(res.message()).isNotNull();
                outcomes.merge(res.passed() ? "passed" : "failed", 1, Integer::sum);
            } catch (CodeBlock.Unsupported u) {
                assertThat(u.getMessage()).isNotBlank();
                outcomes.merge("unsupported", 1, Integer::sum);
            } catch (Throwable t) {
                throw new AssertionError("evaluate threw " + t + " for: " + in, t);
            }
        }
        assertThat(outcomes).containsKeys("passed", "failed", "unsupported");
    }
}
