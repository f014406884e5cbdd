// SPDX-License-Identifier: Apache-2.0
package io.mvbt.pagestore.redis;

import java.nio.charset.StandardCharsets;

/**
 * The Redis keys of one store. The meta and lease keys share a hash tag, so in a cluster they live
 * in one slot and one script can check the lease and switch the meta together; page keys have no
 * tag, so pages spread over every node.
 */
final class RedisKeys {
    /** Fields of the meta hash besides the meta slots ("0" to "3"). */
    static final byte[] PAGE_SIZE = bytes("pageSize");
    static final byte[] PAGE_COUNT = bytes("pageCount");
    static final byte[] RESERVED = bytes("reserved");
    /** The newest meta of the slots ({@link MetaHead}). */
    static final byte[] HEAD = bytes("head");

    final String name;
    final byte[] meta;
    final byte[] lease;
    final byte[] readers;
    private final String pagePrefix;

    RedisKeys(String name) {
        if (name.isEmpty() || name.length() > 200 || name.indexOf('{') >= 0 || name.indexOf('}') >= 0) {
            throw new IllegalArgumentException("a store name is 1 to 200 characters without braces: '" + name + "'");
        }
        this.name = name;
        this.meta = bytes("{mvbt:" + name + "}:meta");
        this.lease = bytes("{mvbt:" + name + "}:lease");
        this.readers = bytes("{mvbt:" + name + "}:readers");
        this.pagePrefix = "mvbt:" + name + ":p:";
    }

    byte[] page(long pageNo) {
        return bytes(pagePrefix + pageNo);
    }

    /** A SCAN pattern that matches every page key of the store (and perhaps others, which {@link #pageNumber} refuses). */
    String pagePattern() {
        return pagePrefix.replaceAll("([*?\\[\\]\\\\])", "\\\\$1") + "*";
    }

    /** The page number of a page key of this store, or -1 for any other key. */
    long pageNumber(String key) {
        if (!key.startsWith(pagePrefix) || key.length() == pagePrefix.length() || key.length() > pagePrefix.length() + 18) {
            return -1;
        }
        for (int i = pagePrefix.length(); i < key.length(); i++) {
            if (key.charAt(i) < '0' || key.charAt(i) > '9') {
                return -1;
            }
        }
        return Long.parseLong(key.substring(pagePrefix.length()));
    }

    /** The meta hash field of meta slot {@code slot}. */
    static byte[] slotField(int slot) {
        return bytes(Integer.toString(slot));
    }

    static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    static String text(byte[] b) {
        return new String(b, StandardCharsets.UTF_8);
    }
}
