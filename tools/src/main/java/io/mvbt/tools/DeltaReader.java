// SPDX-License-Identifier: Apache-2.0
package io.mvbt.tools;

import java.io.BufferedInputStream;
import java.io.DataInputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.zip.CRC32C;

/**
 * Reads a delta file ({@link DeltaFormat}) from start to end, checking the header, every block's
 * CRC, the records' structure and the trailer, and hands its records to a {@link Records}. Damage
 * of any kind is a {@link CommandException} with {@link ExitCodes#DAMAGED} naming the file and the
 * offset: a delta is read once to check it and once more to apply it, never applied unchecked.
 */
final class DeltaReader {
    /** What a delta holds, in order. */
    interface Records {
        void created(String tree);

        void dropped(String tree);

        void tree(String tree);

        /** {@code value} null: the key was removed. */
        void changed(byte[] key, byte[] value);
    }

    /** Accepts every record: for a pass that only checks. */
    static final Records CHECK_ONLY = new Records() {
        @Override
        public void created(String tree) {
        }

        @Override
        public void dropped(String tree) {
        }

        @Override
        public void tree(String tree) {
        }

        @Override
        public void changed(byte[] key, byte[] value) {
        }
    };

    private DeltaReader() {
    }

    /** Reads only the header, checked: for listing a chain. */
    static DeltaFormat.Header header(Path file) {
        try (InputStream in = Files.newInputStream(file)) {
            byte[] head = in.readNBytes(DeltaFormat.HEADER_BYTES);
            return parseHeader(file, head);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read " + file, e);
        }
    }

