// SPDX-License-Identifier: Apache-2.0
package io.mvbt.apacheds;

import io.mvbt.revisions.Codec;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.ObjectInput;
import java.io.ObjectInputStream;
import java.io.ObjectOutput;
import java.io.UncheckedIOException;
import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import org.agrona.DirectBuffer;
import org.apache.directory.api.ldap.model.entry.Attribute;
import org.apache.directory.api.ldap.model.entry.DefaultAttribute;
import org.apache.directory.api.ldap.model.entry.DefaultEntry;
import org.apache.directory.api.ldap.model.entry.Entry;
import org.apache.directory.api.ldap.model.exception.LdapException;
import org.apache.directory.api.ldap.model.name.Dn;
import org.apache.directory.api.ldap.model.name.Rdn;
import org.apache.directory.api.ldap.model.schema.SchemaManager;
import org.apache.directory.server.xdbm.ParentIdAndRdn;

/** Encodings of ApacheDS's entries, names and ordered values as mvbt keys and values. */
final class EntryCodecs {
    /**
     * First byte of every stored entry and name: the layout it was written in. 2: ApacheDS's
     * data forms on data streams; 1 (read only): the same forms on Java object streams.
     */
    private static final int LAYOUT = 2;
    private static final int OBJECT_STREAMS = 1;

    private EntryCodecs() {
    }

    /** An entry: its RDN (the partition sets the whole DN when it fetches) and its attributes by OID. */
    static Codec<Entry> entries(SchemaManager schema) {
        return new Codec<>() {
            @Override
            public byte[] encode(Entry entry) {
                return write(out -> {
                    Dn dn = entry.getDn();
                    out.writeBoolean(!dn.isEmpty());
                    if (!dn.isEmpty()) {
                        dn.getRdn().writeExternal(out);
                    }
                    out.writeInt(entry.size());
                    for (Attribute attribute : entry) {
                        out.writeUTF(attribute.getAttributeType().getOid());
                        attribute.writeExternal(out);
                    }
                });
            }

            @Override
            public Entry decode(DirectBuffer buffer, int offset, int length) {
                return read(buffer, offset, length, in -> {
                    Entry entry = new DefaultEntry(schema);
                    if (in.readBoolean()) {
                        Rdn rdn = new Rdn(schema);
                        rdn.readExternal(in);
                        entry.setDn(new Dn(schema, rdn));
                    } else {
                        entry.setDn(Dn.EMPTY_DN);
                    }
                    int attributes = in.readInt();
                    for (int i = 0; i < attributes; i++) {
                        Attribute attribute = new DefaultAttribute(schema.lookupAttributeTypeRegistry(in.readUTF()));
                        attribute.readExternal(in);
                        entry.add(attribute);
                    }
                    return entry;
                });
            }
        };
    }

    /** A whole {@link ParentIdAndRdn}: parent id, RDNs, and the child and descendant counts. */
    static Codec<ParentIdAndRdn> parentIdAndRdns(SchemaManager schema) {
        return new Codec<>() {
            @Override
            public byte[] encode(ParentIdAndRdn p) {
                return write(out -> {
                    out.writeUTF(p.getParentId());
                    out.writeInt(p.getNbChildren());
                    out.writeInt(p.getNbDescendants());
                    Rdn[] rdns = p.getRdns();
                    out.writeInt(rdns.length);
                    for (Rdn rdn : rdns) {
                        rdn.writeExternal(out);
                    }
                });
            }

            @Override
            public ParentIdAndRdn decode(DirectBuffer buffer, int offset, int length) {
                return read(buffer, offset, length, in -> {
                    ParentIdAndRdn p = new ParentIdAndRdn();
                    p.setParentId(in.readUTF());
                    p.setNbChildren(in.readInt());
                    p.setNbDescendants(in.readInt());
                    Rdn[] rdns = new Rdn[in.readInt()];
                    for (int i = 0; i < rdns.length; i++) {
                        rdns[i] = new Rdn(schema);
                        rdns[i].readExternal(in);
                    }
                    p.setRdns(rdns);
                    return p;
                });
            }
        };
    }

