package io.loadgate.worker.source.files;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.core.JsonPointer;
import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.Example;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.Tuple;
import net.jqwik.api.statistics.Statistics;

/**
 * {@link AsciiJsonScanner} only ever accepts a line that Jackson's path ({@link JsonFields#read(String, Object[])})
 * accepts, with the same values of the same classes: over generated ASCII lines, valid and broken, and pointers into
 * them. Where it declines, Jackson reads the line; {@link JsonLineParserTest} checks that whole path.
 */
class AsciiJsonScannerTest {
    private static final List<String> POINTERS = List.of("/id", "/user/name", "/user", "/a", "/a/b", "/arr/0",
            "/arr/1/x", "/0", "/name", "/", "", "/n\u00e9", "/a~1b", "/zz/zz");
    private static final List<String> KEYS = List.of("\"id\"", "\"user\"", "\"name\"", "\"a\"", "\"b\"", "\"arr\"",
            "\"x\"", "\"0\"", "\"\"", "\"zz\"", "\"a/b\"", "\"n\\u00e9\"", "\"n\\u0061me\"", "\"q\\\"\"", "\"note\"");
    private static final List<String> SCALARS = List.of("0", "-0", "7", "-12", "2147483647", "2147483648",
            "-2147483648", "-2147483649", "999999999999999999", "-999999999999999999", "1000000000000000000",
            "9223372036854775807", "9223372036854775808", "123456789012345678901234567890", "1.5", "1.50", "100.0",
            "-0.0", "0.000", "0e5", "1e400", "-1e-400", "1E+2", "1e-2", "2.5E-3", "12345.678", "0.1", "1.0e0",
            "1e99", "1e9999", "1e99999", "0.000000000000000001", "0.0000000000000000001", "123456789.123456789",
            "12345678.123456789", "1e999999999", "9999999999.99", "4607.25", "12.3456",
            "true", "false", "null", "\"x\"", "\"\"", "\" 7 \"", "\"12\"", "\"2026-11-30T14:05:07\"", "\"x\\\"y\"",
            "\"\\u00e9t\\u00e9\"", "\"\\\\N\"", "\"a\\tb\\n\\r\\b\\f\\/\"", "\"\\u0041\\u007f\"", "\"\\ud83d\\ude00\"",
            "\"\\udc00\"", "\"\u007f\"", "\"\\u0000\"", "\"customer 104729\"");
    /** Characters that break a line in the ways a scanner could miss. */
    private static final String GARBAGE = "{}[],:\"\\ x01.eE-+tfnu\u0001\u0000\t\u000b\f/'";
    private static final List<String> SPACES = List.of("", "", "", "", "", " ", "\t", "\r", "  ", "\n");

    @Property(tries = 10_000)
    void whatTheScannerAcceptsJacksonAcceptsWithTheSameValues(@ForAll("lines") String line,
                                                           @ForAll("pointers") List<String> pointers) {
        JsonFields fields = fields(pointers);
        byte[] bytes = line.getBytes(StandardCharsets.US_ASCII);
        Object[] scanned = new Object[pointers.size()];
        boolean accepted = fields.scan(bytes, 0, bytes.length, scanned);
        Object jackson = jackson(fields, line, pointers.size());
        Statistics.label("scanner").collect(accepted ? "accepted"
                : jackson instanceof List ? "declined, Jackson accepts" : "declined, Jackson refuses");
        if (accepted) {
            assertThat(jackson).as("Jackson's read of %s at %s", line, pointers).isInstanceOf(List.class);
            assertThat(Arrays.asList(scanned)).as("%s at %s", line, pointers).isEqualTo(jackson);
            assertThat(classes(Arrays.asList(scanned))).isEqualTo(classes((List<?>) jackson));
        }
        // The whole path, bytes first, reads the line as Jackson does.
        Object[] read = new Object[pointers.size()];
        Object outcome;
        try {
            fields.read(bytes, 0, bytes.length, read);
            outcome = Arrays.asList(read);
        } catch (LineParser.Rejected e) {
            outcome = e.getMessage();
        }
        assertThat(outcome).isEqualTo(jackson);
    }

