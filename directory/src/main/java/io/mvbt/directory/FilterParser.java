// SPDX-License-Identifier: Apache-2.0
package io.mvbt.directory;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * Recursive descent over RFC 4515's grammar. Errors are {@link SyntaxException}s naming the
 * position. Approximate match ({@code ~=}) and extensible match ({@code :=}) are refused with a
 * clear message rather than silently treated as equality.
 */
final class FilterParser {
    /** Deeper nesting than any real filter; stops a hostile filter from overflowing the stack. */
    private static final int MAX_DEPTH = 100;

    private final String in;
    private int at;

    FilterParser(String in) {
        this.in = in;
    }

    private SyntaxException error(int position, String problem) {
        return new SyntaxException("filter", in, position, problem);
    }

    Filter parse() {
        if (in == null || in.isBlank()) {
            throw new SyntaxException("filter", in == null ? "" : in, 0, "the filter is empty");
        }
        skipSpaces();
        Filter f;
        if (at < in.length() && in.charAt(at) != '(') {
            // A bare item such as cn=foo, as many tools accept.
            int start = at;
            int end = in.length();
            f = item(end);
            if (at != end) {
                throw error(at, "unexpected '" + in.charAt(at) + "' in a filter item starting at " + start);
            }
        } else {
            f = filter(0);
        }
        skipSpaces();
        if (at != in.length()) {
            throw error(at, "unexpected '" + in.charAt(at) + "' after the end of the filter");
        }
        return f;
    }

    private void skipSpaces() {
        while (at < in.length() && in.charAt(at) == ' ') {
            at++;
        }
    }

    private void expect(char c) {
        if (at == in.length()) {
            throw error(at, "expected '" + c + "', found the end of the filter");
        }
        if (in.charAt(at) != c) {
            throw error(at, "expected '" + c + "', found '" + in.charAt(at) + "'");
        }
        at++;
    }

    private Filter filter(int depth) {
        if (depth > MAX_DEPTH) {
            throw error(at, "filter nested deeper than " + MAX_DEPTH + " levels");
        }
        skipSpaces();
        expect('(');
        skipSpaces();
        if (at == in.length()) {
            throw error(at, "expected a filter component, found the end of the filter");
        }
        Filter f;
        char c = in.charAt(at);
        if (c == '&' || c == '|') {
            at++;
            List<Filter> children = new ArrayList<>();
            skipSpaces();
            while (at < in.length() && in.charAt(at) == '(') {
                children.add(filter(depth + 1));
                skipSpaces();
            }
            f = c == '&' ? new Filter.And(children) : new Filter.Or(children);
        } else if (c == '!') {
            at++;
            f = new Filter.Not(filter(depth + 1));
            skipSpaces();
        } else {
            int close = closingParen();
            f = item(close);
        }
        expect(')');
        return f;
    }

    /** Index of the ')' that ends the current item (values may not hold an unescaped ')'). */
    private int closingParen() {
        int i = at;
        while (i < in.length() && in.charAt(i) != ')') {
            if (in.charAt(i) == '(') {
                throw error(i, "'(' must be escaped as \\28 in a value");
            }
            i++;
        }
        if (i == in.length()) {
            throw error(i, "expected ')', found the end of the filter");
        }
        return i;
    }

    private Filter item(int end) {
        int start = at;
        while (at < end && (Character.isLetterOrDigit(in.charAt(at)) || in.charAt(at) == '-'
                || in.charAt(at) == '.' || in.charAt(at) == ';')) {
            at++;
        }
        if (at == start) {
            throw error(at, at == end ? "expected an attribute name, found the end of the item"
                    : "expected an attribute name, found '" + in.charAt(at) + "'");
        }
        String attribute = Schema.name(in.substring(start, at));
        if (at == end) {
            throw error(at, "expected '=', '>=', '<=' after attribute '" + attribute + "'");
        }
        char op = in.charAt(at);
        int opAt = at;
        if (op == ':') {
            throw error(at, "extensible match (':=') is not supported");
        }
        if (op == '~') {
            throw error(at, "approximate match ('~=') is not supported");
        }
        if (op == '>' || op == '<') {
            at++;
            if (at == end || in.charAt(at) != '=') {
                throw error(at, "expected '=' after '" + op + "'");
            }
            at++;
            String value = value(end, false).get(0);
            return op == '>' ? new Filter.GreaterOrEqual(attribute, value) : new Filter.LessOrEqual(attribute, value);
        }
        if (op != '=') {
            throw error(at, "expected '=', '>=', '<=' after attribute '" + attribute + "', found '" + op + "'");
        }
        at++;
        if (at < end && in.charAt(at) == '*' && at + 1 == end) {
            at++;
            return new Filter.Presence(attribute);
        }
        List<String> parts = value(end, true);
        if (parts.size() == 1) {
            return new Filter.Equality(attribute, parts.get(0));
        }
        String initial = parts.get(0).isEmpty() ? null : parts.get(0);
        String last = parts.get(parts.size() - 1).isEmpty() ? null : parts.get(parts.size() - 1);
        List<String> any = new ArrayList<>();
        for (int i = 1; i < parts.size() - 1; i++) {
            if (parts.get(i).isEmpty()) {
                throw error(opAt + 1, "two '*' in a row in a substring filter");
            }
            any.add(parts.get(i));
        }
        return new Filter.Substring(attribute, initial, any, last);
    }

    /** The value up to {@code end}, split at unescaped '*' if {@code stars}; escapes decoded as UTF-8. */
    private List<String> value(int end, boolean stars) {
        List<String> parts = new ArrayList<>();
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        while (at < end) {
            char c = in.charAt(at);
            if (c == '*') {
                if (!stars) {
                    throw error(at, "'*' is not allowed in an ordering value (escape it as \\2a)");
                }
                parts.add(bytes.toString(StandardCharsets.UTF_8));
                bytes.reset();
                at++;
            } else if (c == '\\') {
                if (at + 2 >= end || !isHex(in.charAt(at + 1)) || !isHex(in.charAt(at + 2))) {
                    throw error(at, "'\\' must be followed by two hex digits");
                }
                bytes.write(Integer.parseInt(in.substring(at + 1, at + 3), 16));
                at += 3;
            } else if (c == 0) {
                throw error(at, "a NUL character must be escaped as \\00");
            } else {
                int cp = in.codePointAt(at);
                byte[] utf8 = new String(Character.toChars(cp)).getBytes(StandardCharsets.UTF_8);
                bytes.write(utf8, 0, utf8.length);
                at += Character.charCount(cp);
            }
        }
        parts.add(bytes.toString(StandardCharsets.UTF_8));
        return parts;
    }

    private static boolean isHex(char c) {
        return c < 128 && Character.digit(c, 16) >= 0;
    }
}
