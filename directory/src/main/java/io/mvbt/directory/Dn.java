// SPDX-License-Identifier: Apache-2.0
package io.mvbt.directory;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * A distinguished name (RFC 4514): RDNs from the entry up to the root, as in
 * {@code cn=John Smith,ou=people,dc=example,dc=com}. Parsing accepts backslash escapes of special
 * characters and of hex pairs (UTF-8), and spaces around separators; a malformed DN is a
 * {@link SyntaxException} naming the position. Values in BER form ({@code #04...}) are refused.
 * Immutable; equality is by the user form, compare {@link #normalized} forms to match as LDAP does.
 */
public final class Dn {
    private static final Dn ROOT = new Dn(List.of());
    private final List<Rdn> rdns;

    private Dn(List<Rdn> rdns) {
        this.rdns = List.copyOf(rdns);
    }

    /** The empty DN. */
    public static Dn root() {
        return ROOT;
    }

    public static Dn parse(String text) {
        return new Parser(text).parse();
    }

    /** Number of RDNs. */
    public int size() {
        return rdns.size();
    }

    public boolean isRoot() {
        return rdns.isEmpty();
    }

    /** The first (leftmost) RDN. */
    public Rdn rdn() {
        if (rdns.isEmpty()) {
            throw new IllegalStateException("the root DN has no RDN");
        }
        return rdns.get(0);
    }

    /** RDNs from the entry up. */
    public List<Rdn> rdns() {
        return rdns;
    }

    /** The DN without its first RDN. */
    public Dn parent() {
        if (rdns.isEmpty()) {
            throw new IllegalStateException("the root DN has no parent");
        }
        return new Dn(rdns.subList(1, rdns.size()));
    }

    /** {@code rdn} under this DN. */
    public Dn child(Rdn rdn) {
        List<Rdn> out = new ArrayList<>(rdns.size() + 1);
        out.add(rdn);
        out.addAll(rdns);
        return new Dn(out);
    }

    /** The last {@code n} RDNs (the top of the name). */
    public Dn suffix(int n) {
        return new Dn(rdns.subList(rdns.size() - n, rdns.size()));
    }

    /** Whether this DN is {@code ancestor} or lies below it, compared normalized. */
    public boolean isWithin(Dn ancestor, Schema schema) {
        return ancestor.size() <= size() && suffix(ancestor.size()).normalized(schema).equals(ancestor.normalized(schema));
    }

    public String normalized(Schema schema) {
        StringBuilder out = new StringBuilder();
        for (Rdn rdn : rdns) {
            if (out.length() > 0) {
                out.append(',');
            }
            out.append(rdn.normalized(schema));
        }
        return out.toString();
    }

    @Override
    public String toString() {
        StringBuilder out = new StringBuilder();
        for (Rdn rdn : rdns) {
            if (out.length() > 0) {
                out.append(',');
            }
            out.append(rdn);
        }
        return out.toString();
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof Dn other && rdns.equals(other.rdns);
    }

    @Override
    public int hashCode() {
        return rdns.hashCode();
    }

    /** Recursive descent over RFC 4514's grammar, keeping the position for errors. */
    private static final class Parser {
        private final String in;
        private int at;

        Parser(String in) {
            this.in = in;
        }

        private SyntaxException error(int position, String problem) {
            return new SyntaxException("DN", in, position, problem);
        }

        Dn parse() {
            if (in.isBlank()) {
                return ROOT;
            }
            List<Rdn> rdns = new ArrayList<>();
            while (true) {
                rdns.add(rdn());
                if (at == in.length()) {
                    return new Dn(rdns);
                }
                char c = in.charAt(at);
                if (c != ',' && c != ';') {
                    throw error(at, "expected ',' between RDNs, found '" + c + "'");
                }
                at++;
            }
        }

        private Rdn rdn() {
            List<Rdn.Ava> avas = new ArrayList<>();
            while (true) {
                avas.add(ava());
                if (at < in.length() && in.charAt(at) == '+') {
                    at++;
                    continue;
                }
                return new Rdn(avas);
            }
        }

        private void spaces() {
            while (at < in.length() && in.charAt(at) == ' ') {
                at++;
            }
        }

        private Rdn.Ava ava() {
            spaces();
            int start = at;
            if (at == in.length()) {
                throw error(at, "expected an attribute type, found the end of the DN");
            }
            char first = in.charAt(at);
            if (isDigit(first)) {
                while (at < in.length() && (isDigit(in.charAt(at)) || in.charAt(at) == '.')) {
                    at++;
                }
            } else if (isAlpha(first)) {
                while (at < in.length() && (isAlpha(in.charAt(at)) || isDigit(in.charAt(at))
                        || in.charAt(at) == '-')) {
                    at++;
                }
            } else {
                throw error(at, "expected an attribute type, found '" + first + "'");
            }
            String type = in.substring(start, at);
            spaces();
            if (at == in.length() || in.charAt(at) != '=') {
                throw error(at, "expected '=' after attribute type '" + type + "'"
                        + (at == in.length() ? ", found the end of the DN" : ", found '" + in.charAt(at) + "'"));
            }
            at++;
            spaces();
            if (at < in.length() && in.charAt(at) == '#') {
                throw error(at, "values in BER hex form (#...) are not supported");
            }
            return new Rdn.Ava(Schema.name(type), value());
        }

        /** A value up to an unescaped ',', ';' or '+'; trailing unescaped spaces dropped. */
        private String value() {
            ByteArrayOutputStream bytes = new ByteArrayOutputStream();
            int keep = 0; // bytes up to the last escaped or non-space character
            while (at < in.length()) {
                char c = in.charAt(at);
                if (c == ',' || c == ';' || c == '+') {
                    break;
                }
                if (c == '\\') {
                    int escape = at;
                    at++;
                    if (at == in.length()) {
                        throw error(escape, "a '\\' at the end of the DN escapes nothing");
                    }
                    char e = in.charAt(at);
                    if (isHex(e)) {
                        if (at + 1 >= in.length() || !isHex(in.charAt(at + 1))) {
                            throw error(escape, "'\\" + e + "' must be followed by a second hex digit");
                        }
                        bytes.write(Integer.parseInt(in.substring(at, at + 2), 16));
                        at += 2;
                    } else if (" \"#+,;<=>\\".indexOf(e) >= 0) {
                        bytes.write(e);
                        at++;
                    } else {
                        throw error(escape, "'\\" + e + "' is not an escape (escape one of \" #+,;<=>\\ or a hex pair)");
                    }
                    keep = bytes.size();
                    continue;
                }
                if (c == '"' || c == '<' || c == '>' || c == '=' || c == 0) {
                    throw error(at, "'" + (c == 0 ? "\\0" : String.valueOf(c)) + "' must be escaped in a DN value");
                }
                byte[] utf8 = String.valueOf(c).getBytes(StandardCharsets.UTF_8);
                if (Character.isHighSurrogate(c) && at + 1 < in.length()) {
                    utf8 = in.substring(at, at + 2).getBytes(StandardCharsets.UTF_8);
                    at++;
                }
                bytes.write(utf8, 0, utf8.length);
                if (c != ' ') {
                    keep = bytes.size();
                }
                at++;
            }
            byte[] all = bytes.toByteArray();
            String value = new String(all, 0, keep, StandardCharsets.UTF_8);
            if (value.isEmpty()) {
                throw error(at, "empty attribute value");
            }
            return value;
        }

        private static boolean isDigit(char c) {
            return c >= '0' && c <= '9';
        }

        private static boolean isAlpha(char c) {
            return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
        }

        private static boolean isHex(char c) {
            return Character.digit(c, 16) >= 0 && c < 128;
        }
    }
}
