// SPDX-License-Identifier: Apache-2.0
package io.mvbt.history;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;

/**
 * The 16-byte key of a Message-ID: the MD5 of its canonical form, computed exactly as INN's
 * {@code HashMessageID} does, so that hashes match an existing INN history.
 *
 * <p>The canonical form (INN lib/hash.c, checked against INN's tests/lib/hash-t.c):
 * <ul>
 * <li>The split point is the <em>first</em> {@code '@'}. A Message-ID without one is hashed as
 * it is: it is all local part, and local parts are case-sensitive.</li>
 * <li>Everything after that {@code '@'} (the domain, and the closing {@code '>'}) is lowercased.</li>
 * <li>Exception: if the local part (the characters between the first character, normally the
 * {@code '<'}, and the {@code '@'}) is {@code postmaster} in any case, everything after the first
 * character is lowercased, because RFC 822 makes "postmaster" case-insensitive.</li>
 * <li>Lowercasing is ASCII only ({@code A-Z}), as C's {@code tolower} in the C locale; every
 * other byte, and the angle brackets, are hashed as they are.</li>
 * </ul>
 * So {@code <lhs@TEST.invalid>} and {@code <lhs@test.invalid>} hash alike, {@code <Lhs@test.invalid>}
 * does not, and {@code <PostMaster@test.invalid>} hashes as {@code <postmaster@test.invalid>}.
 *
 * <p>A Message-ID is at most {@value #MAX_MESSAGE_ID_BYTES} bytes (RFC 3977 and RFC 5536), and
 * may not contain NUL: INN hashes a C string, which would end there.
 */
public final class MessageIdHash {
    /** Bytes in a hash. */
    public static final int BYTES = 16;
    /** Longest Message-ID accepted: NNTP (RFC 3977 section 3.6) and RFC 5536 allow 250 octets. */
    public static final int MAX_MESSAGE_ID_BYTES = 250;

    private static final String POSTMASTER = "postmaster";
    private static final char[] HEX = "0123456789ABCDEF".toCharArray();
    private static final ThreadLocal<MessageDigest> MD5 = ThreadLocal.withInitial(() -> {
        try {
            return MessageDigest.getInstance("MD5");
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("this JVM has no MD5", e);
        }
    });

    private MessageIdHash() {
    }

    /** The hash of a Message-ID (encoded as UTF-8; Message-IDs are ASCII in practice). */
    public static byte[] of(String messageId) {
        if (messageId == null) {
            throw new IllegalArgumentException("Message-ID is null");
        }
        return of(messageId.getBytes(StandardCharsets.UTF_8));
    }

    /** The hash of a Message-ID given as its bytes (not changed). */
    public static byte[] of(byte[] messageId) {
        byte[] canonical = canonical(messageId);
        return MD5.get().digest(canonical);
    }

    /** The bytes INN hashes for {@code messageId}: a lowercased copy as the class comment says. */
    static byte[] canonical(byte[] messageId) {
        if (messageId == null) {
            throw new IllegalArgumentException("Message-ID is null");
        }
        if (messageId.length == 0) {
            throw new IllegalArgumentException("Message-ID is empty");
        }
        if (messageId.length > MAX_MESSAGE_ID_BYTES) {
            throw new IllegalArgumentException("Message-ID of " + messageId.length + " bytes is longer than the limit of "
                    + MAX_MESSAGE_ID_BYTES);
        }
        int at = -1;
        for (int i = 0; i < messageId.length; i++) {
            if (messageId[i] == 0) {
                throw new IllegalArgumentException("Message-ID contains a NUL byte at offset " + i);
            }
            if (at < 0 && messageId[i] == '@') {
                at = i;
            }
        }
        byte[] canonical = messageId.clone();
        if (at < 0) {
            return canonical;
        }
        int from = isPostmaster(messageId, at) ? 1 : at + 1;
        for (int i = from; i < canonical.length; i++) {
            byte b = canonical[i];
            if (b >= 'A' && b <= 'Z') {
                canonical[i] = (byte) (b + ('a' - 'A'));
            }
        }
        return canonical;
    }

    /** Whether the bytes between the first one and the '@' at {@code at} spell "postmaster" in any case. */
    private static boolean isPostmaster(byte[] id, int at) {
        if (at - 1 != POSTMASTER.length()) {
            return false;
        }
        for (int i = 0; i < POSTMASTER.length(); i++) {
            int b = id[1 + i];
            if (b >= 'A' && b <= 'Z') {
                b += 'a' - 'A';
            }
            if (b != POSTMASTER.charAt(i)) {
                return false;
            }
        }
        return true;
    }

    /** The hash as 32 uppercase hex digits, as INN's {@code HashToText} writes it. */
    public static String toText(byte[] hash) {
        check(hash);
        char[] text = new char[BYTES * 2];
        for (int i = 0; i < BYTES; i++) {
            text[2 * i] = HEX[(hash[i] >> 4) & 0xF];
            text[2 * i + 1] = HEX[hash[i] & 0xF];
        }
        return new String(text);
    }

    /** Parses 32 hex digits (either case) into a hash. */
    public static byte[] fromText(CharSequence text) {
        if (text == null || text.length() != BYTES * 2) {
            throw new IllegalArgumentException("a hash is 32 hex digits, not " + (text == null ? "null" : "'" + text + "'"));
        }
        byte[] hash = new byte[BYTES];
        for (int i = 0; i < BYTES; i++) {
            int hi = hexValue(text.charAt(2 * i));
            int lo = hexValue(text.charAt(2 * i + 1));
            if (hi < 0 || lo < 0) {
                throw new IllegalArgumentException("not a hex digit in hash '" + text + "'");
            }
            hash[i] = (byte) (hi << 4 | lo);
        }
        return hash;
    }

    /** The value of an ASCII hex digit of either case, or -1. */
    static int hexValue(char c) {
        if (c >= '0' && c <= '9') {
            return c - '0';
        }
        if (c >= 'A' && c <= 'F') {
            return c - 'A' + 10;
        }
        if (c >= 'a' && c <= 'f') {
            return c - 'a' + 10;
        }
        return -1;
    }

    /** Throws IllegalArgumentException unless {@code hash} is 16 bytes. */
    static void check(byte[] hash) {
        if (hash == null) {
            throw new IllegalArgumentException("hash is null");
        }
        if (hash.length != BYTES) {
            throw new IllegalArgumentException("a Message-ID hash is " + BYTES + " bytes, not " + hash.length);
        }
    }
}
