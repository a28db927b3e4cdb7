package io.loadgate.worker.source.files;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.core.JsonPointer;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.json.JsonMapper;
import io.loadgate.worker.job.FileColumnSpec;
import io.loadgate.worker.job.TransformStep;
import io.loadgate.worker.source.ColumnType;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.time.LocalDateTime;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.Example;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;

/**
 * The streaming NDJSON parser ({@link JsonFields}) gives what the tree per line it replaced gave: the same values, or
 * the same refusal with the same reason, over generated lines and columns ({@link #Tree} is that parser, kept here as
 * the oracle). One difference, on purpose: a float whose exponent is beyond BigDecimal's made the tree throw a
 * NumberFormatException out of the partition (failing it on every reissue); now it is a value's text like any other.
 */
class JsonLineParserTest {
    private static final List<String> TYPES = List.of("string", "int", "bigint", "decimal(12,2)", "double",
            "boolean", "date", "timestamp");
    private static final List<String> POINTERS = List.of("/a", "/b", "/a/b", "/a/a", "/arr", "/arr/0", "/arr/1",
            "/arr/0/b", "/a/0", "/0", "/a~1b", "/m~0n", "/", "/zz", "/arr/01", "/arr/-", "/é", "/a/b/a");
    private static final List<String> KEYS = List.of("\"a\"", "\"b\"", "\"arr\"", "\"0\"", "\"1\"", "\"a/b\"",
            "\"m~n\"", "\"\"", "\"\\u00e9\"", "\"zz\"", "\"01\"", "\"c\"", "\"\\u0061\"", "\"\u00e9\"");
    private static final List<String> SCALARS = List.of("1", "-0", "0", "7", "-12", "2147483647", "2147483648",
            "-2147483649", "9223372036854775807", "9223372036854775808", "123456789012345678901234567890",
            "1.5", "1.50", "100.0", "-0.0", "0.000", "1e400", "-1e-400", "1E+2", "12345.678", "0.1", "1.0e0",
            "1e99", "1e999999999", "-1e-999999999", "0e999999999", "0.0e-999999999", "100e2147483647",
            "9999999999.99", "99999999999.999",
            "true", "false", "null", "\"x\"", "\"\"", "\" 7 \"", "\"12\"", "\"true\"", "\"TRUE\"", "\"1.5\"",
            "\"2026-11-30T14:05:07\"", "\"2026-11-30\"", "\"2026-02-30\"", "\"x\\\"y\"", "\"\\u00e9t\\u00e9\"",
            "\"\\\\N\"", "\"a\\tb\"", "\"1e400\"", "\"\u00e9t\u00e9 \u20ac\"");
    private static final List<String> BROKEN = List.of("", " ", "  \t", "null", "1", "\"x\"", "[1]", "[]", "{",
            "}", "{}", "{} x", "{}{}", "{} null", "{}  ", "{\"a\":1} // c", "{\"a\":1,}", "{'a':1}", "{\"a\":NaN}",
            "{\"a\":01}", "{\"a\":\"\\q\"}", "{\"a\":\"\u0001\"}", "{\"a\":1}\u0000", "{\"a\":1", "{\"a\":[1,2}",
            "{\"a\" 1}", "{a:1}", "{\"a\":1}]", "[{\"a\":1}", "{\"a\":tru}", "{\"a\":\"x}", "\"\\q\"", "[1,",
            "1 x", "{\"a\":1e9999999999}", "{\"z\":1e9999999999,\"a\":1}", "[1e9999999999]",
            // Zeros among the first four bytes: Jackson's byte parser would take the line for UTF-16 or UTF-32.
            "\u0000{}", "{\u0000}", "\u0000\u0000{}", "{}\u0000", "\u0000", "{\"\u0000\":1}");
    private static final String GARBAGE = "{}[],:\" x1\\.e-";