    /** Reads and checks the whole file, handing every record to {@code out}; returns the header. */
    static DeltaFormat.Header read(Path file, Records out) {
        try (InputStream raw = Files.newInputStream(file)) {
            long size = Files.size(file);
            DataInputStream in = new DataInputStream(new BufferedInputStream(raw, 1 << 16));
            CRC32C whole = new CRC32C();
            byte[] head = readFully(in, file, DeltaFormat.HEADER_BYTES, 0);
            DeltaFormat.Header header = parseHeader(file, head);
            whole.update(head);
            long at = DeltaFormat.HEADER_BYTES;
            long records = 0;
            long blocks = 0;
            long payload = 0;
            while (true) {
                int wholeBefore = (int) whole.getValue();
                byte[] lengthAndCrc = readFully(in, file, 8, at);
                int length = DeltaFormat.wrap(lengthAndCrc).getInt();
                if (length == 0) {
                    checkTrailer(file, in, at, lengthAndCrc, wholeBefore, records, blocks, payload, size);
                    return header;
                }
                if (length < 0 || length > size - at - 8) {
                    throw damaged(file, at, "a block length of " + length + " bytes runs past the end of the file");
                }
                int crc = DeltaFormat.wrap(lengthAndCrc).getInt(4);
                byte[] block = readFully(in, file, length, at + 8);
                if (DeltaFormat.crc(block, 0, length) != crc) {
                    throw damaged(file, at, "the block's checksum does not match its " + length + " bytes");
                }
                whole.update(lengthAndCrc);
                whole.update(block);
                records += parseRecords(file, at + 8, block, out);
                blocks++;
                payload += length;
                at += 8 + length;
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read " + file, e);
        }
    }

    private static DeltaFormat.Header parseHeader(Path file, byte[] head) {
        if (head.length < DeltaFormat.HEADER_BYTES) {
            throw damaged(file, 0, "it is shorter than a delta header (" + head.length + " bytes)");
        }
        ByteBuffer b = DeltaFormat.wrap(head);
        if (b.getLong(0) != DeltaFormat.MAGIC) {
            throw damaged(file, 0, "it does not start as a delta file does");
        }
        if (DeltaFormat.crc(head, 0, DeltaFormat.HEADER_BYTES - 4) != b.getInt(DeltaFormat.HEADER_BYTES - 4)) {
            throw damaged(file, 0, "the header's checksum does not match");
        }
        int version = b.getInt(8);
        if (version != DeltaFormat.VERSION) {
            throw new CommandException(ExitCodes.FAILED, file + " is a delta of format version " + version
                    + "; this mvbt reads version " + DeltaFormat.VERSION);
        }
        return new DeltaFormat.Header(b.getInt(12), b.getLong(16), b.getLong(24), b.getLong(32), b.getLong(40));
    }

    private static void checkTrailer(Path file, DataInputStream in, long at, byte[] first8, int wholeBefore,
            long records, long blocks, long payload, long size) throws IOException {
        byte[] rest = readFully(in, file, DeltaFormat.TRAILER_BYTES - 8, at + 8);
        ByteBuffer t = DeltaFormat.buffer(DeltaFormat.TRAILER_BYTES).put(first8).put(rest);
        byte[] trailer = t.array();
        if (DeltaFormat.crc(trailer, 0, DeltaFormat.TRAILER_BYTES - 4) != t.getInt(DeltaFormat.TRAILER_BYTES - 4)) {
            throw damaged(file, at, "the trailer's checksum does not match");
        }
        if (t.getLong(4) != records || t.getLong(12) != blocks || t.getLong(20) != payload) {
            throw damaged(file, at, "the trailer counts " + t.getLong(4) + " records in " + t.getLong(12)
                    + " blocks, the file holds " + records + " in " + blocks);
        }
        if (t.getInt(28) != wholeBefore) {
            throw damaged(file, at, "the file's checksum in the trailer does not match its contents");
        }
        if (at + DeltaFormat.TRAILER_BYTES != size || in.read() != -1) {
            throw damaged(file, at + DeltaFormat.TRAILER_BYTES, "bytes follow the trailer");
        }
    }

    private static long parseRecords(Path file, long offset, byte[] block, Records out) {
        ByteBuffer b = DeltaFormat.wrap(block);
        long n = 0;
        while (b.hasRemaining()) {
            long at = offset + b.position();
            byte type = b.get();
            switch (type) {
                case DeltaFormat.TREE, DeltaFormat.CREATE, DeltaFormat.DROP -> {
                    String name = new String(bytes(file, at, b), StandardCharsets.UTF_8);
                    if (type == DeltaFormat.TREE) {
                        out.tree(name);
                    } else if (type == DeltaFormat.CREATE) {
                        out.created(name);
                    } else {
                        out.dropped(name);
                    }
                }
                case DeltaFormat.PUT -> {
                    byte[] key = bytes(file, at, b);
                    out.changed(key, bytes(file, at, b));
                }
                case DeltaFormat.DELETE -> out.changed(bytes(file, at, b), null);
                default -> throw damaged(file, at, "unknown record type " + type);
            }
            n++;
        }
        return n;
    }

    /** A varint length and that many bytes, both within the block. */
    private static byte[] bytes(Path file, long at, ByteBuffer b) {
        int length = 0;
        for (int shift = 0; ; shift += 7) {
            if (!b.hasRemaining() || shift > 28) {
                throw damaged(file, at, "a record's length runs past its block");
            }
            byte x = b.get();
            length |= (x & 0x7F) << shift;
            if (x >= 0) {
                break;
            }
        }
        if (length < 0 || length > b.remaining()) {
            throw damaged(file, at, "a record's " + length + " bytes run past its block");
        }
        byte[] out = new byte[length];
        b.get(out);
        return out;
    }

    private static byte[] readFully(DataInputStream in, Path file, int length, long at) throws IOException {
        byte[] out = new byte[length];
        try {
            in.readFully(out);
        } catch (EOFException e) {
            throw damaged(file, at, "it ends early (torn or truncated): no trailer");
        }
        return out;
    }

    static CommandException damaged(Path file, long offset, String what) {
        return new CommandException(ExitCodes.DAMAGED, "backup link " + file + " is damaged at byte " + offset + ": "
                + what);
    }
}
