package io.loadgate.worker.transform;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.loadgate.worker.job.JobSpec;
import io.loadgate.worker.job.JobSpecLoader;
import java.math.BigDecimal;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import org.apache.iceberg.Schema;
import org.apache.iceberg.data.GenericRecord;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.types.Types;
import org.junit.jupiter.api.Test;

class TransformChainTest {
    private static final Schema SCHEMA = new Schema(
            Types.NestedField.optional(1, "id", Types.LongType.get()),
            Types.NestedField.optional(2, "name", Types.StringType.get()),
            Types.NestedField.optional(3, "email", Types.StringType.get()),
            Types.NestedField.optional(4, "amount", Types.DecimalType.of(10, 2)),
            Types.NestedField.optional(5, "ratio", Types.DoubleType.get()),
            Types.NestedField.optional(6, "day", Types.StringType.get()));

    private static JobSpec job(String validation, String steps) {
        return JobSpecLoader.parse(Path.of("job.yaml"), """
                job_key: T
                source:
                  jdbc_url: jdbc:postgresql://127.0.0.1/x
                  table: t
                  split_column: id
                target:
                  table: lake.t
                  business_key_column: day
                staging:
                  root: file:///tmp/stage
                validation:
                  %s
                transform:
                  max_rejected: 5
                  steps:
                %s
                """.formatted(validation, steps.indent(4)));
    }

    private static Record row(Long id, String name, String email, String amount, Double ratio) {
        GenericRecord r = GenericRecord.create(SCHEMA);
        r.setField("id", id);
        r.setField("name", name);
        r.setField("email", email);
        r.setField("amount", amount == null ? null : new BigDecimal(amount));
        r.setField("ratio", ratio);
        r.setField("day", "2026-11-29");
        return r;
    }

    @Test
    void rewritesApplyInOrderAndLeaveNullsAlone() {
        TransformChain chain = TransformChain.bind(job("sum: [amount]", """
                - trim: [name, email]
                - lower: [email]
                - upper: [name]
                - null_if_blank: [name]
                """), SCHEMA, Map.of());
        Record kept = row(1L, "  Ada Lovelace ", " ADA@Example.ORG", "1.00", 0.5);
        Record blank = row(2L, "   ", null, "2.00", 0.5);

        assertThat(chain.apply(kept)).isNull();
        assertThat(chain.apply(blank)).isNull();

        assertThat(kept.getField("name")).isEqualTo("ADA LOVELACE");
        assertThat(kept.getField("email")).isEqualTo("ada@example.org");
        assertThat(blank.getField("name")).isNull();
        assertThat(blank.getField("email")).isNull();
        assertThat(chain.rewrites()).isTrue();
    }

