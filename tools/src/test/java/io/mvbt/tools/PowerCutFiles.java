// SPDX-License-Identifier: Apache-2.0
package io.mvbt.tools;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.function.Supplier;
import java.util.stream.Stream;

/**
 * A {@link DurableFiles} that does every step on the disk and, just before it, takes the state a
 * power cut at that moment could leave in a directory tree ({@link Cut}). The disk it models keeps
 * of a file what its last fsync made durable, and of a directory the entries its last directory
 * fsync did; whatever was written since may be lost, kept or (a file) torn by 512-byte sectors, and
 * each directory entry may be the durable one or the current one. Only fsyncs through this seam
 * count: a file that mvbt's store layer wrote and synced by itself counts as unsynced until the
 * tool syncs it here, so the test trusts nothing but the tool's own order of steps.
 *
 * <p>A file is known by its inode ({@code fileKey}), so its durable content follows it through a
 * rename; a delete through the seam forgets the inode, so that a new file reusing its number is
 * new. The tree's root directory is taken to be durable in its parent.
 */
final class PowerCutFiles implements DurableFiles {
    private static final int SECTOR = 512;

    /** A file or directory on the modelled disk. */
    private static final class Node {
        final boolean directory;
        /** A file's content as of its last fsync (new files: none). */
        byte[] durable = new byte[0];
        /** A file's content when last looked at. */
        byte[] current = new byte[0];
        /** A directory's entries as of its last fsync. */
        Map<String, Node> durableEntries = new TreeMap<>();
        /** A directory's entries when last looked at. */
        Map<String, Node> entries = new TreeMap<>();

        Node(boolean directory) {
            this.directory = directory;
        }
    }

    /** One node as it stood at a cut. */
    private record Frozen(byte[] durable, byte[] current, Map<String, Node> durableEntries, Map<String, Node> entries) {
    }

    /**
     * A moment the power may go: just before {@code step}, or after the command returned
     * ({@link #last}); {@code alongside} holds what the test took of other storage at that moment.
     */
    static final class Cut {
        final String step;
        final boolean last;
        final List<byte[]> alongside;
        private final Node root;
        private final IdentityHashMap<Node, Frozen> nodes;

        private Cut(String step, boolean last, List<byte[]> alongside, Node root, IdentityHashMap<Node, Frozen> nodes) {
            this.step = step;
            this.last = last;
            this.alongside = alongside;
            this.root = root;
            this.nodes = nodes;
        }

        private Map<Node, Map<String, Integer>> changed;

        /** Each changed entry's number, directory by directory, numbered depth first by name. */
        private Map<Node, Map<String, Integer>> changed() {
            if (changed == null) {
                changed = new IdentityHashMap<>();
                number(root, new int[1]);
            }
            return changed;
        }

        private void number(Node dir, int[] next) {
            if (changed.containsKey(dir)) {
                return;
            }
            Frozen f = nodes.get(dir);
            Map<String, Integer> numbers = new TreeMap<>();
            changed.put(dir, numbers);
            TreeSet<String> names = new TreeSet<>(f.durableEntries().keySet());
            names.addAll(f.entries().keySet());
            for (String name : names) {
                Node durable = f.durableEntries().get(name);
                Node current = f.entries().get(name);
                if (durable != current) {
                    numbers.put(name, next[0]++);
                }
                for (Node child : new Node[] {durable, current}) {
                    if (child != null && child.directory) {
                        number(child, next);
                    }
                }
            }
        }

        @Override
        public String toString() {
            return last ? "after the command returned" : "before " + step;
        }
    }

    private final Path root;
    private final Node rootNode = new Node(true);
    private final Supplier<List<byte[]>> alongside;
    /** The inode of each node seen at the last look. */
    private Map<Object, Node> inodes = new HashMap<>();
    private final List<Cut> cuts = new ArrayList<>();

