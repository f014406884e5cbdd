// SPDX-License-Identifier: Apache-2.0
package io.mvbt.tools;

import java.io.BufferedOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.Callable;

import org.agrona.DirectBuffer;

import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

import io.mvbt.NamedRevisionNotFoundException;
import io.mvbt.revisions.DiffVisitor;
import io.mvbt.revisions.Store;

/**
 * What changed since a revision, streamed as the diff finds it: one line per changed key, then the
 * revision reached, from which a script goes on with the next run.
 */
@Command(name = "changes", mixinStandardHelpOptions = true,
        description = {"Print what changed from a revision to the newest: each key added, removed or changed"
                + " (net: a key put and deleted in between is not shown), trees created and dropped, then the"
                + " revision reached.",
            "The revision must still be readable: the newest, or one kept under a name (Store.retain, a change"
                + " feed's position). Beside a running writer the store is read read-only."})
final class ChangesCommand implements Callable<Integer> {
    @Parameters(index = "0", paramLabel = "STORE", description = "The store file.")
    Path store;

    @Option(names = "--since", required = true, paramLabel = "N|NAME",
            description = "A revision number, the name of a named revision, or 'beginning' (every entry as added).")
    String since;

    @Mixin
    CodecOptions codecs;

    @Option(names = "--json", description = "One JSON object per line: {\"tree\", \"kind\", \"key\", \"old\", \"new\"}"
            + " per change, {\"tree\", \"kind\": \"treeCreated\"|\"treeDropped\"} per tree, and last"
            + " {\"since\", \"reached\", \"changes\"}.")
    boolean json;

    @Override
    public Integer call() {
        PrintStream out = new PrintStream(new BufferedOutputStream(System.out, 1 << 16), false, StandardCharsets.UTF_8);
        Printer printer = new Printer(out);
        long reached;
        try (Store s = StoreFiles.openExisting(store)) {
            if (since.equals("beginning")) {
                reached = s.changesSince(io.mvbt.revisions.ChangeFeed.BEGINNING, printer);
            } else if (since.matches("[0-9]{1,18}")) {
                reached = s.changesSince(Long.parseLong(since), printer);
            } else {
                reached = s.changesSince(since, printer);
            }
        } catch (NamedRevisionNotFoundException | IllegalArgumentException e) {
            out.flush();
            throw new CommandException(ExitCodes.NOT_FOUND, e.getMessage());
        }
        if (json) {
            Map<String, Object> end = new LinkedHashMap<>();
            end.put("since", since);
            end.put("reached", reached);
            end.put("changes", printer.changes);
            out.println(Json.write(end));
        } else {
            out.println("reached revision " + reached + " (since " + since + "): " + Plural.of(printer.changes, "change"));
        }
        out.flush();
        StoreFiles.requireWritten(out);
        StoreFiles.requireWritten(System.out);
        return ExitCodes.OK;
    }

    /** Prints each change as it comes: the diff's views are valid only during the call. */
    private final class Printer implements DiffVisitor {
        private final PrintStream out;
        long changes;

        Printer(PrintStream out) {
            this.out = out;
        }

        @Override
        public void treeCreated(String tree) {
            changes++;
            if (json) {
                out.println(Json.write(event(tree, "treeCreated")));
            } else {
                out.println("created tree '" + tree + "'");
            }
        }

        @Override
        public void treeDropped(String tree, long entries) {
            changes++;
            if (json) {
                Map<String, Object> e = event(tree, "treeDropped");
                e.put("entries", entries);
                out.println(Json.write(e));
            } else {
                out.println("dropped tree '" + tree + "' (" + Plural.of(entries, "entry", "entries") + ")");
            }
        }

        @Override
        public void changed(String tree, DirectBuffer key, DirectBuffer oldValue, DirectBuffer newValue) {
            changes++;
            String kind = oldValue == null ? "added" : newValue == null ? "removed" : "changed";
            Object k = codecs.key.decode(key, "the key");
            Object before = oldValue == null ? null : codecs.value.decode(oldValue, "the old value");
            Object after = newValue == null ? null : codecs.value.decode(newValue, "the new value");
            if (json) {
                Map<String, Object> e = event(tree, kind);
                e.put("key", k);
                e.put("old", before);
                e.put("new", after);
                out.println(Json.write(e));
            } else {
                out.println(kind + " " + tree + " " + k + switch (kind) {
                    case "added" -> " = " + after;
                    case "removed" -> " (was " + before + ")";
                    default -> " = " + after + " (was " + before + ")";
                });
            }
        }

        private static Map<String, Object> event(String tree, String kind) {
            Map<String, Object> e = new LinkedHashMap<>();
            e.put("tree", tree);
            e.put("kind", kind);
            return e;
        }
    }
}
