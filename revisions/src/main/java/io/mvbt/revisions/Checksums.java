package io.mvbt.revisions;

import java.nio.ByteBuffer;
import java.util.zip.CRC32C;

import io.mvbt.btree.PageHeader;
import io.mvbt.pagestore.PageStore;

/** CRC32C of pages, through the JDK's intrinsic (about 90 ns for 4 KiB here). */
final class Checksums {
    private Checksums() {
    }

    /** CRC32C of a run of pages, leaving out the checksum and the flags (the first 5 bytes). */
    static int ofRun(PageStore store, long pageNo, int pages) {
        ByteBuffer memory = store.buffer(pageNo, pages);
        memory.position(PageHeader.CHECKSUMMED_FROM);
        CRC32C crc = new CRC32C();
        crc.update(memory);
        return (int) crc.getValue();
    }

    /** CRC32C of bytes [4, length) of a page. */
    static int ofPrefix(PageStore store, long pageNo, int length) {
        ByteBuffer memory = store.buffer(pageNo, 1);
        memory.limit(length).position(4);
        CRC32C crc = new CRC32C();
        crc.update(memory);
        return (int) crc.getValue();
    }
}
