// SPDX-License-Identifier: Apache-2.0
package io.mvbt.tools;

import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.Callable;

import org.agrona.concurrent.UnsafeBuffer;

import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

import io.mvbt.revisions.Snapshot;
import io.mvbt.revisions.Store;
import io.mvbt.revisions.Tree;

/** One value, looked up on the newest revision; a script tells "absent" by the exit status. */
@Command(name = "get", mixinStandardHelpOptions = true,
        description = {"Print the value of KEY in TREE on the newest revision.",
            "Exit status 5 if the tree or the key is not there."})
final class GetCommand implements Callable<Integer> {
    @Parameters(index = "0", paramLabel = "STORE", description = "The store file.")
    Path store;

    @Parameters(index = "1", paramLabel = "TREE", description = "The tree's name.")
    String treeName;

    @Parameters(index = "2", paramLabel = "KEY", description = "The key, as --key-codec reads it (default: hex).")
    String keyText;

    @Mixin
    CodecOptions codecs;

    @Option(names = "--json", description = "Print one JSON object instead: {\"tree\", \"key\", \"value\", \"found\"}.")
    boolean json;

    @Override
    public Integer call() {
        byte[] key = codecs.key.parse(keyText, "KEY");
        try (Store s = StoreFiles.openExisting(store); Snapshot snapshot = s.beginRead()) {
            Tree tree = s.tree(treeName);
            if (!snapshot.hasTree(tree)) {
                throw new CommandException(ExitCodes.NOT_FOUND, "there is no tree '" + treeName + "' in " + store
                        + " (mvbt ls lists them)");
            }
            byte[] value = snapshot.get(tree, key);
            Object shown = value == null ? null : codecs.value.decode(new UnsafeBuffer(value), "the value");
            if (json) {
                Map<String, Object> out = new LinkedHashMap<>();
                out.put("tree", treeName);
                out.put("key", codecs.key.decode(new UnsafeBuffer(key), "the key"));
                out.put("value", shown);
                out.put("found", value != null);
                System.out.println(Json.write(out));
            } else if (value != null) {
                System.out.println(shown);
            } else {
                System.err.println("mvbt get: no key " + keyText + " in tree '" + treeName + "'");
            }
            StoreFiles.requireWritten(System.out);
            return value == null ? ExitCodes.NOT_FOUND : ExitCodes.OK;
        }
    }
}
