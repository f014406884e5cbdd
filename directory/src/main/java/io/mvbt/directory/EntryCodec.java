// SPDX-License-Identifier: Apache-2.0
package io.mvbt.directory;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import io.mvbt.MvbtException;

/**
 * The master tree's value for an entry (docs/directory.md has the table):
 *
 * <pre>
 *   version     1 byte   (1)
 *   parent id   8 bytes  big-endian; 0 for the suffix entry
 *   rdn         string   the entry's RDN as given (the suffix: its whole DN)
 *   attributes  varint   count, then per attribute: name string, varint value count, value strings
 *   string      varint byte length, then UTF-8
 * </pre>
 *
 * The entry stores its RDN and its parent's id, not its DN, so that moving a subtree rewrites one
 * record; the DN is rebuilt by walking up the parents on the same snapshot.
 */
final class EntryCodec {
    static final int VERSION = 1;

    private EntryCodec() {
    }

    /** A decoded record: parent id, RDN text and attributes. */
    record Record(long parent, String rdn, Map<String, List<String>> attributes) {
    }

    static byte[] encode(long parent, String rdn, Map<String, List<String>> attributes) {
        Writer w = new Writer();
        w.out[w.n++] = VERSION;
        w.long8(parent);
        w.string(rdn);
        w.varint(attributes.size());
        attributes.forEach((name, values) -> {
            w.string(name);
            w.varint(values.size());
            for (String v : values) {
                w.string(v);
            }
        });
        return java.util.Arrays.copyOf(w.out, w.n);
    }

    static long parent(byte[] record) {
        check(record);
        long id = 0;
        for (int i = 1; i <= 8; i++) {
            id = (id << 8) | (record[i] & 0xFF);
        }
        return id;
    }

    /** The parent id and RDN, without decoding the attributes. */
    static Record header(byte[] record) {
        Reader r = new Reader(record);
        return new Record(r.long8(), r.string(), Map.of());
    }

    static Record decode(byte[] record) {
        Reader r = new Reader(record);
        long parent = r.long8();
        String rdn = r.string();
        int count = r.varint();
        Map<String, List<String>> attributes = new LinkedHashMap<>();
        for (int i = 0; i < count; i++) {
            String name = r.string();
            int values = r.varint();
            List<String> list = new ArrayList<>(values);
            for (int j = 0; j < values; j++) {
                list.add(r.string());
            }
            attributes.put(name, list);
        }
        if (r.at != record.length) {
            throw new MvbtException("entry record has " + (record.length - r.at) + " bytes after its last attribute");
        }
        return new Record(parent, rdn, attributes);
    }

    /**
     * Whether the attribute named {@code name} (UTF-8) has a value that passes {@code test}, or,
     * with a null test, whether the entry has the attribute: decodes that attribute's values only,
     * one at a time, and skips the others without decoding them (a filter's check of a candidate).
     */
    static boolean anyValue(byte[] record, byte[] name, java.util.function.Predicate<String> test) {
        Reader r = new Reader(record);
        r.long8();
        r.skipString();
        int count = r.varint();
        for (int i = 0; i < count; i++) {
            boolean wanted = r.stringEquals(name);
            int values = r.varint();
            if (wanted) {
                if (test == null) {
                    return true;
                }
                for (int j = 0; j < values; j++) {
                    if (test.test(r.string())) {
                        return true;
                    }
                }
                return false;
            }
            for (int j = 0; j < values; j++) {
                r.skipString();
            }
        }
        return false;
    }

    private static void check(byte[] record) {
        if (record.length < 10 || record[0] != VERSION) {
            throw new MvbtException("not an entry record of version " + VERSION + " (" + record.length + " bytes"
                    + (record.length > 0 ? ", version " + record[0] : "") + ")");
        }
    }

    private static final class Writer {
        byte[] out = new byte[256];
        int n;

        void ensure(int more) {
            if (n + more > out.length) {
                out = java.util.Arrays.copyOf(out, Math.max(out.length * 2, n + more));
            }
        }

        void long8(long v) {
            ensure(8);
            for (int i = 7; i >= 0; i--) {
                out[n + i] = (byte) v;
                v >>>= 8;
            }
            n += 8;
        }

        void varint(int v) {
            ensure(5);
            while ((v & ~0x7F) != 0) {
                out[n++] = (byte) ((v & 0x7F) | 0x80);
                v >>>= 7;
            }
            out[n++] = (byte) v;
        }

        void string(String s) {
            byte[] b = s.getBytes(StandardCharsets.UTF_8);
            varint(b.length);
            ensure(b.length);
            System.arraycopy(b, 0, out, n, b.length);
            n += b.length;
        }
    }

    private static final class Reader {
        final byte[] in;
        int at;

        Reader(byte[] in) {
            check(in);
            this.in = in;
            this.at = 1;
        }

        private void need(int bytes) {
            if (at + bytes > in.length) {
                throw new MvbtException("entry record of " + in.length + " bytes ends inside a field at byte " + at);
            }
        }

        long long8() {
            need(8);
            long v = 0;
            for (int i = 0; i < 8; i++) {
                v = (v << 8) | (in[at++] & 0xFF);
            }
            return v;
        }

        int varint() {
            int v = 0;
            for (int shift = 0; shift < 35; shift += 7) {
                need(1);
                byte b = in[at++];
                v |= (b & 0x7F) << shift;
                if (b >= 0) {
                    if (v < 0) {
                        break;
                    }
                    return v;
                }
            }
            throw new MvbtException("entry record has a malformed length at byte " + at);
        }

        void skipString() {
            int length = varint();
            need(length);
            at += length;
        }

        /** Reads a string, telling whether its UTF-8 bytes are {@code expected}. */
        boolean stringEquals(byte[] expected) {
            int length = varint();
            need(length);
            boolean equal = java.util.Arrays.equals(in, at, at + length, expected, 0, expected.length);
            at += length;
            return equal;
        }

        String string() {
            int length = varint();
            need(length);
            String s = new String(in, at, length, StandardCharsets.UTF_8);
            at += length;
            return s;
        }
    }
}
