// SPDX-License-Identifier: Apache-2.0
package io.mvbt.revisions;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;

import io.mvbt.CorruptionException;
import io.mvbt.pagestore.PageStore;

/**
 * Chooses the revision a store opens at: the newest meta that can be trusted.
 *
 * <ul>
 * <li>A steady meta (written after its pages were synced) is trusted as it is.
 * <li>Any other meta is trusted if every page written after its durable revision verifies:
 * header, revision and structure, and the checksum of every page the meta says is sealed (all of
 * them for a sealed meta, the one a SYNC commit writes). A commit whose pages did not all reach
 * the file is rejected, and the store opens at the commit before it.
 * <li>Unsealed pages (of NORMAL commits after the last checkpoint) are accepted only from a meta
 * of the current boot, or naming a {@link Shadows shadow} that is there (and was copied into the
 * file): only the process died, so the page cache holds what the writer wrote, and
 * their structure is checked in case the storage lost writes all the same (a network file system,
 * a writeback error). After a reboot such a meta is rejected: its pages may never have been
 * written.
 * </ul>
 *
 * Recovery never checksums a page it has not verified this way, and never accepts a page without
 * a checksum at or below the revision its meta says is sealed: the SEALED flag lies outside the
 * checksum, so damage can clear it.
 */
final class Recovery {
    private Recovery() {
    }

    /** The meta to open at, and the newer revisions rejected because their pages did not verify. */
    record Choice(MetaPage.Record meta, List<String> dropped) {
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
    static Choice choose(PageStore store, List<MetaPage.Record> metas, PageAccess access, Shadows shadows) {
        if (metas.isEmpty()) {
            throw MetaPage.noValidMeta(store);
        }
        StringBuilder rejected = new StringBuilder();
        List<String> dropped = new ArrayList<>();
        for (MetaPage.Record m : metas) {
            Shadows.checkNamed(shadows, m, store.describe());
            // Whether what held its unsealed pages is still there: this boot's page cache, or a shadow.
            boolean thisBoot = shadows != null ? shadows.present(m.bootHigh, m.bootLow)
                    : BootId.isCurrent(m.bootHigh, m.bootLow);
            if (m.pageCount > store.pageCount()) {
                String why = "revision " + m.revision + " needs " + m.pageCount + " pages but the file holds "
                        + store.pageCount();
                // A durable revision, or one this boot's page cache still holds (only the process
                // died): the file lost pages that were written, which is damage, not a commit cut short.
                if (m.steady() || thisBoot) {
                    throw new CorruptionException(-1, store.describe() + " is truncated: "
                            + (m.steady() ? "durable " : "") + why + "; nothing was written");
                }
                rejected.append("; ").append(why);
                continue;
            }
            if (m.steady()) {
                return new Choice(m, dropped);
            }
            if (!m.sealed() && !thisBoot) {
                rejected.append("; revision ").append(m.revision).append(" was not synced before a restart");
                continue;
            }
            try {
                RevisionWalker.walk(access.forMeta(sealedThrough(m), thisBoot), m.catalog, m.fresh,
                        freeMapOf(m, store.pageSize()), m.durableRevision, (pageNo, revision, type, address, pages) -> {
                        });
                return new Choice(m, dropped);
            } catch (CorruptionException e) {
                String why = "revision " + m.revision + " did not verify (" + e.getMessage() + ")";
                rejected.append("; ").append(why);
                dropped.add(why);
            }
        }
        throw new CorruptionException(-1, "no meta of " + store.describe() + " can be trusted" + rejected);
    }

    /** The revision through which every page of {@code m} carries a checksum. */
    static long sealedThrough(MetaPage.Record m) {
        return m.sealed() ? m.revision : m.durableRevision;
    }

    private static FreeMap freeMapOf(MetaPage.Record m, int pageSize) {
        FreeMap map = new FreeMap(pageSize);
        map.set(m.freeRoot, m.freeRevision, m.freeHeight);
        return map;
    }
}