    @Property(tries = 4000)
    void theStreamingParserGivesWhatTheTreeGave(@ForAll("lines") String line, @ForAll("columns") List<FileColumnSpec> specs) {
        assertSameAsTree(line, specs);
    }

    @Property(tries = 300)
    void linesThatAreNotObjectsOrNotJsonAreRefusedAsTheTreeRefusedThem(@ForAll("broken") String line,
                                                                     @ForAll("columns") List<FileColumnSpec> specs) {
        assertSameAsTree(line, specs);
    }

    @Example
    void theLastOfDuplicateKeysWinsWithEverythingBelowIt() {
        List<FileColumnSpec> specs = List.of(column("a", "bigint", "/a"), column("b", "bigint", "/n/b"),
                column("c", "bigint", "/n/c"), column("n", "string", "/n"));
        assertThat(parse("{\"a\":1,\"a\":2,\"n\":{\"b\":1},\"n\":{\"c\":2}}", specs))
                .containsExactly(2L, null, 2L, "{\"c\":2}");
        assertThat(parse("{\"n\":{\"b\":1,\"b\":5},\"a\":null}", specs)).containsExactly(null, 5L, null, "{\"b\":5}");
        assertThat(parse("{\"n\":{\"b\":1},\"n\":3,\"a\":7,\"a\":null}", specs)).containsExactly(null, null, null, "3");
        for (String line : List.of("{\"a\":1,\"a\":2,\"n\":{\"b\":1},\"n\":{\"c\":2}}", "{\"n\":{\"b\":1},\"n\":3}")) {
            assertSameAsTree(line, specs);
        }
    }

    @Example
    void aLineMalformedAfterTheFieldsItNeedsIsRefused() {
        List<FileColumnSpec> specs = List.of(column("id", "bigint", "/id"));
        assertThat(reason("{\"id\":1,\"z\":[1,}", specs))
                .isEqualTo("not JSON: Unexpected character ('}' (code 125)): expected a value");
        assertThat(reason("{\"id\":1} x", specs)).startsWith("not JSON: Unrecognized token 'x'");
        assertThat(reason("{\"id\":1}{\"id\":2}", specs)).startsWith("not JSON: Trailing token (of type START_OBJECT)");
        assertThat(reason("{\"id\":1,\"z\":\"\\q\"}", specs)).startsWith("not JSON: Unrecognized character escape 'q'");
        // Malformed JSON is the reason before a value that does not fit: the line is read to its end first.
        assertThat(reason("{\"id\":\"x\",\"z\":tru}", specs)).startsWith("not JSON: Unrecognized token 'tru'");
        assertThat(reason("{\"id\":\"x\",\"z\":1}", specs)).isEqualTo("id: 'x' is not of type bigint");
        assertThat(reason("[1,2]", specs)).isEqualTo("not a JSON object");
        assertThat(reason("[1,2", specs)).startsWith("not JSON: Unexpected end-of-input");
    }

    @Example
    void pointersReachNestedFieldsArrayElementsAndEscapedNames() {
        List<FileColumnSpec> specs = List.of(column("name", "string", "/user/name"), column("first", "int", "/tags/0"),
                column("second", "int", "/tags/1"), column("slash", "string", "/a~1b"), column("tilde", "string", "/m~0n"),
                column("field0", "string", "/o/0"), column("deep", "double", "/tags/2/x"));
        String line = "{\"user\":{\"id\":1,\"name\":\"ann\"},\"tags\":[5,6,{\"x\":2.50}],\"a/b\":\"s\",\"m~n\":\"t\","
                + "\"o\":{\"0\":\"zero\"},\"skip\":{\"deep\":[{\"q\":[1,2,{}]}]}}";
        assertThat(parse(line, specs)).containsExactly("ann", 5, 6, "s", "t", "zero", 2.5);
        assertSameAsTree(line, specs);
        assertThat(parse("{\"user\":\"ann\",\"tags\":{\"0\":7}}", specs)).containsExactly(null, 7, null, null, null,
                null, null);
    }

