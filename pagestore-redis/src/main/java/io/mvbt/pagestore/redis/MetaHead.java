// SPDX-License-Identifier: Apache-2.0
package io.mvbt.pagestore.redis;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;

/**
 * The newest meta of a store's meta slots: its slot, sequence and revision, and the store's id.
 * Every meta switch records it in the meta hash (field {@code head}, sealed in a sealed store), so
 * that meta slots deleted or put back from an older copy, which leave an older meta the newest of
 * the slots, disagree with it. Read from a meta page at the offsets docs/format.md gives, which
 * every format keeps.
 */
record MetaHead(int slot, long sequence, long revision, long storeId) {
    private static final byte[] MAGIC = "mvbt-met".getBytes(StandardCharsets.US_ASCII);
    private static final int MAGIC_OFFSET = 8;
    private static final int SEQUENCE = 24;
    private static final int REVISION = 32;
    private static final int STORE_ID = 144;

    /** The meta with the highest sequence among {@code slots} (meta pages; null or zeros where none), or null. */
    static MetaHead newest(byte[][] slots) {
        MetaHead newest = null;
        for (int slot = 0; slot < slots.length; slot++) {
            byte[] page = slots[slot];
            if (page == null || page.length < STORE_ID + 8
                    || !java.util.Arrays.equals(page, MAGIC_OFFSET, MAGIC_OFFSET + MAGIC.length, MAGIC, 0, MAGIC.length)) {
                continue;
            }
            ByteBuffer b = ByteBuffer.wrap(page).order(ByteOrder.LITTLE_ENDIAN);
            MetaHead m = new MetaHead(slot, b.getLong(SEQUENCE), b.getLong(REVISION), b.getLong(STORE_ID));
            if (newest == null || m.sequence > newest.sequence) {
                newest = m;
            }
        }
        return newest;
    }

    /** Whether this is older than {@code seen}, a head of the same store. */
    boolean olderThan(MetaHead seen) {
        return storeId == seen.storeId && (sequence < seen.sequence || revision < seen.revision);
    }

    /** As the meta hash keeps it: the four numbers in ASCII. */
    byte[] encode() {
        return (slot + " " + sequence + " " + revision + " " + storeId).getBytes(StandardCharsets.US_ASCII);
    }

    /** The head {@link #encode} wrote, or null if {@code bytes} is not one. */
    static MetaHead decode(byte[] bytes) {
        String[] f = new String(bytes, StandardCharsets.US_ASCII).split(" ", -1);
        if (f.length != 4) {
            return null;
        }
        try {
            MetaHead head = new MetaHead(Integer.parseInt(f[0]), Long.parseLong(f[1]), Long.parseLong(f[2]),
                    Long.parseLong(f[3]));
            return head.slot >= 0 && head.slot < 4 ? head : null;
        } catch (NumberFormatException e) {
            return null;
        }
    }

    @Override
    public String toString() {
        return "sequence " + sequence + ", revision " + revision + " (meta slot " + slot + ")";
    }
}
