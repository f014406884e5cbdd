// SPDX-License-Identifier: Apache-2.0
package io.mvbt.tools;

import static io.mvbt.tools.CommandsTest.mvbt;
import static io.mvbt.tools.CommandsTest.output;
import static io.mvbt.tools.CommandsTest.status;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import io.mvbt.revisions.Snapshot;
import io.mvbt.revisions.Store;
import io.mvbt.revisions.Tree;
import io.mvbt.testkit.ChildJava;

/** {@code mvbt changes}: net changes since a readable revision, as text and JSON lines, beside a writer of another process. */
class ChangesCommandTest {
    @TempDir
    Path dir;

    private Path history() {
        Path file = dir.resolve("s.mvbt");
        try (Store store = Store.open(file)) {
            store.update(tx -> {
                Tree t = tx.createTree("t");
                tx.put(t, b("a"), b("1"));
                tx.put(t, b("b"), b("2"));
                tx.createTree("gone");
            });
            store.retain("before");
            store.update(tx -> {
                Tree t = store.tree("t");
                tx.put(t, b("a"), b("one"));
                tx.delete(t, b("b"));
                tx.put(t, b("c"), b("3"));
                tx.put(t, b("d"), b("x"));
                tx.dropTree(store.tree("gone"));
                tx.createTree("new");
            });
            store.update(tx -> tx.delete(store.tree("t"), b("d")));
        }
        return file;
    }

    private static byte[] b(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    @Test
    void printsNetChangesThenTheRevisionReached() {
        Path file = history();
        Object[] text = mvbt("changes", file.toString(), "--since", "before", "--key-codec", "string", "--value-codec",
                "string");
        assertEquals(ExitCodes.OK, status(text), output(text));
        long reached;
        try (Store store = Store.openReadOnly(file)) {
            reached = store.revision();
        }
        assertEquals(String.join("\n", "dropped tree 'gone' (0 entries)", "created tree 'new'",
                "changed t a = one (was 1)", "removed t b (was 2)", "added t c = 3",
                "reached revision " + reached + " (since before): 5 changes") + "\n", output(text),
                "d was put and deleted in between: not a change");

        Object[] json = mvbt("changes", file.toString(), "--since", "before", "--json", "--key-codec", "string");
        assertEquals(ExitCodes.OK, status(json), output(json));
        String[] lines = output(json).split("\n");
        assertEquals("{\"tree\":\"gone\",\"kind\":\"treeDropped\",\"entries\":0}", lines[0]);
        assertEquals("{\"tree\":\"new\",\"kind\":\"treeCreated\"}", lines[1]);
        assertEquals("{\"tree\":\"t\",\"kind\":\"changed\",\"key\":\"a\",\"old\":\"31\",\"new\":\"6f6e65\"}", lines[2]);
        assertEquals("{\"tree\":\"t\",\"kind\":\"removed\",\"key\":\"b\",\"old\":\"32\",\"new\":null}", lines[3]);
        assertEquals("{\"tree\":\"t\",\"kind\":\"added\",\"key\":\"c\",\"old\":null,\"new\":\"33\"}", lines[4]);
        assertEquals("{\"since\":\"before\",\"reached\":" + reached + ",\"changes\":5}", lines[5]);
        assertEquals(6, lines.length);

        Object[] all = mvbt("changes", file.toString(), "--since", "beginning", "--key-codec", "string");
        assertEquals(ExitCodes.OK, status(all), output(all));
        assertTrue(output(all).startsWith("created tree 'new'\ncreated tree 't'\nadded t a = 6f6e65\n"), output(all));
        Object[] byNumber = mvbt("changes", file.toString(), "--since", Long.toString(reached));
        assertEquals("reached revision " + reached + " (since " + reached + "): 0 changes\n", output(byNumber));
    }

    @Test
    void aRevisionNoLongerReadableIsNotFoundWithAdvice() {
        Path file = history();
        Object[] old = mvbt("changes", file.toString(), "--since", "3", "--json");
        assertEquals(ExitCodes.NOT_FOUND, status(old), output(old));
        assertTrue(output(old).contains("retain it under a name"), output(old));
        Object[] unknown = mvbt("changes", file.toString(), "--since", "nobody");
        assertEquals(ExitCodes.NOT_FOUND, status(unknown), output(unknown));
        Object[] future = mvbt("changes", file.toString(), "--since", "999999");
        assertEquals(ExitCodes.NOT_FOUND, status(future), output(future));
    }

    /** The store is open for writing in a child JVM that commits all the while: the tool reads it read-only. */
    @Test
    void readsAStoreAnotherProcessIsWriting() throws Exception {
        Path file = dir.resolve("busy.mvbt");
        List<String> command = new ArrayList<>(ChildJava.command());
        command.addAll(List.of("-Xmx128m", "-cp", System.getProperty("java.class.path"),
                ChangesWriterChild.class.getName(), file.toString()));
        Process child = new ProcessBuilder(command).redirectErrorStream(true).start();
        try {
            String first = new BufferedReader(new InputStreamReader(child.getInputStream(), StandardCharsets.UTF_8))
                    .readLine();
            assertEquals("ready", first);
            Thread.sleep(200);
            Object[] changes = mvbt("changes", file.toString(), "--since", "start", "--json", "--key-codec", "string",
                    "--value-codec", "string");
            assertEquals(ExitCodes.OK, status(changes), output(changes));
            String[] lines = output(changes).split("\n");
            assertTrue(lines.length > 2, "the child committed while we waited: " + output(changes));
            Pattern added = Pattern.compile("\\{\"tree\":\"t\",\"kind\":\"added\",\"key\":\"k(\\d{6})\",\"old\":null,"
                    + "\"new\":\"v(\\d+)\"}");
            for (int i = 0; i < lines.length - 1; i++) {
                Matcher m = added.matcher(lines[i]);
                assertTrue(m.matches(), lines[i]);
                assertEquals(i + 1, Integer.parseInt(m.group(1)), "keys after the named revision's, in order, none missed");
                assertEquals(i + 1, Integer.parseInt(m.group(2)));
            }
            assertTrue(lines[lines.length - 1].matches("\\{\"since\":\"start\",\"reached\":\\d+,\"changes\":"
                    + (lines.length - 1) + "}"), lines[lines.length - 1]);
        } finally {
            child.destroyForcibly();
            assertTrue(child.waitFor(30, TimeUnit.SECONDS));
        }
        try (Store store = Store.open(file); Snapshot s = store.beginRead()) {
            assertTrue(s.count(store.tree("t")) > 2);
        }
    }
}
