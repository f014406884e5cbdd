// SPDX-License-Identifier: Apache-2.0
package io.mvbt.revisions;

import io.mvbt.btree.PageReader;

/** A page reader that counts the pages read through it, so that a diff can say what it cost. */
final class CountingReader implements PageReader {
    private final PageReader reader;
    private long reads;

    CountingReader(PageReader reader) {
        this.reader = reader;
    }

    @Override
    public int pageSize() {
        return reader.pageSize();
    }

    @Override
    public long page(long pageNo, long revision, int type) {
        reads++;
        return reader.page(pageNo, revision, type);
    }

    @Override
    public boolean prefetches() {
        return reader.prefetches();
    }

    @Override
    public void prefetch(long[] pageNos, int count) {
        reader.prefetch(pageNos, count);
    }

    long reads() {
        return reads;
    }
}
