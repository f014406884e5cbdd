// SPDX-License-Identifier: Apache-2.0
package io.mvbt.bench.directory;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * What one store's child JVM reported, one tab-separated line each on its standard output; the
 * parent parses them back. Other lines are passed through as progress.
 */
final class StoreResults {
    static final String SETTINGS = "settings";
    static final String LOAD = "load";
    static final String FOOTPRINT = "footprint";
    static final String EXPECTED = "expected";
    static final String VERIFIED = "verified";
    static final String PLAN = "plan";
    static final String RESULT = "result";

    /** One measured phase of one search. */
    record Measurement(String search, String phase, long searches, long entries, long nanos, long writerCommits) {
        double searchesPerSecond() {
            return searches * 1e9 / nanos;
        }

        double entriesPerSecond() {
            return entries * 1e9 / nanos;
        }

        double writerCommitsPerSecond() {
            return writerCommits * 1e9 / nanos;
        }
    }

    final String store;
    String settings = "";
    long loadedEntries;
    long loadNanos;
    long diskBytes = -1;
    final Map<String, Long> expected = new LinkedHashMap<>();
    final Map<String, Long> verified = new LinkedHashMap<>();
    final Map<String, String> plans = new LinkedHashMap<>();
    final List<Measurement> measurements = new ArrayList<>();
    String failure;

    StoreResults(String store) {
        this.store = store;
    }

    static String line(String kind, Object... fields) {
        StringBuilder b = new StringBuilder(kind);
        for (Object f : fields) {
            b.append('\t').append(String.valueOf(f).replace("\\", "\\\\").replace("\n", "\\n").replace("\t", "\\t"));
        }
        return b.toString();
    }

    private static String unescape(String s) {
        StringBuilder out = new StringBuilder(s.length());
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if (c == '\\' && i + 1 < s.length()) {
                char n = s.charAt(++i);
                out.append(n == 'n' ? '\n' : n == 't' ? '\t' : n);
            } else {
                out.append(c);
            }
        }
        return out.toString();
    }

    /** Takes one line of the child's output; false if it is not a result line. */
    boolean accept(String line) {
        String[] f = line.split("\t", -1);
        for (int i = 0; i < f.length; i++) {
            f[i] = unescape(f[i]);
        }
        switch (f[0]) {
            case SETTINGS -> settings = f[1];
            case LOAD -> {
                loadedEntries = Long.parseLong(f[1]);
                loadNanos = Long.parseLong(f[2]);
            }
            case FOOTPRINT -> diskBytes = Long.parseLong(f[1]);
            case EXPECTED -> expected.put(f[1], Long.parseLong(f[2]));
            case VERIFIED -> verified.put(f[1], Long.parseLong(f[2]));
            case PLAN -> plans.put(f[1], f[2]);
            case RESULT -> measurements.add(new Measurement(f[1], f[2], Long.parseLong(f[3]), Long.parseLong(f[4]),
                    Long.parseLong(f[5]), Long.parseLong(f[6])));
            default -> {
                return false;
            }
        }
        return true;
    }

    Measurement measurement(String search, String phase) {
        for (Measurement m : measurements) {
            if (m.search().equals(search) && m.phase().equals(phase)) {
                return m;
            }
        }
        return null;
    }
}
