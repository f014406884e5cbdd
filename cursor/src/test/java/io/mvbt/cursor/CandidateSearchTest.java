// SPDX-License-Identifier: Apache-2.0
package io.mvbt.cursor;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.TreeMap;
import java.util.function.LongPredicate;

import org.junit.jupiter.api.Test;

import io.mvbt.revisions.Snapshot;
import io.mvbt.revisions.Store;
import io.mvbt.revisions.Tree;
import io.mvbt.revisions.WriteTxn;

/**
 * Index scans, the filter algebra and candidate cursors over a small store: a master tree of ids to
 * "colour,size" strings and an index per field; results checked against the model.
 */
class CandidateSearchTest {
    private static final String[] COLOURS = {"red", "green", "blue", "grey", "greenish", ""};
    private final TreeMap<Long, String[]> model = new TreeMap<>();
    private Tree master;
    private Tree colours;
    private Tree sizes;

    private static byte[] utf8(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    private Store load(int entries, long seed) {
        Store store = Store.inMemory();
        Random random = new Random(seed);
        try (WriteTxn tx = store.beginWrite()) {
            master = tx.createTree("master");
            colours = tx.createTree("colour");
            sizes = tx.createTree("size");
            for (long id = 1; id <= entries; id++) {
                String colour = COLOURS[random.nextInt(COLOURS.length)];
                String size = String.format("%03d", random.nextInt(200));
                model.put(id, new String[] {colour, size});
                tx.put(master, IndexKey.idKey(id), utf8(colour + "," + size));
                tx.put(colours, IndexKey.encode(utf8(colour), id), new byte[0]);
                tx.put(sizes, IndexKey.encode(utf8(size), id), new byte[0]);
            }
            tx.commit();
        }
        return store;
    }

    private CandidateSet expected(LongPredicate matches) {
        CandidateSet.Builder b = CandidateSet.builder();
        model.keySet().stream().filter(matches::test).forEach(b::add);
        return b.build();
    }

    private static Query.EntryTest colourIs(String colour) {
        return (id, entry) -> new String(entry, StandardCharsets.UTF_8).split(",", -1)[0].equals(colour);
    }

    @Test
    void scansEstimateExactlyAndFindTheirIds() {
        try (Store store = load(2000, 1); Snapshot s = store.beginRead()) {
            IndexScan eq = IndexScan.equality(colours, "colour", utf8("green"));
            CandidateSet green = expected(id -> model.get(id)[0].equals("green"));
            assertEquals(green.size(), eq.estimate(s));
            assertEquals(green, eq.materialize(s));

            IndexScan prefix = IndexScan.prefix(sizes, "size", utf8("1"));
            assertEquals(expected(id -> model.get(id)[1].startsWith("1")), prefix.materialize(s));
            assertEquals(prefix.materialize(s).size(), prefix.estimate(s));

            IndexScan ge = IndexScan.atLeast(sizes, "size", utf8("150"));
            assertEquals(expected(id -> model.get(id)[1].compareTo("150") >= 0), ge.materialize(s));
            IndexScan le = IndexScan.atMost(sizes, "size", utf8("050"));
            assertEquals(expected(id -> model.get(id)[1].compareTo("050") <= 0), le.materialize(s));
            assertEquals(le.materialize(s).size(), le.estimate(s));
            IndexScan between = IndexScan.between(sizes, "size", utf8("040"), utf8("060"));
            assertEquals(expected(id -> model.get(id)[1].compareTo("040") >= 0 && model.get(id)[1].compareTo("060") <= 0),
                    between.materialize(s));
            assertEquals(0, IndexScan.between(sizes, "size", utf8("9"), utf8("1")).estimate(s));
            assertEquals(model.size(), IndexScan.presence(colours, "colour").estimate(s));
            // The empty value is a value: equality finds it, and it is not the prefix "" of everything.
            assertEquals(expected(id -> model.get(id)[0].isEmpty()),
                    IndexScan.equality(colours, "colour", new byte[0]).materialize(s));
            assertEquals(model.size(), IndexScan.prefix(colours, "colour", new byte[0]).estimate(s));
        }
    }

    @Test
    void algebraMatchesTheModelAndOrdersAndByEstimate() {
        try (Store store = load(3000, 2); Snapshot s = store.beginRead()) {
            CandidateSet scopeIds = expected(id -> id % 3 != 0);
            CandidateScope scope = CandidateScope.of(scopeIds, "ids not divisible by 3");
            QueryEvaluator evaluator = new QueryEvaluator(s, master, scope);

            Query greenish = Query.index(IndexScan.prefix(colours, "colour", utf8("green")));
            Query small = Query.index(IndexScan.atMost(sizes, "size", utf8("010")));
            Query notRed = Query.not(Query.index(IndexScan.equality(colours, "colour", utf8("red"))));
            Query greyScan = Query.scan("(colour=grey)", colourIs("grey"));
            Query q = Query.or(Query.and(greenish, small), Query.and(greyScan, notRed), Query.not(Query.or()));

            QueryEvaluator.Evaluation result = evaluator.evaluate(q);
            CandidateSet want = expected(id -> scopeIds.contains(id)
                    && ((model.get(id)[0].startsWith("green") && model.get(id)[1].compareTo("010") <= 0)
                            || model.get(id)[0].equals("grey")));
            // not(or()) is every entry of the scope
            assertEquals(scopeIds, result.ids());
            QueryEvaluator.Evaluation withoutAll = new QueryEvaluator(s, master, scope)
                    .evaluate(Query.or(Query.and(greenish, small), Query.and(greyScan, notRed)));
            assertEquals(want, withoutAll.ids());
            // An index term first, then an unindexed one over what it found: still only the scope's ids.
            QueryEvaluator.Evaluation indexThenScan = new QueryEvaluator(s, master, scope)
                    .evaluate(Query.and(small, Query.scan("(colour=red)", colourIs("red"))));
            assertEquals(expected(id -> scopeIds.contains(id) && model.get(id)[1].compareTo("010") <= 0
                    && model.get(id)[0].equals("red")), indexThenScan.ids());
            String plan = withoutAll.plan().toString();
            // The smaller index scan runs first inside the AND.
            assertTrue(plan.indexOf("size <= \"010\"") < plan.indexOf("colour prefix \"green\""), plan);
            assertTrue(plan.contains("scan (colour=grey)"), plan);
            assertEquals(want.size(), withoutAll.plan().actual());
        }
    }

    @Test
    void andStopsAtAnEmptySetAndChecksFewCandidatesInsteadOfScanning() {
        try (Store store = load(3000, 3); Snapshot s = store.beginRead()) {
            CandidateScope scope = CandidateScope.of(expected(id -> true), "all");
            Query none = Query.index(IndexScan.equality(colours, "colour", utf8("purple")));
            Query scan = Query.scan("(colour=red)", colourIs("red"));
            QueryEvaluator.Evaluation empty = new QueryEvaluator(s, master, scope).evaluate(Query.and(scan, none));
            assertTrue(empty.ids().isEmpty());
            QueryPlan and = empty.plan().children().get(0);
            assertTrue(and.children().get(1).skipped(), empty.plan().toString());
            assertEquals(0, empty.plan().totalFetched(), "the unindexed term fetched nothing");

            Query one = Query.index(IndexScan.equality(sizes, "size", utf8("007")));
            Query red = Query.index(IndexScan.equality(colours, "colour", utf8("red")), colourIs("red"));
            QueryEvaluator.Evaluation checked = new QueryEvaluator(s, master, scope).evaluate(Query.and(red, one));
            assertEquals(expected(id -> model.get(id)[0].equals("red") && model.get(id)[1].equals("007")), checked.ids());
            assertTrue(checked.plan().toString().contains("check index colour = \"red\" on candidates"),
                    checked.plan().toString());
        }
    }

    @Test
    void aSmallScopeAndTheCandidatesOfANotAreCheckedInsteadOfScanningLargeIndexRanges() {
        try (Store store = load(3000, 5); Snapshot s = store.beginRead()) {
            // A base entry or the children of one entry: ten ids, far fewer than the red entries.
            CandidateSet few = expected(id -> id > 100 && id <= 110);
            CandidateScope scope = CandidateScope.of(few, "ten entries");
            Query red = Query.index(IndexScan.equality(colours, "colour", utf8("red")), colourIs("red"));
            QueryEvaluator.Evaluation inScope = new QueryEvaluator(s, master, scope).evaluate(red);
            assertEquals(expected(id -> few.contains(id) && model.get(id)[0].equals("red")), inScope.ids());
            assertEquals(10, inScope.plan().totalFetched(), inScope.plan().toString());
            assertTrue(inScope.plan().toString().contains("check index colour = \"red\" on candidates"),
                    inScope.plan().toString());

            // The NOT of an AND tests the few candidates the AND left instead of scanning its index range.
            CandidateScope all = CandidateScope.of(expected(id -> true), "all");
            Query size = Query.index(IndexScan.equality(sizes, "size", utf8("007")));
            Query greenish = Query.index(IndexScan.prefix(colours, "colour", utf8("green")),
                    (id, entry) -> new String(entry, StandardCharsets.UTF_8).startsWith("green"));
            QueryEvaluator.Evaluation notGreen = new QueryEvaluator(s, master, all)
                    .evaluate(Query.and(size, Query.not(greenish)));
            CandidateSet sized = expected(id -> model.get(id)[1].equals("007"));
            assertEquals(expected(id -> model.get(id)[1].equals("007") && !model.get(id)[0].startsWith("green")),
                    notGreen.ids());
            assertEquals(sized.size(), notGreen.plan().totalFetched(), notGreen.plan().toString());
            assertTrue(notGreen.plan().toString().contains("check index colour prefix \"green\" on candidates"),
                    notGreen.plan().toString());

            // A scope as large as the index range is not materialized: the index is scanned.
            CandidateScope most = CandidateScope.of(expected(id -> id % 7 != 0), "most");
            QueryEvaluator.Evaluation scanned = new QueryEvaluator(s, master, most).evaluate(red);
            assertEquals(0, scanned.plan().totalFetched(), scanned.plan().toString());
            assertEquals(expected(id -> id % 7 != 0 && model.get(id)[0].equals("red")), scanned.ids());
        }
    }

    @Test
    void cursorMovesBothWaysSeeksSkipsAndFetchesFromItsSnapshot() {
        try (Store store = load(500, 4)) {
            Snapshot s = store.beginRead();
            CandidateSet ids = IndexScan.equality(colours, "colour", utf8("blue")).materialize(s);
            long[] all = ids.toArray();
            try (WriteTxn tx = store.beginWrite()) {
                for (long id : all) {
                    tx.delete(master, IndexKey.idKey(id)); // later commits do not reach the snapshot
                }
                tx.commit();
            }
            try (CandidateCursor c = new CandidateCursor(s, master, ids)) {
                List<Long> forward = new ArrayList<>();
                while (c.next()) {
                    forward.add(c.id());
                    assertEquals(forward.size() - 1, c.position());
                    assertTrue(new String(c.entry(), StandardCharsets.UTF_8).startsWith("blue,"));
                }
                assertEquals(all.length, forward.size());
                assertEquals(all.length, c.position());
                List<Long> backward = new ArrayList<>();
                while (c.prev()) {
                    backward.add(0, c.id());
                }
                assertEquals(forward, backward);
                assertEquals(-1, c.position());
                assertTrue(c.last());
                assertEquals(all[all.length - 1], c.id());
                assertTrue(c.first());
                assertTrue(c.skip(10));
                assertEquals(all[10], c.id());
                assertTrue(c.prev());
                assertEquals(all[9], c.id());
                assertTrue(c.seek(all[20] - 1 == all[19] ? all[20] : all[19] + 1));
                assertEquals(all[20], c.id());
                assertTrue(c.next());
                assertEquals(all[21], c.id());
                assertFalse(c.seek(all[all.length - 1] + 1));
                assertTrue(c.prev());
                assertEquals(all[all.length - 1], c.id());
                assertFalse(c.skip(all.length));
                assertThrows(IllegalStateException.class, c::id);
                // Skips as far as a long goes stop at either end instead of wrapping to the other.
                assertFalse(c.skip(Long.MIN_VALUE));
                assertEquals(-1, c.position());
                assertFalse(c.skip(Long.MIN_VALUE));
                assertEquals(-1, c.position());
                assertFalse(c.skip(Long.MAX_VALUE));
                assertEquals(all.length, c.position());
            }
            PagedResults paged = new PagedResults(7, s, master, ids);
            List<Long> seen = new ArrayList<>();
            PagedResults.Page page = paged.first(7);
            while (true) {
                page.candidates().forEach(candidate -> seen.add(candidate.id()));
                if (page.isLast()) {
                    break;
                }
                page = paged.page(ResumeToken.decode(page.next().encode()), 7);
            }
            assertArrayEquals(all, seen.stream().mapToLong(Long::longValue).toArray());
            ResumeToken token = paged.first(3).next();
            s.close();
            ResumeTokenExpiredException e = assertThrows(ResumeTokenExpiredException.class, () -> paged.page(token, 3));
            assertTrue(e.getMessage().contains("closed"), e.getMessage());
        }
    }
}