    @Example
    void numbersKeepTheTreesTextsAndRangesAndStringsAreReadAsText() {
        assertThat(parse("{\"d\":1.50,\"i\":\"12\",\"l\":9223372036854775807,\"s\":100.0,\"b\":\" true\","
                + "\"t\":\"2026-11-30T14:05:07\"}", List.of(column("d", "decimal(12,2)", null), column("i", "int", null),
                column("l", "bigint", null), column("s", "string", null), column("b", "boolean", null),
                column("t", "timestamp", null))))
                .containsExactly(new BigDecimal("1.50"), 12, Long.MAX_VALUE, "1E+2", true,
                        LocalDateTime.of(2026, 11, 30, 14, 5, 7));
        // The tree's BigDecimal has its zeros stripped: 1.0 is the int 1, 10.0 is 1E+1 and no int.
        assertThat(parse("{\"i\":1.0}", List.of(column("i", "int", null)))).containsExactly(1);
        assertThat(reason("{\"i\":10.0}", List.of(column("i", "int", null)))).isEqualTo("i: '1E+1' is not of type int");
        assertThat(reason("{\"i\":2147483648}", List.of(column("i", "int", null))))
                .isEqualTo("i: '2147483648' is not of type int");
        assertThat(reason("{\"d\":1e400}", List.of(column("d", "double", null)))).isEqualTo("d: '1E+400' is not of type double");
        assertThat(parse("{\"d\":-0.0}", List.of(column("d", "double", null)))).containsExactly(0.0);
        assertThat(reason("{\"o\":[1]}", List.of(column("o", "int", null)))).isEqualTo("o: a JSON array is not a int");
    }

    @Example
    void aFloatBeyondBigDecimalIsSkippedWhenNoColumnNamesItAndJudgedByItsTypeWhenOneDoes() {
        assertThat(parse("{\"z\":1e9999999999,\"a\":1}", List.of(column("a", "int", null)))).containsExactly(1);
        assertThat(reason("{\"a\":1e9999999999}", List.of(column("a", "decimal(12,2)", null))))
                .isEqualTo("a: '1e9999999999' is not of type decimal(12,2)");
        assertThat(reason("{\"a\":{\"b\":1e9999999999}}", List.of(column("a", "string", null)))).startsWith("not JSON: ");
    }

    @Example
    void aSyntaxErrorInsideASkippedValueRejectsTheLineAsTheTreeDid() {
        // Found by the property above: Jackson words this error differently when skipping than when reading a tree.
        assertSameAsTree("{\"a\":1,\"a\":{\"a\":1,\"a\":}1,\"a\":1}}", List.of(column("c0", "string", "/b")));
        assertThat(reason("{\"a\":{\"a\":}1}", List.of(column("c0", "string", "/b")))).startsWith("not JSON: ");
    }

    @Example
    void aFilesMalformedUtf8IsDecodedToReplacementCharactersAsBeforeNotRefusedByTheByteParser() {
        List<FileColumnSpec> specs = List.of(column("a", "string", "/a"), column("b", "int", "/b"));
        byte[] inString = {'{', '"', 'a', '"', ':', '"', (byte) 0xc3, '(', 'x', (byte) 0xff, '"', ',', '"', 'b', '"',
            ':', '1', '}'};
        assertThat(fromBytes(inString, specs)).isEqualTo(Arrays.asList("\ufffd(x\ufffd", 1));
        byte[] overlong = {'{', '"', 'a', '"', ':', '"', (byte) 0xc0, (byte) 0xaf, (byte) 0xed, (byte) 0xa0,
            (byte) 0x80, '"', '}'};
        assertThat(fromBytes(overlong, specs)).isEqualTo(streaming(new String(overlong, StandardCharsets.UTF_8), specs));
        byte[] outside = {'{', (byte) 0xff, '"', 'a', '"', ':', '1', '}'};
        assertThat(fromBytes(outside, specs)).asString().startsWith("not JSON: Unexpected character ('\ufffd'")
                .isEqualTo(streaming(new String(outside, StandardCharsets.UTF_8), specs));
    }