    /**
     * Models the tree under {@code root}, all durable as it stands now; at every cut {@code alongside}
     * (if not null) says what else the power cut leaves.
     */
    PowerCutFiles(Path root, Supplier<List<byte[]>> alongside) {
        this.root = root;
        this.alongside = alongside;
        look();
        settle(rootNode);
    }

    private static void settle(Node node) {
        node.durable = node.current;
        node.durableEntries = new TreeMap<>(node.entries);
        for (Node child : node.entries.values()) {
            settle(child);
        }
    }

    @Override
    public void force(FileChannel channel, Path file) throws IOException {
        cut("fsync of " + root.relativize(file.toAbsolutePath()));
        DISK.force(channel, file);
        Node node = nodeAt(file);
        node.durable = node.current;
    }

    @Override
    public void move(Path from, Path to, boolean replace) throws IOException {
        cut("rename of " + root.relativize(from.toAbsolutePath()) + " to " + to.getFileName());
        if (replace && Files.exists(to)) {
            inodes.remove(inode(to));
        }
        DISK.move(from, to, replace);
    }

    @Override
    public void syncDirectory(Path dir) throws IOException {
        Path relative = root.relativize(dir.toAbsolutePath());
        cut("fsync of directory " + (relative.toString().isEmpty() ? "." : relative));
        DISK.syncDirectory(dir);
        Node node = nodeAt(dir);
        node.durableEntries = new TreeMap<>(node.entries);
    }

    @Override
    public void delete(Path file) throws IOException {
        cut("delete of " + root.relativize(file.toAbsolutePath()));
        if (Files.exists(file, LinkOption.NOFOLLOW_LINKS)) {
            inodes.remove(inode(file));
        }
        DISK.delete(file);
    }

    /** The cut after the command returned: all it made durable must be there. */
    void finish() {
        take("", true);
    }

    List<Cut> cuts() {
        return cuts;
    }

    private void cut(String step) {
        take(step, false);
    }

    private void take(String step, boolean last) {
        look();
        IdentityHashMap<Node, Frozen> frozen = new IdentityHashMap<>();
        freeze(rootNode, frozen);
        cuts.add(new Cut(step, last, alongside == null ? List.of() : alongside.get(), rootNode, frozen));
    }

    private static void freeze(Node node, IdentityHashMap<Node, Frozen> into) {
        if (into.containsKey(node)) {
            return;
        }
        into.put(node, new Frozen(node.durable, node.current, Map.copyOf(node.durableEntries), Map.copyOf(node.entries)));
        for (Node child : node.durableEntries.values()) {
            freeze(child, into);
        }
        for (Node child : node.entries.values()) {
            freeze(child, into);
        }
    }

    /** Reads the tree as it is now: which inode each name holds, and every file's bytes. */
    private void look() {
        Map<Object, Node> seen = new HashMap<>();
        look(rootNode, root, seen);
        inodes = seen;
    }

