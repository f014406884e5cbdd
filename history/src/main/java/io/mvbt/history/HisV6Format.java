// SPDX-License-Identifier: Apache-2.0
package io.mvbt.history;

import java.nio.charset.StandardCharsets;

/**
 * Lines of INN's hisv6 text history (history(5); hisv6.c's formatline and splitline):
 *
 * <pre>
 * [HASH]TAB arrived~expires~posted TAB @TOKEN@    an article; expires is '-' when there is none
 * [HASH]TAB arrived~-~posted                      a remembered entry with a posting time
 * [HASH]TAB arrived~-                             a remembered entry without one
 * </pre>
 *
 * HASH is 32 hex digits, TOKEN 36; times are decimal seconds. Written exactly as INN writes them
 * (uppercase hex, unknown arrival or posting time of an article as 0, no posting time on a remembered
 * line when it is unknown), so a file INN wrote comes back byte for byte.
 *
 * <p>Read as INN reads them, with these choices where INN is loose: a line may stop after the
 * arrival time or after the expiry field (the missing times are unknown); hex may be either case;
 * blanks after the last field (hisv6's replace pads a shortened line with spaces) are ignored; a
 * remembered line's expiry time is dropped. Stricter than INN: every time needs at least one digit
 * and fits in a signed 64-bit number, and a non-empty last field that is not a token is an error
 * (INN would take the line as remembered and lose the token silently).
 */
final class HisV6Format {
    /** Longest line accepted: a full article line is 96 bytes; leave room for padding, refuse garbage. */
    static final int MAX_LINE = 1024;

    private HisV6Format() {
    }

    /** Formats {@code e} as one line, newline included. */
    static String format(HistoryEntry e) {
        StringBuilder b = new StringBuilder(100);
        b.append('[').append(MessageIdHash.toText(e.hashRef())).append("]\t").append(e.arrived()).append('~');
        if (e.isRemembered()) {
            b.append('-');
            if (e.posted() > 0) {
                b.append('~').append(e.posted());
            }
        } else {
            if (e.expires() > 0) {
                b.append(e.expires());
            } else {
                b.append('-');
            }
            b.append('~').append(e.posted()).append('\t').append(e.token().toText());
        }
        return b.append('\n').toString();
    }

    /** Parses one line (without its newline) of {@code length} bytes; {@code lineNumber} names it in errors. */
    static HistoryEntry parse(byte[] line, int length, long lineNumber) {
        Parser p = new Parser(line, length, lineNumber);
        return p.parse();
    }

    private static final class Parser {
        private final byte[] line;
        private final int end;
        private final long lineNumber;
        private int at;

        Parser(byte[] line, int length, long lineNumber) {
            this.line = line;
            int e = length;
            while (e > 0 && line[e - 1] == ' ') {
                e--;
            }
            this.end = e;
            this.lineNumber = lineNumber;
        }

        private MalformedLineException error(String problem) {
            return new MalformedLineException(lineNumber, problem + " in '" + show() + "'");
        }

        private String show() {
            String s = new String(line, 0, Math.min(end, 120), StandardCharsets.ISO_8859_1);
            return (end > 120 ? s + "..." : s).replace("\t", "\\t");
        }

        HistoryEntry parse() {
            if (end == 0 || line[0] != '[') {
                throw error("'[' missing at the start");
            }
            if (end < 34 || line[33] != ']') {
                throw error("the hash is not 32 hex digits followed by ']'");
            }
            byte[] hash = new byte[MessageIdHash.BYTES];
            for (int i = 0; i < MessageIdHash.BYTES; i++) {
                int hi = MessageIdHash.hexValue((char) (line[1 + 2 * i] & 0xFF));
                int lo = MessageIdHash.hexValue((char) (line[2 + 2 * i] & 0xFF));
                if (hi < 0 || lo < 0) {
                    throw error("the hash is not 32 hex digits");
                }
                hash[i] = (byte) (hi << 4 | lo);
            }
            at = 34;
            if (at >= end || line[at] != '\t') {
                throw error("the tab after the hash is missing");
            }
            at++;
            long arrived = number("arrival time");
            long expires = 0;
            long posted = 0;
            if (at < end && line[at] == '~') {
                at++;
                if (at < end && line[at] == '-') {
                    at++;
                } else {
                    expires = number("expiry time");
                }
                if (at < end && line[at] == '~') {
                    at++;
                    posted = number("posting time");
                }
            }
            StorageToken token = null;
            if (at < end) {
                if (line[at] != '\t') {
                    throw error("unexpected '" + (char) (line[at] & 0xFF) + "' after the times");
                }
                at++;
                int tokenEnd = end;
                if (tokenEnd > at) {
                    String text = new String(line, at, tokenEnd - at, StandardCharsets.ISO_8859_1);
                    if (!StorageToken.isToken(text)) {
                        throw error("the last field is not a storage token ('@' and 36 hex digits and '@')");
                    }
                    token = StorageToken.parse(text);
                }
            }
            return HistoryEntry.owning(hash, arrived, posted, token == null ? 0 : expires, token);
        }

        private long number(String what) {
            int start = at;
            long v = 0;
            while (at < end && line[at] >= '0' && line[at] <= '9') {
                int d = line[at] - '0';
                if (v > (Long.MAX_VALUE - d) / 10) {
                    throw error("the " + what + " is out of range");
                }
                v = v * 10 + d;
                at++;
            }
            if (at == start) {
                throw error("the " + what + " has no digits");
            }
            return v;
        }
    }
}