    private static void assertSameAsTree(String line, List<FileColumnSpec> specs) {
        Object expected;
        try {
            expected = Tree.outcome(line, specs);
        } catch (NumberFormatException e) {
            // The tree failed the read; the streaming parser gives values or a refusal, never an exception.
            streaming(line, specs);
            return;
        }
        Object actual = streaming(line, specs);
        if (expected instanceof String reason && reason.startsWith("not JSON: ")) {
            // Rejected alike; Jackson words a syntax error by the call that met it (a tree's read or a skip).
            assertThat(actual).as("line %s, columns %s", line, specs).asString().startsWith("not JSON: ");
        } else {
            assertThat(actual).as("line %s, columns %s", line, specs).isEqualTo(expected);
        }
    }

    /**
     * The row's values as a list, or the refusal's reason as a string; the same, to the word, from the line's text
     * as a mapper's row and from its UTF-8 bytes as a file's line (Jackson's byte parser when it is ASCII).
     */
    private static Object streaming(String line, List<FileColumnSpec> specs) {
        LineParser parser = LineParser.ofMapper(TransformStep.MapperOutput.JSON, specs);
        Object[] values = new Object[specs.size()];
        Object fromText;
        try {
            parser.parse(line, values);
            fromText = Arrays.asList(values);
        } catch (LineParser.Rejected e) {
            fromText = e.getMessage();
        }
        if (line.indexOf('\n') < 0 && !line.endsWith("\r")) {
            assertThat(fromBytes(line.getBytes(StandardCharsets.UTF_8), specs)).as("the bytes of %s", line)
                    .isEqualTo(fromText);
        }
        return fromText;
    }

