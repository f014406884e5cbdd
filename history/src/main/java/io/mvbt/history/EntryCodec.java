// SPDX-License-Identifier: Apache-2.0
package io.mvbt.history;

import org.agrona.DirectBuffer;

/**
 * The value stored under a Message-ID hash. Small on purpose (the footprint target is hissqlite's
 * table): a flags byte, the known times as LEB128 varints, then the token.
 *
 * <pre>
 * byte 0   flags: 0x01 article (token follows), 0x02 arrived known, 0x04 posted known,
 *          0x08 expires known; other bits 0
 * varint   arrived, unsigned                            (if known)
 * varint   posted:  zigzag(posted - arrived) if arrived is known, else unsigned posted (if known)
 * varint   expires: the same, relative to arrived                                      (if known)
 * 18 bytes token                                        (if an article)
 * </pre>
 *
 * Posting and expiry times lie near the arrival time, so as deltas they take 2-4 bytes instead
 * of 5: a typical article is 29-31 bytes, a remembered entry 8.
 */
final class EntryCodec {
    static final int ARTICLE = 0x01;
    static final int ARRIVED = 0x02;
    static final int POSTED = 0x04;
    static final int EXPIRES = 0x08;
    private static final int KNOWN_FLAGS = ARTICLE | ARRIVED | POSTED | EXPIRES;
    /** Flags byte, three 10-byte varints, token. */
    static final int MAX_BYTES = 1 + 3 * 10 + StorageToken.BYTES;

    private EntryCodec() {
    }

    static byte[] encode(HistoryEntry e) {
        return encode(e.arrived(), e.posted(), e.expires(), e.token());
    }

    /** Encodes times (0 = unknown; callers normalise) and a token (null: remembered, expiry dropped). */
    static byte[] encode(long arrived, long posted, long expires, StorageToken token) {
        byte[] out = new byte[MAX_BYTES];
        int flags = 0;
        int at = 1;
        if (arrived > 0) {
            flags |= ARRIVED;
            at = putVarint(out, at, arrived);
        }
        if (posted > 0) {
            flags |= POSTED;
            at = putVarint(out, at, arrived > 0 ? zigzag(posted - arrived) : posted);
        }
        if (token != null) {
            flags |= ARTICLE;
            if (expires > 0) {
                flags |= EXPIRES;
                at = putVarint(out, at, arrived > 0 ? zigzag(expires - arrived) : expires);
            }
            token.copyTo(out, at);
            at += StorageToken.BYTES;
        }
        out[0] = (byte) flags;
        return java.util.Arrays.copyOf(out, at);
    }

    /** Whether a stored value is an article's (checks only the flags byte). */
    static boolean isArticle(DirectBuffer value) {
        return value.capacity() > 0 && (value.getByte(0) & ARTICLE) != 0;
    }

    /** Decodes a stored value; {@code hash} becomes the entry's (not copied). */
    static HistoryEntry decode(byte[] hash, DirectBuffer value) {
        int length = value.capacity();
        if (length == 0) {
            throw damaged(hash, "empty value");
        }
        int flags = value.getByte(0) & 0xFF;
        if ((flags & ~KNOWN_FLAGS) != 0) {
            throw damaged(hash, "unknown flags 0x" + Integer.toHexString(flags));
        }
        long[] cursor = {1};
        long arrived = (flags & ARRIVED) != 0 ? getVarint(hash, value, cursor) : 0;
        long posted = 0;
        if ((flags & POSTED) != 0) {
            long v = getVarint(hash, value, cursor);
            posted = arrived > 0 ? arrived + unzigzag(v) : v;
        }
        long expires = 0;
        StorageToken token = null;
        if ((flags & ARTICLE) != 0) {
            if ((flags & EXPIRES) != 0) {
                long v = getVarint(hash, value, cursor);
                expires = arrived > 0 ? arrived + unzigzag(v) : v;
            }
            int at = (int) cursor[0];
            if (at + StorageToken.BYTES != length) {
                throw damaged(hash, "value of " + length + " bytes, the token needs bytes " + at + ".."
                        + (at + StorageToken.BYTES));
            }
            byte[] t = new byte[StorageToken.BYTES];
            value.getBytes(at, t);
            token = StorageToken.of(t);
        } else if ((flags & EXPIRES) != 0) {
            throw damaged(hash, "a remembered entry with an expiry time");
        } else if (cursor[0] != length) {
            throw damaged(hash, (length - cursor[0]) + " bytes after the times of a remembered entry");
        }
        if (arrived < 0 || ((flags & POSTED) != 0 && posted <= 0) || ((flags & EXPIRES) != 0 && expires <= 0)) {
            throw damaged(hash, "a time out of range");
        }
        return HistoryEntry.owning(hash, arrived, posted, expires, token);
    }

    private static HistoryException damaged(byte[] hash, String problem) {
        return new HistoryException("history entry [" + MessageIdHash.toText(hash) + "] is damaged: " + problem);
    }

    private static long zigzag(long v) {
        return (v << 1) ^ (v >> 63);
    }

    private static long unzigzag(long v) {
        return (v >>> 1) ^ -(v & 1);
    }

    private static int putVarint(byte[] out, int at, long v) {
        while ((v & ~0x7FL) != 0) {
            out[at++] = (byte) ((v & 0x7F) | 0x80);
            v >>>= 7;
        }
        out[at++] = (byte) v;
        return at;
    }

    private static long getVarint(byte[] hash, DirectBuffer in, long[] cursor) {
        int at = (int) cursor[0];
        long v = 0;
        for (int shift = 0; shift < 64; shift += 7) {
            if (at >= in.capacity()) {
                throw damaged(hash, "a time runs past the end of the value");
            }
            byte b = in.getByte(at++);
            v |= (long) (b & 0x7F) << shift;
            if (b >= 0) {
                cursor[0] = at;
                return v;
            }
        }
        throw damaged(hash, "a time longer than 10 bytes");
    }
}
