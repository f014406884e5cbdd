// SPDX-License-Identifier: Apache-2.0
package io.mvbt.history;

import java.util.Arrays;

/**
 * Where an article is stored: INN's {@code TOKEN}, 18 bytes (storage method type, storage class,
 * and 16 bytes the storage method interprets). Written as text, as INN's {@code TokenToText}
 * does: {@code '@'}, 36 uppercase hex digits, {@code '@'}. Immutable.
 */
public final class StorageToken {
    /** Bytes in a token. */
    public static final int BYTES = 18;
    /** Characters in a token's text form. */
    public static final int TEXT_LENGTH = BYTES * 2 + 2;

    private static final char[] HEX = "0123456789ABCDEF".toCharArray();

    private final byte[] bytes;

    private StorageToken(byte[] bytes) {
        this.bytes = bytes;
    }

    /** A token from its 18 bytes (copied). */
    public static StorageToken of(byte[] bytes) {
        if (bytes == null || bytes.length != BYTES) {
            throw new IllegalArgumentException("a storage token is " + BYTES + " bytes, not "
                    + (bytes == null ? "null" : bytes.length));
        }
        return new StorageToken(bytes.clone());
    }

    /** A token from its type, class and 16 method bytes (copied). */
    public static StorageToken of(int type, int storageClass, byte[] token) {
        if (token == null || token.length != BYTES - 2) {
            throw new IllegalArgumentException("a storage token's method bytes are " + (BYTES - 2) + ", not "
                    + (token == null ? "null" : token.length));
        }
        byte[] b = new byte[BYTES];
        b[0] = checkByte("type", type);
        b[1] = checkByte("class", storageClass);
        System.arraycopy(token, 0, b, 2, BYTES - 2);
        return new StorageToken(b);
    }

    private static byte checkByte(String what, int value) {
        if (value < 0 || value > 255) {
            throw new IllegalArgumentException("storage token " + what + " " + value + " is not in 0..255");
        }
        return (byte) value;
    }

    /** Whether {@code text} is a token's text form (INN's {@code IsToken}: '@', 36 hex digits, '@'). */
    public static boolean isToken(CharSequence text) {
        if (text == null || text.length() != TEXT_LENGTH || text.charAt(0) != '@'
                || text.charAt(TEXT_LENGTH - 1) != '@') {
            return false;
        }
        for (int i = 1; i < TEXT_LENGTH - 1; i++) {
            if (MessageIdHash.hexValue(text.charAt(i)) < 0) {
                return false;
            }
        }
        return true;
    }

    /** Parses a token's text form; hex digits of either case. */
    public static StorageToken parse(CharSequence text) {
        if (!isToken(text)) {
            throw new IllegalArgumentException("not a storage token: '" + text + "'");
        }
        byte[] b = new byte[BYTES];
        for (int i = 0; i < BYTES; i++) {
            b[i] = (byte) (MessageIdHash.hexValue(text.charAt(1 + 2 * i)) << 4
                    | MessageIdHash.hexValue(text.charAt(2 + 2 * i)));
        }
        return new StorageToken(b);
    }

    /** The storage method type (byte 0). */
    public int type() {
        return bytes[0] & 0xFF;
    }

    /** The storage class (byte 1). */
    public int storageClass() {
        return bytes[1] & 0xFF;
    }

    /** The 18 bytes (a copy). */
    public byte[] bytes() {
        return bytes.clone();
    }

    void copyTo(byte[] target, int offset) {
        System.arraycopy(bytes, 0, target, offset, BYTES);
    }

    /** The text form: '@', 36 uppercase hex digits, '@'. */
    public String toText() {
        char[] text = new char[TEXT_LENGTH];
        text[0] = '@';
        for (int i = 0; i < BYTES; i++) {
            text[1 + 2 * i] = HEX[(bytes[i] >> 4) & 0xF];
            text[2 + 2 * i] = HEX[bytes[i] & 0xF];
        }
        text[TEXT_LENGTH - 1] = '@';
        return new String(text);
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof StorageToken t && Arrays.equals(bytes, t.bytes);
    }

    @Override
    public int hashCode() {
        return Arrays.hashCode(bytes);
    }

    @Override
    public String toString() {
        return toText();
    }
}
