// SPDX-License-Identifier: Apache-2.0
package io.mvbt.tools;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;

/** {@link DurableFiles} on the real disk: what the commands use. */
final class DiskFiles implements DurableFiles {
    @Override
    public void force(FileChannel channel, Path file) throws IOException {
        channel.force(true);
    }

    @Override
    public void move(Path from, Path to, boolean replace) throws IOException {
        if (replace) {
            Files.move(from, to, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
        } else {
            Files.move(from, to, StandardCopyOption.ATOMIC_MOVE);
        }
    }

    @Override
    public void syncDirectory(Path dir) throws IOException {
        try (FileChannel channel = FileChannel.open(dir, StandardOpenOption.READ)) {
            channel.force(true);
        }
    }

    @Override
    public void delete(Path file) throws IOException {
        Files.deleteIfExists(file);
    }
}
