// SPDX-License-Identifier: Apache-2.0
package io.mvbt.tools;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;

import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

import io.mvbt.CorruptionException;
import io.mvbt.revisions.NamedRevision;
import io.mvbt.revisions.Snapshot;
import io.mvbt.revisions.Store;
import io.mvbt.revisions.StoreStats;
import io.mvbt.revisions.TreeStats;

/** Store and per-tree statistics, as mdb_stat prints them. */
@Command(name = "stat", mixinStandardHelpOptions = true,
        description = "Print the store's revisions, pages, snapshots and named revisions (with the pages each alone"
                + " pins), and each tree's entries, depth and pages.")
final class StatCommand implements Callable<Integer> {
    @Parameters(index = "0", paramLabel = "STORE", description = "The store file.")
    Path store;

    @Option(names = "--json", description = "Print one JSON object instead (for scripts and monitoring).")
    boolean json;

    @Override
    public Integer call() {
        try (Store s = StoreFiles.openExisting(store); Snapshot snapshot = s.beginRead()) {
            if (json) {
                return json(s, snapshot);
            }
            StoreStats st = s.stats();
            System.out.printf("store %s%n", store);
            System.out.printf("  revision %,d (durable %,d), page size %,d%n", st.revision(), st.durableRevision(),
                    st.pageSize());
            if (s.isReadOnly()) {
                System.out.printf("  pages: %,d in the file (free space: known to the writer, which has the store"
                        + " open)%n", st.pagesInFile());
            } else {
                System.out.printf("  pages: %,d in the file, %,d in use, %,d free, %,d waiting for readers%n",
                        st.pagesInFile(), st.pagesInUse(), st.pagesFree(), st.pagesWaitingForReaders());
            }
            long others = s.readers().stream().filter(r -> !r.checkpoint()).count() - 1;
            System.out.printf("  other snapshots open: %,d (mvbt readers lists them)%n", others);
            List<NamedRevision> named = s.namedRevisions();
            System.out.printf("  named revisions: %,d%n", named.size());
            for (NamedRevision n : named) {
                String pins = n.pinnedPages() < 0 ? "pages it alone pins: known to the writer, which has the store open"
                        : String.format("pins %,d pages (%,d bytes) no other holds", n.pinnedPages(),
                                n.pinnedPages() * st.pageSize());
                System.out.printf("  named '%s': revision %,d, committed %s, %s%n", n.name(), n.revision(),
                        java.time.Instant.ofEpochMilli(n.commitMillis()), pins);
            }
            s.droppedRevisions().forEach(d -> System.out.println("  damaged: a newer " + d));
            int damaged = s.droppedRevisions().size();
            for (String name : snapshot.treeNames()) {
                System.out.printf("tree '%s'%n", name);
                TreeStats t;
                try {
                    t = snapshot.treeStats(s.tree(name));
                } catch (CorruptionException e) {
                    // One damaged tree says nothing of the others: go on, and say so in the exit status.
                    System.out.printf("  damaged: %s (mvbt check lists every problem)%n", e.getMessage());
                    damaged++;
                    continue;
                }
                System.out.printf("  entries %,d, depth %d%n", t.entries(), t.depth());
                System.out.printf("  pages: %,d branch, %,d leaf, %,d overflow; leaf fill %.1f%%%n", t.branchPages(),
                        t.leafPages(), t.overflowPages(), t.fill() * 100);
            }
            return damaged == 0 ? ExitCodes.OK : ExitCodes.DAMAGED;
        }
    }

    /** What the text says, as JSON; a read-only open leaves the free-space counts null. */
    private Integer json(Store s, Snapshot snapshot) {
        StoreStats st = s.stats();
        Map<String, Object> out = new LinkedHashMap<>();
        out.put("store", store.toString());
        out.put("revision", st.revision());
        out.put("durableRevision", st.durableRevision());
        out.put("pageSize", st.pageSize());
        Map<String, Object> pages = new LinkedHashMap<>();
        pages.put("inFile", st.pagesInFile());
        pages.put("inUse", s.isReadOnly() ? null : st.pagesInUse());
        pages.put("free", s.isReadOnly() ? null : st.pagesFree());
        pages.put("waitingForReaders", s.isReadOnly() ? null : st.pagesWaitingForReaders());
        out.put("pages", pages);
        out.put("otherSnapshots", s.readers().stream().filter(r -> !r.checkpoint()).count() - 1);
        out.put("droppedRevisions", s.droppedRevisions());
        List<Object> named = new ArrayList<>();
        for (NamedRevision n : s.namedRevisions()) {
            Map<String, Object> entry = new LinkedHashMap<>();
            entry.put("name", n.name());
            entry.put("revision", n.revision());
            entry.put("commitMillis", n.commitMillis());
            // Null where only the writer knows (a read-only open beside it).
            entry.put("pinnedPages", n.pinnedPages() < 0 ? null : n.pinnedPages());
            named.add(entry);
        }
        out.put("namedRevisions", named);
        List<Object> trees = new ArrayList<>();
        boolean damaged = !s.droppedRevisions().isEmpty();
        for (String name : snapshot.treeNames()) {
            Map<String, Object> tree = new LinkedHashMap<>();
            tree.put("name", name);
            try {
                TreeStats t = snapshot.treeStats(s.tree(name));
                tree.put("entries", t.entries());
                tree.put("depth", t.depth());
                tree.put("branchPages", t.branchPages());
                tree.put("leafPages", t.leafPages());
                tree.put("overflowPages", t.overflowPages());
                tree.put("leafFill", t.fill());
            } catch (CorruptionException e) {
                tree.put("damaged", e.getMessage());
                damaged = true;
            }
            trees.add(tree);
        }
        out.put("trees", trees);
        out.put("damaged", damaged);
        System.out.println(Json.write(out));
        return damaged ? ExitCodes.DAMAGED : ExitCodes.OK;
    }
}
