package io.mvbt.tools;

import java.nio.file.Path;
import java.util.concurrent.Callable;

import picocli.CommandLine.Command;
import picocli.CommandLine.Parameters;

import io.mvbt.CorruptionException;
import io.mvbt.revisions.Snapshot;
import io.mvbt.revisions.Store;
import io.mvbt.revisions.StoreStats;
import io.mvbt.revisions.TreeStats;

/** Store and per-tree statistics, as mdb_stat prints them. */
@Command(name = "stat", mixinStandardHelpOptions = true,
        description = "Print the store's revisions, pages and snapshots, and each tree's entries, depth and pages.")
final class StatCommand implements Callable<Integer> {
    @Parameters(index = "0", paramLabel = "STORE", description = "The store file.")
    Path store;

    @Override
    public Integer call() {
        try (Store s = StoreFiles.openExisting(store); Snapshot snapshot = s.beginRead()) {
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
}
