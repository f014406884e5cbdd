// SPDX-License-Identifier: Apache-2.0
package io.mvbt.directory;

import java.util.List;

/**
 * A search filter (RFC 4515): AND, OR, NOT, equality, presence, substrings, {@code >=} and
 * {@code <=}. {@link #parse} reads the string form; {@code toString()} writes it back, escaped.
 * Attribute names are lower-cased. An AND or OR with no children is RFC 4526's absolute true or
 * false.
 */
public sealed interface Filter {
    static Filter parse(String text) {
        return new FilterParser(text).parse();
    }

    record And(List<Filter> children) implements Filter {
        public And {
            children = List.copyOf(children);
        }

        @Override
        public String toString() {
            return "(&" + String.join("", children.stream().map(Filter::toString).toList()) + ")";
        }
    }

    record Or(List<Filter> children) implements Filter {
        public Or {
            children = List.copyOf(children);
        }

        @Override
        public String toString() {
            return "(|" + String.join("", children.stream().map(Filter::toString).toList()) + ")";
        }
    }

    record Not(Filter child) implements Filter {
        @Override
        public String toString() {
            return "(!" + child + ")";
        }
    }

    record Equality(String attribute, String value) implements Filter {
        @Override
        public String toString() {
            return "(" + attribute + "=" + escape(value) + ")";
        }
    }

    record Presence(String attribute) implements Filter {
        @Override
        public String toString() {
            return "(" + attribute + "=*)";
        }
    }

    /** {@code initial} and {@code last} may be null; {@code any} may be empty. */
    record Substring(String attribute, String initial, List<String> any, String last) implements Filter {
        public Substring {
            any = List.copyOf(any);
        }

        @Override
        public String toString() {
            StringBuilder out = new StringBuilder("(").append(attribute).append('=');
            if (initial != null) {
                out.append(escape(initial));
            }
            out.append('*');
            for (String a : any) {
                out.append(escape(a)).append('*');
            }
            if (last != null) {
                out.append(escape(last));
            }
            return out.append(')').toString();
        }
    }

    record GreaterOrEqual(String attribute, String value) implements Filter {
        @Override
        public String toString() {
            return "(" + attribute + ">=" + escape(value) + ")";
        }
    }

    record LessOrEqual(String attribute, String value) implements Filter {
        @Override
        public String toString() {
            return "(" + attribute + "<=" + escape(value) + ")";
        }
    }

    /** RFC 4515 value escaping: {@code * ( ) \ NUL} as {@code \XX}. */
    static String escape(String value) {
        StringBuilder out = new StringBuilder(value.length());
        for (int i = 0; i < value.length(); i++) {
            char c = value.charAt(i);
            switch (c) {
                case '*' -> out.append("\\2a");
                case '(' -> out.append("\\28");
                case ')' -> out.append("\\29");
                case '\\' -> out.append("\\5c");
                case 0 -> out.append("\\00");
                default -> out.append(c);
            }
        }
        return out.toString();
    }
}
