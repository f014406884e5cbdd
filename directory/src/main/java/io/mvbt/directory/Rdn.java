// SPDX-License-Identifier: Apache-2.0
package io.mvbt.directory;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Objects;

/**
 * A relative distinguished name: one or more {@code type=value} pairs joined by {@code +}. Types
 * are lower-cased; values are kept as given (unescaped) and compared in their normalized form.
 */
public final class Rdn {
    /**
     * One {@code type=value} pair: the type lower-cased, and both checked as a DN would be read, so
     * that what is stored reads back as itself.
     */
    public record Ava(String type, String value) {
        public Ava {
            type = Schema.name(Objects.requireNonNull(type, "type"));
            Objects.requireNonNull(value, "value");
            if (!isType(type)) {
                throw new IllegalArgumentException("'" + type + "' is not an attribute type (a letter, then letters,"
                        + " digits and '-'; or a numeric OID)");
            }
            if (value.isEmpty()) {
                throw new IllegalArgumentException("the value of '" + type + "' is empty");
            }
        }

        private static boolean isType(String type) {
            if (type.isEmpty()) {
                return false;
            }
            boolean oid = type.charAt(0) >= '0' && type.charAt(0) <= '9';
            for (int i = 0; i < type.length(); i++) {
                char c = type.charAt(i);
                boolean digit = c >= '0' && c <= '9';
                boolean ok = oid ? digit || c == '.' : digit || c >= 'a' && c <= 'z' || i > 0 && c == '-';
                if (!ok) {
                    return false;
                }
            }
            return true;
        }
    }

    private final List<Ava> avas;

    public Rdn(List<Ava> avas) {
        if (avas.isEmpty()) {
            throw new IllegalArgumentException("an RDN has at least one type=value pair");
        }
        this.avas = List.copyOf(avas);
    }

    public Rdn(String type, String value) {
        this(List.of(new Ava(type, value)));
    }

    /** Parses one RDN, as in {@code cn=John Smith+uid=js}. */
    public static Rdn parse(String text) {
        Dn dn = Dn.parse(text);
        if (dn.size() != 1) {
            throw new SyntaxException("RDN", text, 0, "expected exactly one RDN, found " + dn.size());
        }
        return dn.rdn();
    }

    public List<Ava> avas() {
        return avas;
    }

    /** The normalized form: pairs sorted by type, values normalized by the schema, escaped. */
    public String normalized(Schema schema) {
        List<Ava> sorted = new ArrayList<>(avas);
        sorted.sort(Comparator.comparing(Ava::type).thenComparing(a -> schema.normalize(a.type(), a.value())));
        StringBuilder out = new StringBuilder();
        for (Ava a : sorted) {
            if (out.length() > 0) {
                out.append('+');
            }
            out.append(a.type()).append('=').append(escape(schema.normalize(a.type(), a.value())));
        }
        return out.toString();
    }

    @Override
    public String toString() {
        StringBuilder out = new StringBuilder();
        for (Ava a : avas) {
            if (out.length() > 0) {
                out.append('+');
            }
            out.append(a.type()).append('=').append(escape(a.value()));
        }
        return out.toString();
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof Rdn other && avas.equals(other.avas);
    }

    @Override
    public int hashCode() {
        return avas.hashCode();
    }

    /** RFC 4514 escaping of an attribute value. */
    static String escape(String value) {
        StringBuilder out = new StringBuilder(value.length() + 4);
        for (int i = 0; i < value.length(); i++) {
            char c = value.charAt(i);
            boolean special = ",+\"\\<>;=".indexOf(c) >= 0 || (c == ' ' && (i == 0 || i == value.length() - 1))
                    || (c == '#' && i == 0);
            if (c == 0) {
                out.append("\\00");
            } else {
                if (special) {
                    out.append('\\');
                }
                out.append(c);
            }
        }
        return out.toString();
    }
}
