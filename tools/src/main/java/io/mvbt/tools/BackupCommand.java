// SPDX-License-Identifier: Apache-2.0
package io.mvbt.tools;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;

import io.mvbt.NamedRevisionNotFoundException;
import io.mvbt.StoreLockedException;
import io.mvbt.revisions.DiffStats;
import io.mvbt.revisions.Durability;
import io.mvbt.revisions.NamedRevision;
import io.mvbt.revisions.Snapshot;
import io.mvbt.revisions.Store;
import io.mvbt.revisions.StoreOptions;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * Incremental backup into a chain ({@link BackupChain}). The chain keeps the revision its last link
 * holds under a name in the source ({@code backup:<chain id>:<link>}), so the next backup can diff
 * against it: a new link is named first, its delta written and made durable, and only then is the
 * previous link's name released. A backup killed at any point leaves the chain as it was or one link
 * longer, and the source naming the chain's last revision (and maybe one more, which the next run
 * releases).
 */
@Command(name = "backup", mixinStandardHelpOptions = true,
        description = "Back up a store into a chain in DEST: the first time a compact copy of the newest revision, "
                + "later only what changed since the chain's last link (a delta file). The source keeps the revision of "
                + "the last link under the name backup:<chain id>:<link> until the next backup moves it on.")
final class BackupCommand implements Callable<Integer> {
    @Parameters(index = "0", paramLabel = "STORE", description = "The store file (its writer must be closed).")
    Path store;

    @Parameters(index = "1", paramLabel = "DEST", description = "The backup directory (created if absent).")
    Path dest;

    @Option(names = "--since", paramLabel = "NAME", description = "Diff against the revision kept under NAME instead of"
            + " the chain's own name; it must be the revision the chain's last link holds.")
    String since;

    @Option(names = "--json", description = "Print the result as one JSON object.")
    boolean json;

    @Override
    public Integer call() {
        StoreFiles.requireStore(store, null);
        long started = System.nanoTime();
        Map<String, Object> result;
        try (Store s = Store.open(store, StoreFiles.options().durability(Durability.NORMAL).compactAtClose(false))) {
            result = backup(s, dest, since, DurableFiles.DISK);
        } catch (StoreLockedException e) {
            throw new CommandException(ExitCodes.CANNOT_OPEN, e.getMessage() + "; a backup names revisions in the store,"
                    + " which takes its writer: close it first");
        }
        result.put("millis", (System.nanoTime() - started) / 1_000_000);
        if (json) {
            System.out.println(Json.write(result));
        } else if ((int) result.get("link") == 0) {
            System.out.printf("link 0 of chain %s: a full copy of revision %,d (%,d bytes) in %,d ms%n", result.get("chain"),
                    result.get("to"), result.get("bytes"), result.get("millis"));
        } else {
            System.out.printf("link %d of chain %s: revisions %,d to %,d, %,d changes, %,d bytes, %,d pages read in %,d ms%n",
                    result.get("link"), result.get("chain"), result.get("from"), result.get("to"), result.get("records"),
                    result.get("bytes"), result.get("pagesRead"), result.get("millis"));
        }
        StoreFiles.requireWritten(System.out);
        return ExitCodes.OK;
    }

    /** One backup of {@code s} into {@code dest}, its durable steps through {@code files}; what it wrote, for the output. */
    static Map<String, Object> backup(Store s, Path dest, String since, DurableFiles files) {
        try {
            // Durable in its parent too: a chain whose directory a power cut took would leave the
            // source a name that no chain releases.
            files.createDirectories(dest);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot create " + dest, e);
        }
        BackupChain chain = new BackupChain(dest, files);
        BackupChain.Identity id = chain.identity();
        if (id == null) {
            requireEmpty(dest);
            id = new BackupChain.Identity(new java.security.SecureRandom().nextLong() >>> 1, s.id());
            chain.writeIdentity(id);
        }
        // Only in a directory that is a chain: another directory's .tmp files are not ours.
        chain.removeLeftovers();
        if (id.storeId() != s.id()) {
            throw new CommandException(dest + " holds a backup chain of another store (id " + Long.toHexString(id.storeId())
                    + ", not " + Long.toHexString(s.id()) + "); back up into a new directory");
        }
        BackupChain.Base base = chain.base(id);
        Map<String, Object> out = base == null ? first(s, chain, id, since, files) : next(s, chain, id, base, since, files);
        out.put("chain", Long.toHexString(id.chainId()));
        return out;
    }