    /** {@link #streaming} of a file's line, as the file's reader gives it to the parser. */
    private static Object fromBytes(byte[] line, List<FileColumnSpec> specs) {
        LineParser parser = LineParser.ofMapper(TransformStep.MapperOutput.JSON, specs);
        Object[] values = new Object[specs.size()];
        byte[] file = Arrays.copyOf(line, line.length + 1);
        file[line.length] = '\n';
        try (LineReader reader = new LineReader(new ByteArrayInputStream(file))) {
            assertThat(reader.advance()).isTrue();
            parser.parse(reader, values);
            return Arrays.asList(values);
        } catch (LineParser.Rejected e) {
            return e.getMessage();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static List<Object> parse(String line, List<FileColumnSpec> specs) {
        Object outcome = streaming(line, specs);
        assertThat(outcome).as("the values of %s", line).isInstanceOf(List.class);
        @SuppressWarnings("unchecked")
        List<Object> values = (List<Object>) outcome;
        return values;
    }

    private static String reason(String line, List<FileColumnSpec> specs) {
        Object outcome = streaming(line, specs);
        assertThat(outcome).as("the refusal of %s", line).isInstanceOf(String.class);
        return (String) outcome;
    }

    private static FileColumnSpec column(String name, String type, String from) {
        return new FileColumnSpec(name, type, from, null);
    }

    @Provide
    Arbitrary<List<FileColumnSpec>> columns() {
        Arbitrary<String[]> column = Combinators.combine(Arbitraries.of(POINTERS), Arbitraries.of(TYPES))
                .as((pointer, type) -> new String[] {pointer, type});
        return column.list().ofMinSize(1).ofMaxSize(5).map(list -> {
            List<FileColumnSpec> specs = new ArrayList<>();
            for (int i = 0; i < list.size(); i++) {
                specs.add(column("c" + i, list.get(i)[1], list.get(i)[0]));
            }
            return specs;
        });
    }

    @Provide
    Arbitrary<String> broken() {
        return Arbitraries.of(BROKEN);
    }

    @Provide
    Arbitrary<String> lines() {
        Arbitrary<String> object = object(3);
        Arbitrary<String> garbage = Arbitraries.strings().withChars(GARBAGE).ofMinLength(1).ofMaxLength(3);
        Arbitrary<String> trailing = Arbitraries.of(" x", "{}", " null", " ", "\t", ",", "//", "]", "}", " 1");
        return Arbitraries.frequencyOf(
                net.jqwik.api.Tuple.of(6, object),
                // Cut anywhere: malformed before, inside or after the fields the columns name.
                net.jqwik.api.Tuple.of(2, Combinators.combine(object, Arbitraries.doubles().between(0, 1))
                        .as((o, at) -> o.substring(0, (int) (o.length() * at)))),
                net.jqwik.api.Tuple.of(2, Combinators.combine(object, Arbitraries.doubles().between(0, 1), garbage)
                        .as((o, at, g) -> {
                            int i = (int) (o.length() * at);
                            return o.substring(0, i) + g + o.substring(i);
                        })),
                net.jqwik.api.Tuple.of(1, Combinators.combine(object, trailing).as(String::concat)),
                net.jqwik.api.Tuple.of(1, value(2)));
    }

    private Arbitrary<String> value(int depth) {
        Arbitrary<String> scalar = Arbitraries.of(SCALARS);
        if (depth == 0) {
            return scalar;
        }
        return Arbitraries.frequencyOf(net.jqwik.api.Tuple.of(6, scalar),
                net.jqwik.api.Tuple.of(2, Arbitraries.lazy(() -> object(depth - 1))),
                net.jqwik.api.Tuple.of(1, Arbitraries.lazy(() -> array(depth - 1))));
    }

    private Arbitrary<String> object(int depth) {
        Arbitrary<String> space = Arbitraries.of("", "", " ");
        Arbitrary<String> member = Combinators.combine(Arbitraries.of(KEYS), space, value(depth))
                .as((key, s, v) -> key + s + ":" + s + v);
        return member.list().ofMaxSize(5).map(members -> "{" + String.join(",", members) + "}");
    }

    private Arbitrary<String> array(int depth) {
        return value(depth).list().ofMaxSize(3).map(items -> "[" + String.join(", ", items) + "]");
    }

    /** The parser before the streaming one: a tree per line, then each column's pointer into it. */
    private static final class Tree {
        private static final ObjectMapper MAPPER = JsonMapper.builder()
                .enable(DeserializationFeature.USE_BIG_DECIMAL_FOR_FLOATS)
                .enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS)
                .build();

        static Object outcome(String line, List<FileColumnSpec> specs) {
            List<ColumnParser> columns = specs.stream().map(ColumnParser::of).toList();
            Object[] values = new Object[specs.size()];
            JsonNode root;
            try {
                root = MAPPER.readTree(line);
            } catch (JsonProcessingException e) {
                return "not JSON: " + e.getOriginalMessage();
            }
            if (root == null || !root.isObject()) {
                return "not a JSON object";
            }
            for (int i = 0; i < values.length; i++) {
                String from = specs.get(i).from() == null ? "/" + specs.get(i).name() : specs.get(i).from();
                JsonNode node = root.at(JsonPointer.compile(from));
                if (node.isMissingNode() || node.isNull()) {
                    values[i] = null;
                } else if (node.isContainerNode()) {
                    if (columns.get(i).column().type() != ColumnType.STRING) {
                        return columns.get(i).column().name() + ": a JSON " + (node.isArray() ? "array" : "object")
                                + " is not a " + columns.get(i).column().type().name().toLowerCase(Locale.ROOT);
                    }
                    values[i] = node.toString();
                } else {
                    try {
                        values[i] = columns.get(i).parse(node.isNumber() ? node.numberValue().toString() : node.asText());
                    } catch (IllegalArgumentException e) {
                        return e.getMessage();
                    }
                }
            }
            return Arrays.asList(values);
        }
    }
}
