// SPDX-License-Identifier: Apache-2.0
package io.mvbt.tools;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.TreeMap;
import java.util.stream.Stream;
import java.util.zip.CRC32C;

/**
 * A backup directory (docs/tools.md, "backup"): {@value #CHAIN} names the chain and its source store;
 * link 0 is a compact copy ({@value #FULL}) with {@value #BASE} recording its revision and checksum;
 * link k &gt; 0 is {@code k.delta} (six digits), the changes from link k-1's revision to its own.
 * Every file is written under a temporary name, synced, renamed and its directory synced, so a file
 * under its final name is complete; a link counts once that file is there.
 */
final class BackupChain {
    static final String CHAIN = "chain";
    static final String FULL = "000000.mvbt";
    static final String BASE = "000000.base";
    /** The first eight bytes of the chain file read "mvbtchn1", of the base record "mvbtbas1". */
    private static final long CHAIN_MAGIC = Long.reverseBytes(0x6d76627463686e31L);
    private static final long BASE_MAGIC = Long.reverseBytes(0x6d76627462617331L);

    /** The chain and the store it backs up; written before anything else, so a re-run keeps the chain. */
    record Identity(long chainId, long storeId) {
        /** The prefix of the names the chain keeps its revisions under in the source. */
        String namePrefix() {
            return "backup:" + Long.toHexString(chainId) + ":";
        }
    }

    /** Link 0: the revision the full copy holds, and the copy's length and CRC-32C. */
    record Base(long revision, long fullLength, int fullCrc) {
    }

    final Path dir;
    private final DurableFiles files;

    BackupChain(Path dir, DurableFiles files) {
        this.dir = dir;
        this.files = files;
    }

    static String deltaName(int link) {
        return String.format("%06d.delta", link);
    }

    Path full() {
        return dir.resolve(FULL);
    }

    Path delta(int link) {
        return dir.resolve(deltaName(link));
    }

    /** The chain's identity, or null if the directory holds none yet. */
    Identity identity() {
        byte[] b = readSmall(dir.resolve(CHAIN), 8 + 8 + 8 + 4, CHAIN_MAGIC);
        if (b == null) {
            return null;
        }
        ByteBuffer bb = DeltaFormat.wrap(b);
        return new Identity(bb.getLong(8), bb.getLong(16));
    }

    void writeIdentity(Identity id) {
        ByteBuffer b = DeltaFormat.buffer(28).putLong(CHAIN_MAGIC).putLong(id.chainId()).putLong(id.storeId());
        b.putInt(DeltaFormat.crc(b.array(), 0, 24));
        writeAtomically(dir.resolve(CHAIN), b.array());
    }

    /** Link 0's record, or null if the first backup has not completed. */
    Base base(Identity id) {
        byte[] b = readSmall(dir.resolve(BASE), 8 + 8 + 8 + 8 + 8 + 4 + 4, BASE_MAGIC);
        if (b == null) {
            return null;
        }
        ByteBuffer bb = DeltaFormat.wrap(b);
        if (bb.getLong(8) != id.chainId() || bb.getLong(16) != id.storeId()) {
            throw new CommandException(ExitCodes.DAMAGED, dir.resolve(BASE) + " belongs to another chain than "
                    + dir.resolve(CHAIN));
        }
        return new Base(bb.getLong(24), bb.getLong(32), bb.getInt(40));
    }

    void writeBase(Identity id, Base base) {
        ByteBuffer b = DeltaFormat.buffer(48).putLong(BASE_MAGIC).putLong(id.chainId()).putLong(id.storeId())
                .putLong(base.revision()).putLong(base.fullLength()).putInt(base.fullCrc());
        b.putInt(DeltaFormat.crc(b.array(), 0, 44));
        writeAtomically(dir.resolve(BASE), b.array());
    }

    /**
     * The delta files by link number; a gap (a link removed) is damage: the links after it cannot be
     * applied.
     */
    List<Path> deltas() {
        TreeMap<Integer, Path> found = new TreeMap<>();
        try (Stream<Path> listed = Files.list(dir)) {
            listed.forEach(p -> {
                String n = p.getFileName().toString();
                if (n.matches("[0-9]{6}\\.delta")) {
                    found.put(Integer.parseInt(n.substring(0, 6)), p);
                }
            });
        } catch (IOException e) {
            throw new UncheckedIOException("cannot list " + dir, e);
        }
        List<Path> out = new ArrayList<>();
        int expected = 1;
        for (var e : found.entrySet()) {
            if (e.getKey() != expected) {
                throw new CommandException(ExitCodes.DAMAGED, "backup chain " + dir + " lacks link " + expected
                        + " (" + deltaName(expected) + "), so link " + e.getKey() + " and those after it cannot be "
                        + "applied; restore --to the revision of link " + (expected - 1) + " or earlier");
            }
            out.add(e.getValue());
            expected++;
        }
        return out;
    }

    /** Removes what a backup killed midway left: files under temporary names. */
    void removeLeftovers() {
        try (Stream<Path> listed = Files.list(dir)) {
            for (Path p : (Iterable<Path>) listed::iterator) {
                String n = p.getFileName().toString();
                if (n.endsWith(".partial") || n.endsWith(".partial-lock") || n.endsWith(".tmp")) {
                    files.delete(p);
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot clean " + dir, e);
        }
    }

    static int crcOf(Path file) {
        CRC32C crc = new CRC32C();
        byte[] buffer = new byte[1 << 16];
        try (InputStream in = Files.newInputStream(file)) {
            for (int n; (n = in.read(buffer)) > 0; ) {
                crc.update(buffer, 0, n);
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read " + file, e);
        }
        return (int) crc.getValue();
    }

    private byte[] readSmall(Path file, int length, long magic) {
        if (!Files.exists(file)) {
            return null;
        }
        byte[] b;
        try {
            b = Files.readAllBytes(file);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read " + file, e);
        }
        if (b.length != length || DeltaFormat.wrap(b).getLong(0) != magic
                || DeltaFormat.crc(b, 0, length - 4) != DeltaFormat.wrap(b).getInt(length - 4)) {
            throw new CommandException(ExitCodes.DAMAGED, "backup chain file " + file + " is damaged (" + b.length
                    + " bytes, its checksum or magic does not match)");
        }
        return b;
    }

    /** Writes a small file so that it is either absent or complete under its name, and durable. */
    private void writeAtomically(Path file, byte[] bytes) {
        Path tmp = file.resolveSibling(file.getFileName() + ".tmp");
        try (FileChannel c = FileChannel.open(tmp, StandardOpenOption.CREATE, StandardOpenOption.TRUNCATE_EXISTING,
                StandardOpenOption.WRITE)) {
            ByteBuffer b = DeltaFormat.wrap(bytes);
            while (b.hasRemaining()) {
                c.write(b);
            }
            files.force(c, tmp);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write " + tmp, e);
        }
        try {
            files.move(tmp, file, true);
            files.syncDirectory(file.toAbsolutePath().getParent());
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write " + file, e);
        }
    }
}
