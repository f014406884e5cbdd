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
import io.mvbt.revisions.Snapshot;
import io.mvbt.revisions.Store;
import io.mvbt.revisions.TreeStats;

/** The trees of a store, one line each: what {@code stat} says of them, in a table. */
@Command(name = "ls", mixinStandardHelpOptions = true,
        description = "List the trees of the newest revision: entries, depth and pages (branch, leaf and overflow).")
final class LsCommand implements Callable<Integer> {
    @Parameters(index = "0", paramLabel = "STORE", description = "The store file.")
    Path store;

    @Option(names = "--json", description = "Print one JSON object instead (for scripts and monitoring).")
    boolean json;

    @Override
    public Integer call() {
        List<Map<String, Object>> trees = new ArrayList<>();
        boolean damaged;
        long revision;
        try (Store s = StoreFiles.openExisting(store); Snapshot snapshot = s.beginRead()) {
            revision = snapshot.revision();
            damaged = !s.droppedRevisions().isEmpty();
            for (String name : snapshot.treeNames()) {
                Map<String, Object> tree = new LinkedHashMap<>();
                tree.put("name", name);
                try {
                    TreeStats t = snapshot.treeStats(s.tree(name));
                    tree.put("entries", t.entries());
                    tree.put("depth", t.depth());
                    tree.put("pages", t.branchPages() + t.leafPages() + t.overflowPages());
                } catch (CorruptionException e) {
                    tree.put("damaged", e.getMessage());
                    damaged = true;
                }
                trees.add(tree);
            }
        }
        if (json) {
            Map<String, Object> out = new LinkedHashMap<>();
            out.put("store", store.toString());
            out.put("revision", revision);
            out.put("trees", trees);
            out.put("damaged", damaged);
            System.out.println(Json.write(out));
        } else {
            int width = Math.max(4, trees.stream().mapToInt(t -> t.get("name").toString().length()).max().orElse(0));
            System.out.printf("%-" + width + "s %14s %6s %12s%n", "TREE", "ENTRIES", "DEPTH", "PAGES");
            for (Map<String, Object> t : trees) {
                if (t.containsKey("damaged")) {
                    System.out.printf("%-" + width + "s damaged: %s%n", t.get("name"), t.get("damaged"));
                } else {
                    System.out.printf("%-" + width + "s %,14d %6d %,12d%n", t.get("name"), t.get("entries"), t.get("depth"),
                            t.get("pages"));
                }
            }
        }
        StoreFiles.requireWritten(System.out);
        return damaged ? ExitCodes.DAMAGED : ExitCodes.OK;
    }
}