    @Property(tries = 2_000)
    void theScannerAcceptsWellFormedLinesOfScalars(@ForAll("plainLines") String line,
                                                  @ForAll("pointers") List<String> pointers) {
        JsonFields fields = fields(pointers);
        byte[] bytes = line.getBytes(StandardCharsets.US_ASCII);
        Object[] scanned = new Object[pointers.size()];
        boolean accepted = fields.scan(bytes, 0, bytes.length, scanned);
        Statistics.label("scanner").collect(accepted);
        Object jackson = jackson(fields, line, pointers.size());
        if (accepted) {
            assertThat(Arrays.asList(scanned)).as("%s at %s", line, pointers).isEqualTo(jackson);
            assertThat(classes(Arrays.asList(scanned))).isEqualTo(classes((List<?>) jackson));
        }
        Statistics.label("scanner").coverage(coverage -> coverage.check(true).percentage(p -> p > 30));
    }

    @Example
    void aBenchLineIsReadByTheScanner() {
        // FileBench.line's shape.
        String line = "{\"id\":4711,\"user\":{\"name\":\"customer 493349\"},\"amount\":4607.25,\"qty\":2309,"
                + "\"score\":12.3456,\"active\":false,\"ts\":\"2026-11-30T14:18:31\",\"note\":\"note 123 xxxx\"}";
        List<String> pointers = List.of("/id", "/user/name", "/amount", "/qty", "/score", "/active", "/ts", "/note");
        JsonFields fields = fields(pointers);
        byte[] bytes = line.getBytes(StandardCharsets.US_ASCII);
        Object[] values = new Object[pointers.size()];
        assertThat(fields.scan(bytes, 0, bytes.length, values)).isTrue();
        assertThat(Arrays.asList(values)).isEqualTo(jackson(fields, line, pointers.size()))
                .containsExactly(4711, "customer 493349", new BigDecimal("4607.25"), 2309, new BigDecimal("12.3456"),
                        "false", "2026-11-30T14:18:31", "note 123 xxxx");
    }

    @Example
    void aStringIsReadWhereverItsQuoteEscapeOrBadByteFallsInAWord() {
        // The scanner reads a string eight bytes at a time: each special byte at every offset of a word, after a name
        // and a value of every length up to three words.
        JsonFields fields = fields(List.of("/note", "/n"));
        String[] specials = {"", "\\\"", "\\n", "\\\\", "\\u0041", "\u007f", "~", " ", "!", "#", "[", "]"};
        for (String special : specials) {
            for (int before = 0; before <= 24; before++) {
                for (int after = 0; after <= 9; after++) {
                    String line = "{\"" + "k".repeat(before % 9) + "\":0,\"note\":\"" + "x".repeat(before) + special
                            + "y".repeat(after) + "\",\"n\":1}";
                    byte[] bytes = line.getBytes(StandardCharsets.US_ASCII);
                    Object[] values = new Object[2];
                    assertThat(fields.scan(bytes, 0, bytes.length, values)).as(line).isTrue();
                    assertThat(Arrays.asList(values)).as(line).isEqualTo(jackson(fields, line, 2));
                }
            }
        }
        // A control character or a byte that is not ASCII, anywhere in a string: declined.
        for (byte bad : new byte[] {0x00, 0x01, 0x1f, (byte) 0x80, (byte) 0xc3, (byte) 0xff}) {
            for (int before = 0; before <= 24; before++) {
                byte[] head = ("{\"note\":\"" + "x".repeat(before)).getBytes(StandardCharsets.US_ASCII);
                byte[] tail = "yyyyyyyyy\"}".getBytes(StandardCharsets.US_ASCII);
                byte[] bytes = new byte[head.length + 1 + tail.length];
                System.arraycopy(head, 0, bytes, 0, head.length);
                bytes[head.length] = bad;
                System.arraycopy(tail, 0, bytes, head.length + 1, tail.length);
                assertThat(fields.scan(bytes, 0, bytes.length, new Object[2])).as("0x%02x after %d", bad, before).isFalse();
            }
        }
        // A string that runs to the end of the line, its last word whole or not: declined.
        for (int length = 0; length <= 24; length++) {
            byte[] bytes = ("{\"note\":\"" + "x".repeat(length)).getBytes(StandardCharsets.US_ASCII);
            assertThat(fields.scan(bytes, 0, bytes.length, new Object[2])).as("unclosed, %d", length).isFalse();
        }
    }

