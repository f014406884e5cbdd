// SPDX-License-Identifier: Apache-2.0
package io.mvbt.cursor;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import io.mvbt.revisions.Codecs;
import io.mvbt.revisions.Snapshot;
import io.mvbt.revisions.Store;
import io.mvbt.revisions.StoreOptions;
import io.mvbt.revisions.TypedTree;
import io.mvbt.revisions.WriteTxn;

/** Runs the README's example, and checks that the README shows exactly this code. */
class ReadmeExampleTest {
    @TempDir
    Path dir;

    private static final Path SOURCE = Path.of("src/test/java/io/mvbt/cursor/ReadmeExampleTest.java");
    private static final Path README = Path.of("../README.md");

    static void example(Path dir, PrintStream out) {
        // example:start
        try (Store store = Store.open(dir.resolve("example.mvbt"), StoreOptions.defaults())) {
            TypedTree<String, String> users = TypedTree.of(store.tree("users"), Codecs.STRING, Codecs.STRING);
            try (WriteTxn tx = store.beginWrite()) {
                tx.createTreeIfAbsent("users");
                users.put(tx, "alice", "admin");
                users.put(tx, "bob", "staff");
                tx.commit();                                    // one new revision, all or nothing
            }
            String before = store.write(tx -> users.asMap(tx).put("alice", "owner"));  // commits, or aborts if it throws
            out.println(before);                                                       // admin
            try (Snapshot snapshot = store.beginRead()) {       // a stable view of the newest revision
                try (WriteTxn tx = store.beginWrite()) {        // the writer goes on meanwhile
                    users.delete(tx, "bob");
                    tx.commit();
                }
                out.println(users.get(snapshot, "bob"));                   // staff: the snapshot still has it
                for (Map.Entry<String, String> e : users.range(snapshot, "a", null)) {
                    out.println(e.getKey());                               // alice, bob
                }
            }
            try (Snapshot now = store.beginRead()) {
                out.println(users.count(now));                             // 1
            }
        }
        // example:end
    }

    @Test
    void exampleRunsAsTheReadmeSays() {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        example(dir, new PrintStream(bytes, true, StandardCharsets.UTF_8));
        assertEquals(List.of("admin", "staff", "alice", "bob", "1"), bytes.toString(StandardCharsets.UTF_8).lines().toList());
    }

    @Test
    void readmeShowsThisCode() throws IOException {
        String source = Files.readString(SOURCE);
        String code = between(source, "// example:start\n", "        // example:end").stripTrailing();
        String readme = Files.readString(README);
        String shown = between(readme, "<!-- example:start -->\n```java\n", "```\n<!-- example:end -->").stripTrailing();
        assertEquals(code.indent(-8).stripTrailing(), shown, "README.md's example differs from ReadmeExampleTest");
    }

    private static String between(String text, String start, String end) {
        int from = text.indexOf(start);
        int to = text.indexOf(end, from + start.length());
        if (from < 0 || to < 0) {
            throw new AssertionError("markers " + start.strip() + " / " + end.strip() + " not found");
        }
        return text.substring(from + start.length(), to);
    }
}
