// SPDX-License-Identifier: Apache-2.0
package io.mvbt.revisions;

import io.mvbt.pagestore.PageStore;

/**
 * A file written in place whose transactions build their pages in {@link PrivatePages} and write
 * them with positional writes at commit: where every commit syncs, and the next store into a page
 * the sync cleaned would be a write fault. Checkpoints are those of the mapping.
 */
final class PrivatePath extends MappedPath {
    private final PrivatePages privatePages;

    PrivatePath(PageStore pages, Publisher publisher, ReaderRegistry registry, Health health, Prefaulter prefaulter,
            PrivatePages privatePages) {
        super(pages, publisher, registry, health, prefaulter);
        this.privatePages = privatePages;
    }

    /**
     * Kept as it was: every commit syncs, so a checkpoint's last pages are few, and the prototype of
     * steadying the first pass was measured on the mapped path only.
     */
    @Override
    public boolean steadiesFirstPass() {
        return false;
    }

    @Override
    public void begin() {
        privatePages.begin();
    }

    @Override
    public void allocated(long pageNo, int pages, long revision) {
        if (pages == 1) {
            privatePages.take(pageNo);
        }
    }

    @Override
    public long builtAddress(long pageNo) {
        return privatePages.address(pageNo);
    }

    @Override
    public void writingRun(long pageNo, int pages) {
        // A run of one page was taken as private by allocate: the run written here replaces it.
        privatePages.drop(pageNo, pages);
    }

    @Override
    public void writeBuilt() {
        privatePages.writeAll();
    }
}