    @Example
    void itDeclinesWhatItDoesNotReadItself() {
        JsonFields fields = fields(List.of("/a", "/b/c"));
        for (String line : List.of("{\"a\":{}}", "{\"a\":[1]}", "{\"b\\u0020\":1}", "{\"a\":\"\\ud800\"}",
                "{\"a\":1234567890123456789}", "{\"a\":1.234567890123456789}", "{\"a\":1e12345}",
                "{\"z\":" + "[".repeat(70) + "]".repeat(70) + "}", "{\"z\":\"" + "x".repeat(50_000) + "\"}",
                "{\"a\":01}", "{\"a\":-}", "{\"a\":1.}", "{\"a\":.5}", "{\"a\":1e}", "{\"a\":\"\u0001\"}",
                "{\"a\":1} x", "{\"a\":1}}", "{\"a\":1,}", "{\"a\":tru}", "{\"a\":truex}", "[{\"a\":1}]", "", " ")) {
            byte[] bytes = line.getBytes(StandardCharsets.US_ASCII);
            assertThat(fields.scan(bytes, 0, bytes.length, new Object[2])).as(line).isFalse();
        }
    }

    private static JsonFields fields(List<String> pointers) {
        return new JsonFields(pointers.stream().map(JsonPointer::compile).toList());
    }

    /** Jackson's path alone (the text's), as a list of values or the refusal's reason. */
    private static Object jackson(JsonFields fields, String line, int columns) {
        Object[] values = new Object[columns];
        try {
            fields.read(line, values);
            return Arrays.asList(values);
        } catch (LineParser.Rejected e) {
            return e.getMessage();
        }
    }

    private static List<Object> classes(List<?> values) {
        return values.stream().map(v -> v == null ? (Object) "null" : v.getClass()).toList();
    }

    @Provide
    Arbitrary<List<String>> pointers() {
        return Arbitraries.of(POINTERS).list().ofMinSize(1).ofMaxSize(4);
    }

    @Provide
    Arbitrary<String> plainLines() {
        Arbitrary<String> member = Combinators.combine(Arbitraries.of("\"id\"", "\"a\"", "\"b\"", "\"name\"", "\"x\""),
                Arbitraries.of(SCALARS)).as((key, value) -> key + ":" + value);
        Arbitrary<String> user = Arbitraries.of(SCALARS).map(v -> "\"user\":{\"name\":" + v + ",\"id\":1}");
        return Arbitraries.oneOf(member, user).list().ofMaxSize(6).map(m -> "{" + String.join(",", m) + "}");
    }

    @Provide
    Arbitrary<String> lines() {
        Arbitrary<String> object = object(3);
        Arbitrary<String> garbage = Arbitraries.strings().withChars(GARBAGE).ofMinLength(1).ofMaxLength(3);
        Arbitrary<Double> at = Arbitraries.doubles().between(0, 1);
        return Arbitraries.frequencyOf(
                Tuple.of(8, object),
                Tuple.of(2, Combinators.combine(object, at).as((o, a) -> o.substring(0, (int) (o.length() * a)))),
                Tuple.of(3, Combinators.combine(object, at, garbage).as((o, a, g) -> {
                    int i = (int) (o.length() * a);
                    return o.substring(0, i) + g + o.substring(i);
                })),
                Tuple.of(2, Combinators.combine(object, at).as((o, a) -> {
                    int i = Math.min((int) (o.length() * a), o.length() - 1);
                    return o.substring(0, i) + o.substring(i + 1);
                })),
                Tuple.of(1, Combinators.combine(object, garbage).as(String::concat)),
                Tuple.of(1, value(2)));
    }

    private Arbitrary<String> value(int depth) {
        Arbitrary<String> scalar = Arbitraries.of(SCALARS);
        if (depth == 0) {
            return scalar;
        }
        return Arbitraries.frequencyOf(Tuple.of(6, scalar),
                Tuple.of(2, Arbitraries.lazy(() -> object(depth - 1))),
                Tuple.of(1, Arbitraries.lazy(() -> array(depth - 1))));
    }

    private Arbitrary<String> object(int depth) {
        Arbitrary<String> space = Arbitraries.of(SPACES);
        Arbitrary<String> member = Combinators.combine(space, Arbitraries.of(KEYS), space, space, value(depth))
                .as((s1, key, s2, s3, v) -> s1 + key + s2 + ":" + s3 + v);
        return Combinators.combine(member.list().ofMaxSize(6), space, space)
                .as((members, before, after) -> before + "{" + String.join(",", members) + after + "}" + before);
    }

    private Arbitrary<String> array(int depth) {
        Arbitrary<String> space = Arbitraries.of(SPACES);
        return Combinators.combine(value(depth).list().ofMaxSize(3), space)
                .as((items, s) -> "[" + s + String.join(s + "," + s, items) + s + "]");
    }
}
