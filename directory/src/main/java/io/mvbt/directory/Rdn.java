package io.mvbt.directory;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;

/**
 * A relative distinguished name: one or more {@code type=value} pairs joined by {@code +}. Types
 * are lower-cased; values are kept as given (unescaped) and compared in their normalized form.
 */
public final class Rdn {
    /** One {@code type=value} pair. */
    public record Ava(String type, String value) {
    }

    private final List<Ava> avas;

    public Rdn(List<Ava> avas) {
        if (avas.isEmpty()) {
            throw new IllegalArgumentException("an RDN has at least one type=value pair");
        }
        this.avas = List.copyOf(avas);
    }

    public Rdn(String type, String value) {
        this(List.of(new Ava(Schema.name(type), value)));
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
