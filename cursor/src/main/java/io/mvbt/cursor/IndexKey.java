// SPDX-License-Identifier: Apache-2.0
package io.mvbt.cursor;

import java.util.Arrays;

/**
 * The key encoding of an index tree: one key per (value, entry id) pair, so an index holds no
 * lists that grow with the number of entries sharing a value, and a counted tree gives exact
 * counts of any value range in O(log n).
 *
 * <pre>
 *   key = escape(value) 0x00 0x01 id
 *   escape: every 0x00 byte of the value becomes 0x00 0xFF; other bytes are copied
 *   id: 8 bytes, big-endian
 * </pre>
 *
 * Why this shape:
 * <ul>
 * <li>Order. Keys compare as unsigned bytes. Two values compare as their escaped forms do until the
 * shorter one ends; there the shorter value's terminator {@code 0x00 0x01} meets either a byte
 * {@code >= 0x01} or an escaped zero {@code 0x00 0xFF}, and sorts first, so keys order by value
 * (unsigned bytes, shorter first), then by id.
 * <li>Equality. All keys of one value share the prefix {@code escape(value) 0x00 0x01}; nothing else
 * starts with it, because inside an escaped value a 0x00 is always followed by 0xFF.
 * <li>Prefix (LDAP substring-initial). Every value starting with {@code p} has a key starting with
 * {@code escape(p)} and no other key does, since {@code escape(p)} never ends in a lone 0x00.
 * <li>Ranges. {@code value >= v} starts at {@code escape(v) 0x00 0x01}; {@code value <= v} ends
 * before {@code escape(v) 0x00 0x02}.
 * </ul>
 * The id is the last 8 bytes of every key, so scans read it without decoding the value.
 */
public final class IndexKey {
    /** Bytes the encoding adds to a value without zero bytes: terminator and id. */
    public static final int OVERHEAD = 2 + Long.BYTES;

    private IndexKey() {
    }

    /** The key of {@code value} for entry {@code id}. */
    public static byte[] encode(byte[] value, long id) {
        byte[] escaped = escape(value);
        byte[] key = Arrays.copyOf(escaped, escaped.length + OVERHEAD);
        key[escaped.length] = 0x00;
        key[escaped.length + 1] = 0x01;
        putId(key, escaped.length + 2, id);
        return key;
    }

    /** Length of the key {@link #encode} makes for {@code value}. */
    public static int encodedLength(byte[] value) {
        int zeros = 0;
        for (byte b : value) {
            if (b == 0) {
                zeros++;
            }
        }
        return value.length + zeros + OVERHEAD;
    }

    /** The prefix shared by every key of {@code value} exactly. */
    public static byte[] valuePrefix(byte[] value) {
        byte[] escaped = escape(value);
        byte[] prefix = Arrays.copyOf(escaped, escaped.length + 2);
        prefix[escaped.length + 1] = 0x01;
        return prefix;
    }

    /** The prefix shared by every key whose value starts with {@code valuePrefix}. */
    public static byte[] startsWithPrefix(byte[] valuePrefix) {
        return escape(valuePrefix);
    }

    /**
     * The smallest key greater than every key starting with {@code prefix}, or null if there is none
     * (the prefix is all 0xFF bytes, or empty).
     */
    public static byte[] prefixEnd(byte[] prefix) {
        for (int i = prefix.length - 1; i >= 0; i--) {
            if (prefix[i] != (byte) 0xFF) {
                byte[] end = Arrays.copyOf(prefix, i + 1);
                end[i]++;
                return end;
            }
        }
        return null;
    }

    /** The entry id of an index key (its last 8 bytes). */
    public static long id(byte[] key) {
        if (key.length < OVERHEAD) {
            throw new IllegalArgumentException("an index key has at least " + OVERHEAD + " bytes, not " + key.length);
        }
        long id = 0;
        for (int i = key.length - Long.BYTES; i < key.length; i++) {
            id = (id << 8) | (key[i] & 0xFF);
        }
        return id;
    }

    /** The value an index key was made from. */
    public static byte[] value(byte[] key) {
        int end = key.length - OVERHEAD;
        byte[] out = new byte[end];
        int n = 0;
        for (int i = 0; i < end; i++) {
            out[n++] = key[i];
            if (key[i] == 0) {
                i++; // skip the 0xFF of an escaped zero
            }
        }
        return Arrays.copyOf(out, n);
    }

    static byte[] escape(byte[] value) {
        int zeros = 0;
        for (byte b : value) {
            if (b == 0) {
                zeros++;
            }
        }
        if (zeros == 0) {
            return value.clone();
        }
        byte[] out = new byte[value.length + zeros];
        int n = 0;
        for (byte b : value) {
            out[n++] = b;
            if (b == 0) {
                out[n++] = (byte) 0xFF;
            }
        }
        return out;
    }

    /** The 8-byte big-endian key of an entry id in a master tree. */
    public static byte[] idKey(long id) {
        byte[] key = new byte[Long.BYTES];
        putId(key, 0, id);
        return key;
    }

    static void putId(byte[] into, int at, long id) {
        for (int i = 7; i >= 0; i--) {
            into[at + i] = (byte) id;
            id >>>= 8;
        }
    }
}
