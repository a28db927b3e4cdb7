package io.loadgate.ledger.db;

import java.util.Collection;
import java.util.stream.Collectors;

/**
 * A set of states as the text of an SQL {@code IN (...)} list, for statements built once from an enum's own set
 * (e.g. {@code RunStatus.ACTIVE}) instead of spelling the states again. Only enum names are quoted, never input.
 */
public final class SqlLists {
    private SqlLists() {
    }

    /** {@code 'A', 'B'}: the names in the collection's order. */
    public static String quoted(Collection<? extends Enum<?>> states) {
        if (states.isEmpty()) {
            throw new IllegalArgumentException("an SQL IN list needs at least one state");
        }
        return states.stream().map(s -> "'" + s.name() + "'").collect(Collectors.joining(", "));
    }
}
