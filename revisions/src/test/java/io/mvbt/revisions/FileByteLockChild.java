// SPDX-License-Identifier: Apache-2.0
package io.mvbt.revisions;

import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

/**
 * Holds the writers' byte of a store file ({@code 2^63 - 2}) shared or exclusively for a while, as a
 * reader looking at it or a writer by another name would: {@code FILE shared|exclusive MILLIS}.
 * Prints "locked PID" once it holds it.
 */
public final class FileByteLockChild {
    private FileByteLockChild() {
    }

    public static void main(String[] args) throws Exception {
        boolean shared = args[1].equals("shared");
        try (FileChannel channel = FileChannel.open(Path.of(args[0]), StandardOpenOption.READ,
                StandardOpenOption.WRITE);
                FileLock lock = channel.lock(Long.MAX_VALUE - 1, 1, shared)) {
            System.out.println("locked " + ProcessHandle.current().pid());
            System.out.flush();
            Thread.sleep(Long.parseLong(args[2]));
        }
    }
}
