// SPDX-License-Identifier: Apache-2.0
package io.mvbt.bench.directory;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * An entry's attributes as one BLOB of SQLite's entries table, so that fetching a found entry is one
 * row read, as mvbt's master record is: attribute count, then per attribute its name, value count
 * and values (Java's modified UTF-8 strings).
 */
final class AttributeBlob {
    private AttributeBlob() {
    }

    static byte[] encode(Map<String, List<String>> attributes) {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream(256);
        try (DataOutputStream out = new DataOutputStream(bytes)) {
            out.writeShort(attributes.size());
            for (Map.Entry<String, List<String>> a : attributes.entrySet()) {
                out.writeUTF(a.getKey());
                out.writeShort(a.getValue().size());
                for (String v : a.getValue()) {
                    out.writeUTF(v);
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return bytes.toByteArray();
    }

    static Map<String, List<String>> decode(byte[] blob) {
        try (DataInputStream in = new DataInputStream(new ByteArrayInputStream(blob))) {
            int count = in.readUnsignedShort();
            Map<String, List<String>> attributes = new LinkedHashMap<>(count * 2);
            for (int i = 0; i < count; i++) {
                String name = in.readUTF();
                int values = in.readUnsignedShort();
                List<String> list = new ArrayList<>(values);
                for (int v = 0; v < values; v++) {
                    list.add(in.readUTF());
                }
                attributes.put(name, list);
            }
            return attributes;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
