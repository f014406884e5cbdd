package io.mvbt.revisions;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;

import io.mvbt.pagestore.CorruptionException;
import io.mvbt.pagestore.PageStore;

/**
 * Chooses the revision a store opens at: the newest meta that can be trusted.
 *
 * <ul>
 * <li>A steady meta (written after its pages were synced) is trusted as it is.
 * <li>A meta written in the current boot is trusted: only the process died, the page cache holds
 * every page it wrote.
 * <li>A sealed meta is trusted if every page written after its durable revision is intact
 * (header, revision and checksum): a commit whose pages did not all reach the disk is rejected,
 * and the store opens at the commit before it.
 * </ul>
 */
final class Recovery {
    private Recovery() {
    }

    /** Valid metas of every slot, newest first. */
    static List<MetaPage.Record> readAll(PageStore store, Checksums checksums) {
        List<MetaPage.Record> metas = new ArrayList<>();
        // A truncated file may lack some slots: never read past its end.
        long slots = Math.min(PageStore.META_SLOTS, store.pageCount());
        for (int slot = 0; slot < slots; slot++) {
            MetaPage.Record m = MetaPage.read(store, checksums, slot);
            if (m != null) {
                metas.add(m);
            }
        }
        metas.sort(Comparator.comparingLong((MetaPage.Record m) -> m.sequence).reversed());
        // Metas of two stores (a page spliced in from another store's file): which one names this
        // store is not known, and opening at the wrong one would reuse and cut off this store's pages.
        for (MetaPage.Record m : metas) {
            if (m.storeId != metas.get(0).storeId) {
                throw new CorruptionException(-1, store.describe() + " holds meta pages of two stores (ids "
                        + Long.toHexString(metas.get(0).storeId) + " and " + Long.toHexString(m.storeId)
                        + "): a page copied in from another store; nothing was written");
            }
        }
        return metas;
    }

    /** The meta to open at. */
    static MetaPage.Record choose(PageStore store, List<MetaPage.Record> metas, PageAccess verifier) {
        if (metas.isEmpty()) {
            throw new CorruptionException(-1, "no valid meta page in " + store.describe()
                    + ": not an mvbt store, or every meta slot is damaged");
        }
        StringBuilder rejected = new StringBuilder();
        for (MetaPage.Record m : metas) {
            if (m.pageCount > store.pageCount()) {
                String why = "revision " + m.revision + " needs " + m.pageCount + " pages but the file holds "
                        + store.pageCount();
                // A durable revision, or one this boot's page cache still holds (only the process
                // died): the file lost pages that were written, which is damage, not a commit cut short.
                if (m.steady() || BootId.isCurrent(m.bootHigh, m.bootLow)) {
                    throw new CorruptionException(-1, store.describe() + " is truncated: "
                            + (m.steady() ? "durable " : "") + why + "; nothing was written");
                }
                rejected.append("; ").append(why);
                continue;
            }
            if (m.steady() || BootId.isCurrent(m.bootHigh, m.bootLow)) {
                return m;
            }
            if (!m.sealed()) {
                rejected.append("; revision ").append(m.revision).append(" was not synced before a restart");
                continue;
            }
            try {
                RevisionWalker.walk(verifier, m.catalog, m.fresh, freeMapOf(m, store.pageSize()), m.durableRevision,
                        (pageNo, revision, type, address, pages) -> { });
                return m;
            } catch (CorruptionException e) {
                rejected.append("; revision ").append(m.revision).append(" is incomplete (").append(e.getMessage())
                        .append(')');
            }
        }
        throw new CorruptionException(-1, "no meta of " + store.describe() + " can be trusted" + rejected);
    }

    private static FreeMap freeMapOf(MetaPage.Record m, int pageSize) {
        FreeMap map = new FreeMap(pageSize);
        map.set(m.freeRoot, m.freeRevision, m.freeHeight);
        return map;
    }
}
