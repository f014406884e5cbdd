// SPDX-License-Identifier: Apache-2.0
package io.mvbt.cursor;

import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;

import io.mvbt.revisions.ReadView;
import io.mvbt.revisions.Tree;

/**
 * One scan of an index tree whose keys are {@link IndexKey}s: equality, prefix (LDAP
 * substring-initial), {@code >=}, {@code <=}, between, or presence (the whole tree). Immutable;
 * the same scan may run on many views.
 *
 * <p>{@link #estimate} counts the index keys the scan will read, exactly, in O(log n) from the
 * counted tree, before anything is materialized. It equals the size of the candidate set unless one
 * entry has several values in the scanned range (a multi-valued attribute), in which case it is an
 * upper bound.
 */
public final class IndexScan {
    /** What the scan selects. */
    public enum Kind {
        EQUALITY("="), PREFIX("=*"), GREATER_OR_EQUAL(">="), LESS_OR_EQUAL("<="), BETWEEN("between"),
        PRESENCE("present");

        private final String symbol;

        Kind(String symbol) {
            this.symbol = symbol;
        }
    }

    private final Tree index;
    private final String label;
    private final Kind kind;
    private final byte[] low;
    private final byte[] high;
    /** Bounds in key space: from inclusive (null: open), to exclusive (null: open). */
    private final byte[] fromKey;
    private final byte[] toKey;

    private IndexScan(Tree index, String label, Kind kind, byte[] low, byte[] high, byte[] fromKey, byte[] toKey) {
        this.index = index;
        this.label = label;
        this.kind = kind;
        this.low = low;
        this.high = high;
        this.fromKey = fromKey;
        this.toKey = toKey;
    }

    /** Entries with a value equal to {@code value}. {@code label} names the index in plans. */
    public static IndexScan equality(Tree index, String label, byte[] value) {
        byte[] prefix = IndexKey.valuePrefix(value);
        return new IndexScan(index, label, Kind.EQUALITY, value.clone(), null, prefix, IndexKey.prefixEnd(prefix));
    }

    /** Entries with a value starting with {@code prefix}. */
    public static IndexScan prefix(Tree index, String label, byte[] prefix) {
        byte[] start = IndexKey.startsWithPrefix(prefix);
        return new IndexScan(index, label, Kind.PREFIX, prefix.clone(), null, start.length == 0 ? null : start,
                IndexKey.prefixEnd(start));
    }

    /** Entries with a value {@code >= value}. */
    public static IndexScan atLeast(Tree index, String label, byte[] value) {
        return new IndexScan(index, label, Kind.GREATER_OR_EQUAL, value.clone(), null, IndexKey.valuePrefix(value),
                null);
    }

    /** Entries with a value {@code <= value}. */
    public static IndexScan atMost(Tree index, String label, byte[] value) {
        return new IndexScan(index, label, Kind.LESS_OR_EQUAL, null, value.clone(), null,
                IndexKey.prefixEnd(IndexKey.valuePrefix(value)));
    }

    /** Entries with a value in {@code [low, high]} (one value in both bounds). */
    public static IndexScan between(Tree index, String label, byte[] low, byte[] high) {
        return new IndexScan(index, label, Kind.BETWEEN, low.clone(), high.clone(), IndexKey.valuePrefix(low),
                IndexKey.prefixEnd(IndexKey.valuePrefix(high)));
    }

    /** Every entry in the index. */
    public static IndexScan presence(Tree index, String label) {
        return new IndexScan(index, label, Kind.PRESENCE, null, null, null, null);
    }

    public Tree index() {
        return index;
    }

    public Kind kind() {
        return kind;
    }

    private Range range(ReadView view) {
        Range range = Range.over(view, index);
        if (fromKey != null) {
            range = range.from(fromKey);
        }
        if (toKey != null) {
            range = range.toExclusive(toKey);
        }
        return range;
    }

    /** Index keys the scan reads on {@code view}, exactly, in O(log n). */
    public long estimate(ReadView view) {
        if (fromKey != null && toKey != null && java.util.Arrays.compareUnsigned(fromKey, toKey) >= 0) {
            return 0;
        }
        return range(view).count();
    }

    /** The ids the scan finds on {@code view}. Reads keys in place; allocates nothing per key. */
    public CandidateSet materialize(ReadView view) {
        CandidateSet.Builder ids = CandidateSet.builder();
        if (estimate(view) == 0) {
            return ids.build();
        }
        try (RangeCursor c = range(view).cursor()) {
            while (c.next()) {
                org.agrona.DirectBuffer key = c.key();
                ids.add(key.getLong(key.capacity() - Long.BYTES, ByteOrder.BIG_ENDIAN));
            }
        }
        return ids.build();
    }

    @Override
    public String toString() {
        String where = "index " + label;
        switch (kind) {
            case PRESENCE:
                return where + " " + kind.symbol;
            case BETWEEN:
                return where + " between " + show(low) + " and " + show(high);
            case LESS_OR_EQUAL:
                return where + " " + kind.symbol + " " + show(high);
            case PREFIX:
                return where + " prefix " + show(low);
            default:
                return where + " " + kind.symbol + " " + show(low);
        }
    }

    private static String show(byte[] value) {
        return '"' + new String(value, StandardCharsets.UTF_8) + '"';
    }
}