    /** Link 0: a compact copy of the newest revision, which the source keeps under the chain's name. */
    private static Map<String, Object> first(Store s, BackupChain chain, BackupChain.Identity id, String since,
            DurableFiles files) {
        if (since != null) {
            throw new CommandException(ExitCodes.USAGE, "--since continues a chain, and " + chain.dir + " holds none yet;"
                    + " the first backup copies the newest revision");
        }
        // A first backup killed before its base record leaves the name and maybe the copy: start over.
        releaseAll(s, id, null);
        String name = id.namePrefix() + 0;
        long revision = s.retain(name);
        try {
            files.delete(chain.full());
        } catch (IOException e) {
            throw new UncheckedIOException("cannot remove " + chain.full(), e);
        }
        try (Snapshot snapshot = s.beginRead(name)) {
            snapshot.copyTo(chain.full(), StoreOptions.defaults().pageSize(s.pageSize()), n -> { });
        }
        try {
            // The store layer synced the copy and its rename already; synced here as well, the order
            // that the chain's power-cut promise rests on (link 0 durable before its record) is all
            // in this file, where BackupPowerCutTest checks it, for one fsync of a clean file.
            files.sync(chain.full());
            files.syncDirectory(chain.dir);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot sync " + chain.full(), e);
        }
        long length;
        try {
            length = Files.size(chain.full());
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read " + chain.full(), e);
        }
        chain.writeBase(id, new BackupChain.Base(revision, length, BackupChain.crcOf(chain.full())));
        Map<String, Object> out = new LinkedHashMap<>();
        out.put("link", 0);
        out.put("from", null);
        out.put("to", revision);
        out.put("bytes", length);
        return out;
    }

    /** Link k: the changes since the chain's last revision, then the name moves on. */
    private static Map<String, Object> next(Store s, BackupChain chain, BackupChain.Identity id, BackupChain.Base base,
            String since, DurableFiles files) {
        List<Path> deltas = chain.deltas();
        int link = deltas.size() + 1;
        long last = base.revision();
        if (!deltas.isEmpty()) {
            DeltaFormat.Header h = DeltaReader.header(deltas.get(deltas.size() - 1));
            last = h.to();
        }
        String previous = id.namePrefix() + (link - 1);
        String baseName = since != null ? since : previous;
        String name = id.namePrefix() + link;
        // A run killed before its delta was renamed into place left this name: its revision is not the chain's.
        releaseAll(s, id, previous);
        Snapshot from;
        try {
            from = s.beginRead(baseName);
        } catch (NamedRevisionNotFoundException e) {
            throw new CommandException(ExitCodes.NOT_FOUND, "the chain in " + chain.dir + " ends at revision " + last
                    + ", which the store no longer keeps under the name '" + baseName + "' (it was released, or the store"
                    + " was replaced by a copy): a delta needs that revision. Start a new chain: mvbt backup STORE NEWDIR"
                    + (since == null ? "; or, if another name keeps revision " + last + ", pass it as --since NAME" : ""));
        }
        try (from) {
            if (from.revision() != last) {
                throw new CommandException(ExitCodes.NOT_FOUND, "'" + baseName + "' keeps revision " + from.revision()
                        + " but the chain in " + chain.dir + " ends at revision " + last + "; start a new chain: mvbt backup"
                        + " STORE NEWDIR");
            }
            long to = s.retain(name);
            long bytes;
            long records;
            DiffStats stats;
            try (Snapshot target = s.beginRead(name);
                    DeltaWriter writer = new DeltaWriter(chain.delta(link),
                            new DeltaFormat.Header(link, id.chainId(), id.storeId(), last, to), files)) {
                stats = from.diff(target, writer);
                bytes = writer.finish();
                records = writer.records();
            } catch (RuntimeException | Error e) {
                // The chain did not grow: its name for the new link must not pin pages.
                s.release(name);
                throw e;
            }
            releaseAll(s, id, name);
            Map<String, Object> out = new LinkedHashMap<>();
            out.put("link", link);
            out.put("from", last);
            out.put("to", to);
            out.put("records", records);
            out.put("bytes", bytes);
            out.put("pagesRead", stats.pagesRead());
            return out;
        }
    }

    /** Releases the chain's names in the source except {@code keep}. */
    private static void releaseAll(Store s, BackupChain.Identity id, String keep) {
        for (NamedRevision n : s.namedRevisions()) {
            if (n.name().startsWith(id.namePrefix()) && !n.name().equals(keep)) {
                s.release(n.name());
            }
        }
    }

    /** Empty, but for the identity's temporary file that a first backup killed at once may leave. */
    private static void requireEmpty(Path dest) {
        try (var files = Files.list(dest)) {
            if (files.anyMatch(p -> !p.getFileName().toString().equals(BackupChain.CHAIN + ".tmp"))) {
                throw new CommandException(dest + " is neither empty nor a backup chain (it has no '" + BackupChain.CHAIN
                        + "' file); back up into a new or empty directory");
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot list " + dest, e);
        }
    }
}
