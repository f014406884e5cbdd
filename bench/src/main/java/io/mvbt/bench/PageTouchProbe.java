// SPDX-License-Identifier: Apache-2.0
package io.mvbt.bench;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.MappedByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Arrays;
import java.util.SplittableRandom;

import io.mvbt.pagestore.local.FilePageStore;

/**
 * Measures what the machine charges for the first store to a page of a shared file mapping after
 * writeback cleaned it, against a store to a page still dirty. mvbt writes pages in place through
 * such a mapping and every checkpoint cleans them, so its write phases pay the first figure once per
 * page per checkpoint window; stores that write with {@code pwrite} or a log pay other costs. The
 * figure moves a lot between machines (a few microseconds on one, 15 or more on a virtual machine
 * whose page-table updates are expensive), so the report prints it beside the machine.
 */
public final class PageTouchProbe {
    private static final int FILE_BYTES = 256 << 20;
    private static final int PAGE = 4096;
    private static final int TOUCHES = 20_000;

    private PageTouchProbe() {
    }

    /** Microseconds per first store after writeback, then per store to a dirty page. */
    public record Result(double cleanMicros, double dirtyMicros) {
        public String describe() {
            return String.format("a store to a mapped page costs %.2f µs after writeback cleaned it, %.2f µs while"
                    + " it is dirty (%d random 4 KiB pages of a 256 MiB file)", cleanMicros, dirtyMicros, TOUCHES);
        }
    }

    /** Runs the probe in a file under {@code dir}, deleted afterwards. */
    public static Result run(Path dir) throws IOException {
        Files.createDirectories(dir);
        Path file = dir.resolve("page-touch-probe");
        try (FileChannel channel = FileChannel.open(file, StandardOpenOption.CREATE, StandardOpenOption.READ,
                StandardOpenOption.WRITE, StandardOpenOption.TRUNCATE_EXISTING)) {
            // Grown the way a file store grows.
            ByteBuffer zeros = ByteBuffer.allocateDirect(FilePageStore.GROWTH_WRITE_BYTES);
            for (long position = 0; position < FILE_BYTES;) {
                position += channel.write(zeros.clear(), position);
            }
            MappedByteBuffer map = channel.map(FileChannel.MapMode.READ_WRITE, 0, FILE_BYTES);
            int pages = FILE_BYTES / PAGE;
            for (int p = 0; p < pages; p++) {
                map.put(p * PAGE, (byte) 1);
            }
            map.force();
            // Distinct pages in random order (a partial shuffle): the first pass touches each once.
            int[] all = new int[pages];
            Arrays.setAll(all, p -> p);
            SplittableRandom random = new SplittableRandom(17);
            for (int i = 0; i < TOUCHES; i++) {
                int j = i + random.nextInt(pages - i);
                int swap = all[i];
                all[i] = all[j];
                all[j] = swap;
            }
            int[] order = Arrays.copyOf(all, TOUCHES);
            double clean = touch(map, order);
            double dirty = touch(map, order);
            return new Result(clean, dirty);
        } finally {
            Files.deleteIfExists(file);
        }
    }

    private static double touch(MappedByteBuffer map, int[] order) {
        long start = System.nanoTime();
        for (int page : order) {
            int at = page * PAGE + 8;
            map.put(at, (byte) (map.get(at) + 1));
        }
        return (System.nanoTime() - start) / 1000.0 / order.length;
    }
}