    private void look(Node dir, Path path, Map<Object, Node> seen) {
        Map<String, Node> now = new TreeMap<>();
        try (Stream<Path> listed = Files.list(path)) {
            for (Path child : (Iterable<Path>) listed::iterator) {
                boolean isDirectory = Files.isDirectory(child, LinkOption.NOFOLLOW_LINKS);
                Object key = inode(child);
                Node node = inodes.get(key);
                if (node == null || node.directory != isDirectory) {
                    node = new Node(isDirectory);
                }
                seen.put(key, node);
                if (isDirectory) {
                    look(node, child, seen);
                } else {
                    node.current = Files.readAllBytes(child);
                }
                now.put(child.getFileName().toString(), node);
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot look at " + path, e);
        }
        dir.entries = now;
    }

    private Node nodeAt(Path path) {
        Node node = rootNode;
        for (Path name : root.relativize(path.toAbsolutePath())) {
            if (name.toString().isEmpty()) {
                continue;
            }
            node = node.entries.get(name.toString());
            if (node == null) {
                throw new IllegalStateException(path + " was not there at the last look");
            }
        }
        return node;
    }

    private static Object inode(Path path) throws IOException {
        Object key = Files.readAttributes(path, BasicFileAttributes.class, LinkOption.NOFOLLOW_LINKS).fileKey();
        if (key == null) {
            throw new IllegalStateException("this file system gives no inode numbers; the model needs them");
        }
        return key;
    }

    /** How much of what was not durable a power cut kept. */
    enum Outcome {
        /** Nothing: the disk as the last fsyncs left it. */
        LOST,
        /** Everything, as after {@code kill -9}. */
        KEPT,
        /** Every create, rename and delete, but no data not synced: a journal that logs names and not data. */
        NAMES_WITHOUT_DATA,
        /** Each directory entry (unless given) and each file (lost, kept, or torn by sector and cut to either length) at random. */
        MIXED
    }

    /**
     * The directory entries that changed since their directory's last fsync, anywhere in the tree,
     * in a fixed order: {@link #write} can be told which of them survive.
     */
    static int changedEntries(Cut cut) {
        return cut.changed().values().stream().mapToInt(Map::size).sum();
    }

    /**
     * Writes into the new directory {@code into} one state the disk could hold after {@code cut}.
     * With {@link Outcome#MIXED} and {@code entries} not negative, bit i of {@code entries} says
     * whether changed entry i (of {@link #changedEntries}) is the current one; entries past its bits
     * are chosen at random.
     */
    static void write(Cut cut, Outcome outcome, long entries, int bits, Random random, Path into) {
        try {
            Files.createDirectories(into);
            writeDirectory(cut, cut.root, outcome, entries, bits, random, new IdentityHashMap<>(), into);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write a crash image into " + into, e);
        }
    }

    private static void writeDirectory(Cut cut, Node dir, Outcome outcome, long entries, int bits, Random random,
            IdentityHashMap<Node, byte[]> chosen, Path into) throws IOException {
        Frozen f = cut.nodes.get(dir);
        TreeSet<String> names = new TreeSet<>(f.durableEntries().keySet());
        names.addAll(f.entries().keySet());
        for (String name : names) {
            Node durable = f.durableEntries().get(name);
            Node current = f.entries().get(name);
            Node node;
            if (durable == current || outcome == Outcome.KEPT || outcome == Outcome.NAMES_WITHOUT_DATA) {
                node = current;
            } else if (outcome == Outcome.LOST) {
                node = durable;
            } else {
                int i = cut.changed().get(dir).get(name);
                boolean kept = entries >= 0 && i < bits ? (entries >>> i & 1) == 1 : random.nextBoolean();
                node = kept ? current : durable;
            }
            if (node == null) {
                continue;
            }
            Path path = into.resolve(name);
            if (node.directory) {
                Files.createDirectory(path);
                writeDirectory(cut, node, outcome, entries, bits, random, chosen, path);
            } else {
                Files.write(path, chosen.computeIfAbsent(node, n -> content(cut.nodes.get(n), outcome, random)));
            }
        }
    }

    private static byte[] content(Frozen f, Outcome outcome, Random random) {
        byte[] old = f.durable();
        byte[] now = f.current();
        if (outcome == Outcome.LOST || outcome == Outcome.NAMES_WITHOUT_DATA) {
            return old;
        }
        if (outcome == Outcome.KEPT || java.util.Arrays.equals(old, now)) {
            return now;
        }
        int choice = random.nextInt(5);
        if (choice < 2) {
            return old;
        }
        if (choice < 4) {
            return now;
        }
        // Torn: each sector old or new; a sector that was never written reads as zeros.
        byte[] out = new byte[random.nextBoolean() ? old.length : now.length];
        for (int at = 0; at < out.length; at += SECTOR) {
            byte[] from = random.nextBoolean() ? now : old;
            int n = Math.min(SECTOR, Math.min(out.length, from.length) - at);
            if (n > 0) {
                System.arraycopy(from, at, out, at, n);
            }
        }
        return out;
    }
}