    /** A DN by its normalized name, in that name's order. */
    static Codec<Dn> dns(SchemaManager schema) {
        return new Codec<>() {
            @Override
            public byte[] encode(Dn dn) {
                return dn.getNormName().getBytes(StandardCharsets.UTF_8);
            }

            @Override
            public Dn decode(DirectBuffer buffer, int offset, int length) {
                try {
                    return new Dn(schema, buffer.getStringWithoutLengthUtf8(offset, length));
                } catch (LdapException e) {
                    throw new IllegalStateException("a stored DN does not parse: " + e.getMessage(), e);
                }
            }
        };
    }

    /**
     * A normalized INTEGER in numeric order: a sign class (negative, zero, positive), then the
     * number of digits and the digits, both inverted for a negative number so that larger
     * magnitudes sort first.
     */
    static final Codec<String> INTEGERS = new Codec<>() {
        @Override
        public byte[] encode(String value) {
            BigInteger n;
            try {
                n = new BigInteger(value.trim());
            } catch (NumberFormatException e) {
                throw new IllegalArgumentException("'" + value + "' is not an INTEGER", e);
            }
            if (n.signum() == 0) {
                return new byte[] {1};
            }
            byte[] digits = n.abs().toString().getBytes(StandardCharsets.US_ASCII);
            boolean negative = n.signum() < 0;
            byte[] out = new byte[5 + digits.length];
            out[0] = (byte) (negative ? 0 : 2);
            int length = negative ? ~digits.length : digits.length;
            for (int i = 0; i < 4; i++) {
                out[1 + i] = (byte) (length >>> (24 - 8 * i));
            }
            for (int i = 0; i < digits.length; i++) {
                out[5 + i] = (byte) (negative ? ~digits[i] : digits[i]);
            }
            return out;
        }

        @Override
        public String decode(DirectBuffer buffer, int offset, int length) {
            int sign = buffer.getByte(offset);
            if (sign == 1) {
                return "0";
            }
            boolean negative = sign == 0;
            StringBuilder s = new StringBuilder(length);
            if (negative) {
                s.append('-');
            }
            for (int i = 5; i < length; i++) {
                byte b = buffer.getByte(offset + i);
                s.append((char) (negative ? ~b : b));
            }
            return s.toString();
        }
    };

    private interface Writer {
        void write(ObjectOutput out) throws IOException;
    }

    private interface Reader<T> {
        T read(ObjectInput in) throws IOException, ClassNotFoundException, LdapException;
    }

    /**
     * ApacheDS's RDNs, attributes and values write themselves to an {@code ObjectOutput} but use
     * only its {@code DataOutput} methods: plain data streams serve, without the object stream's
     * header and block framing (a third of a search's time went to them).
     */
    private static final class DataObjectOutput extends DataOutputStream implements ObjectOutput {
        DataObjectOutput(ByteArrayOutputStream bytes) {
            super(bytes);
        }

        @Override
        public void writeObject(Object o) {
            throw new UnsupportedOperationException("an mvbt partition stores no Java objects");
        }
    }

    private static final class DataObjectInput extends DataInputStream implements ObjectInput {
        DataObjectInput(ByteArrayInputStream bytes) {
            super(bytes);
        }

        @Override
        public Object readObject() {
            throw new UnsupportedOperationException("an mvbt partition stores no Java objects");
        }
    }

    private static byte[] write(Writer writer) {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream(256);
        bytes.write(LAYOUT);
        try (DataObjectOutput out = new DataObjectOutput(bytes)) {
            writer.write(out);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return bytes.toByteArray();
    }

    private static <T> T read(DirectBuffer buffer, int offset, int length, Reader<T> reader) {
        byte[] b = new byte[length];
        buffer.getBytes(offset, b);
        int layout = length == 0 ? -1 : b[0];
        if (layout != LAYOUT && layout != OBJECT_STREAMS) {
            throw new IllegalStateException("a stored entry or name of layout " + layout + ", not " + LAYOUT);
        }
        ByteArrayInputStream bytes = new ByteArrayInputStream(b, 1, length - 1);
        try (ObjectInput in = layout == LAYOUT ? new DataObjectInput(bytes) : new ObjectInputStream(bytes)) {
            return reader.read(in);
        } catch (IOException | ClassNotFoundException | LdapException e) {
            throw new IllegalStateException("a stored entry or name does not decode: " + e.getMessage(), e);
        }
    }
}