    @Test
    void hashIsTheSha256OfTheUtf8Value() {
        TransformChain chain = TransformChain.bind(job("sum: [amount]", "- hash: [email]"), SCHEMA, Map.of());
        Record r = row(1L, null, "abc", "1.00", 0.5);

        chain.apply(r);

        assertThat(r.getField("email")).isEqualTo("ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
    }

    @Test
    void hmacIsKeyedByTheSecretTheEnvironmentHolds() {
        String steps = "- hmac: {columns: [email, name], key_env: PII_KEY}";
        TransformChain chain = TransformChain.bind(job("sum: [amount]", steps), SCHEMA, Map.of("PII_KEY", "key"));
        Record r = row(1L, "abc", "The quick brown fox jumps over the lazy dog", "1.00", 0.5);

        chain.apply(r);

        // RFC 4231-style reference: HMAC-SHA256("key", "The quick brown fox jumps over the lazy dog").
        assertThat(r.getField("email")).isEqualTo("f7bc83f430538424b13298e6aa6fb143ef4d59a14946175997479dbc2d1a3cd8");
        assertThat((String) r.getField("name")).isNotEqualTo("abc").hasSize(64);
        TransformChain otherKey = TransformChain.bind(job("sum: [amount]", steps), SCHEMA, Map.of("PII_KEY", "other"));
        Record again = row(1L, "abc", "The quick brown fox jumps over the lazy dog", "1.00", 0.5);
        otherKey.apply(again);
        assertThat(again.getField("email")).isNotEqualTo(r.getField("email"));
        assertThatThrownBy(() -> TransformChain.bind(job("sum: [amount]", steps), SCHEMA, Map.of()))
                .hasMessage("transform.steps[0]: hmac.key_env names PII_KEY, which is not set in the environment");
    }

    @Test
    void checksRejectWithAReasonAndTheFirstFailingCheckWins() {
        TransformChain chain = TransformChain.bind(job("sum: [amount]", """
                - require: [id]
                - range: {column: amount, min: 0, max: 100}
                - range: {column: ratio, max: 1}
                - match: {column: email, pattern: '[^@]+@[^@]+'}
                - max_length: {column: name, length: 3}
                """), SCHEMA, Map.of());

        assertThat(chain.apply(row(1L, "abc", "a@b", "100.00", 1.0))).as("bounds are inclusive").isNull();
        assertThat(chain.apply(row(1L, null, null, null, null))).as("null passes every check but require").isNull();
        assertThat(chain.apply(row(null, "abc", "nope", "-1", 9.0))).isEqualTo("require id: null");
        assertThat(chain.apply(row(1L, "abc", "a@b", "-0.01", 0.0))).isEqualTo("range amount: -0.01 is below 0");
        assertThat(chain.apply(row(1L, "abc", "a@b", "100.01", 0.0))).isEqualTo("range amount: 100.01 is above 100");
        assertThat(chain.apply(row(1L, "abc", "a@b", "1", Double.NaN))).isEqualTo("range ratio: NaN is not a number");
        assertThat(chain.apply(row(1L, "abc", "a@b@c", "1", 0.0)))
                .isEqualTo("match email: 'a@b@c' does not match [^@]+@[^@]+");
        assertThat(chain.apply(row(1L, "abcd", "a@b", "1", 0.0))).isEqualTo("max_length name: 4 characters, at most 3");
        assertThat(chain.rewrites()).isFalse();
    }

    @Test
    void rejectedRowsKeepTheirOriginalValues() {
        TransformChain chain = TransformChain.bind(job("sum: [amount]", """
                - upper: [name]
                - require: [id]
                """), SCHEMA, Map.of());
        List<Record> rejected = new ArrayList<>();
        List<String> reasons = new ArrayList<>();
        Iterator<Record> rows = TransformedRows.of(List.of(row(1L, "a", null, "1", 0.0), row(null, "b", null, "2", 0.0),
                row(3L, "c", null, "3", 0.0)).iterator(), chain, (r, why) -> {
                    rejected.add(r);
                    reasons.add(why);
                });
        List<Object> kept = new ArrayList<>();
        rows.forEachRemaining(r -> kept.add(r.getField("name")));

        assertThat(kept).containsExactly("A", "C");
        assertThat(rejected).extracting(r -> r.getField("name")).containsExactly("b");
        assertThat(reasons).containsExactly("require id: null");
    }

    @Test
    void aRejectedRowKeepsNoValueTheJobPseudonymisesInTheClear() {
        TransformChain chain = TransformChain.bind(job("sum: [amount]", """
                - upper: [name]
                - hmac: {columns: [email], key_env: PII_KEY}
                - require: [id]
                """), SCHEMA, Map.of("PII_KEY", "key"));
        List<Record> rejected = new ArrayList<>();
        TransformedRows.of(List.of(row(null, "ada", "The quick brown fox jumps over the lazy dog", "1", 0.0)).iterator(),
                chain, (r, why) -> rejected.add(r)).forEachRemaining(r -> { });

        assertThat(rejected).singleElement().satisfies(r -> {
            assertThat(r.getField("name")).as("other rewrites are not applied: as the source had it").isEqualTo("ada");
            assertThat(r.getField("email")).as("hashed as in the loaded rows")
                    .isEqualTo("f7bc83f430538424b13298e6aa6fb143ef4d59a14946175997479dbc2d1a3cd8");
        });
    }

    @Test
    void bindingRefusesStepsThatCannotApply() {
        assertThatThrownBy(() -> TransformChain.bind(job("sum: [amount]", "- trim: [nope]"), SCHEMA, Map.of()))
                .hasMessage("transform.steps[0] names column nope, which the source does not have");
        assertThatThrownBy(() -> TransformChain.bind(job("sum: [amount]", "- require: [id]\n- trim: [amount]"), SCHEMA, Map.of()))
                .hasMessageStartingWith("transform.steps[1]: trim may not rewrite amount: the job validates it");
        assertThatThrownBy(() -> TransformChain.bind(job("null_count: [email]", "- null_if_blank: [EMAIL]"), SCHEMA, Map.of()))
                .as("column names compare without case")
                .hasMessageStartingWith("transform.steps[0]: null_if_blank may not rewrite EMAIL");
        assertThatThrownBy(() -> TransformChain.bind(job("sum: [amount]", "- upper: [day]"), SCHEMA, Map.of()))
                .as("the business key decides the partition a row is published to")
                .hasMessageStartingWith("transform.steps[0]: upper may not rewrite day");
        assertThatThrownBy(() -> TransformChain.bind(job("sum: [amount]", "- lower: [ratio]"), SCHEMA, Map.of()))
                .hasMessage("transform.steps[0]: lower applies to text columns; ratio is double");
        assertThatThrownBy(() -> TransformChain.bind(job("sum: [amount]", "- range: {column: name, max: 1}"), SCHEMA, Map.of()))
                .hasMessage("transform.steps[0]: range needs a numeric column; name is string");
        assertThat(TransformChain.bind(job("sum: [amount]", "- require: [amount]\n- range: {column: amount, min: 0}"),
                SCHEMA, Map.of()).isEmpty()).as("checks may name validated columns").isFalse();
    }
}
