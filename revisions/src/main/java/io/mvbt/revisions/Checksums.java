// SPDX-License-Identifier: Apache-2.0
package io.mvbt.revisions;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.zip.CRC32C;

import io.mvbt.btree.PageHeader;
import io.mvbt.pagestore.PageStore;

/**
 * CRC32C of pages through the JDK's intrinsic. Page checksums are
 * seeded with the store's random identity, so a page spliced in from another store (a misdirected
 * write, a mixed-up restore) fails its checksum even where page number and revision agree.
 */
final class Checksums {
    private final PageStore store;
    private volatile byte[] seed = new byte[8];
    /** Views of the meta slots, kept: a mapping replaced by growth still maps the same file bytes. */
    private final ByteBuffer[] metaViews = new ByteBuffer[PageStore.META_SLOTS];
    private final CRC32C metaCrc = new CRC32C();

    Checksums(PageStore store) {
        this.store = store;
    }

    /** Sets the store identity the page checksums are seeded with. */
    void seed(long storeId) {
        seed = ByteBuffer.allocate(8).order(ByteOrder.LITTLE_ENDIAN).putLong(storeId).array();
    }

    /** CRC32C of a run of pages, leaving out the checksum and the flags (the first 5 bytes). */
    int ofRun(long pageNo, int pages) {
        ByteBuffer memory = store.buffer(pageNo, pages);
        memory.position(PageHeader.CHECKSUMMED_FROM);
        CRC32C crc = new CRC32C();
        crc.update(seed);
        crc.update(memory);
        return (int) crc.getValue();
    }

    /** CRC32C of a run of pages held in {@code run} (position 0 to limit), as {@link #ofRun} would compute it. */
    int ofBuffer(ByteBuffer run) {
        run.position(PageHeader.CHECKSUMMED_FROM);
        CRC32C crc = new CRC32C();
        crc.update(seed);
        crc.update(run);
        return (int) crc.getValue();
    }

    /**
     * CRC32C of bytes [4, length) of a meta slot (which carries the identity itself). Called under
     * the store's meta lock or while opening, one thread at a time.
     */
    synchronized int ofMeta(int slot, int length) {
        ByteBuffer view = metaViews[slot];
        if (view == null) {
            view = store.buffer(slot, 1);
            metaViews[slot] = view;
        }
        view.limit(length).position(4);
        metaCrc.reset();
        metaCrc.update(view);
        return (int) metaCrc.getValue();
    }

    /** CRC32C of bytes [4, length) of a meta page built in {@code page}, as {@link #ofMeta(int, int)} computes it. */
    synchronized int ofMeta(ByteBuffer page, int length) {
        metaCrc.reset();
        metaCrc.update(page.duplicate().limit(length).position(4));
        return (int) metaCrc.getValue();
    }
}
