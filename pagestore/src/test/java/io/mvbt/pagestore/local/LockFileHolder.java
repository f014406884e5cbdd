// SPDX-License-Identifier: Apache-2.0
package io.mvbt.pagestore.local;

import java.io.IOException;
import java.nio.file.Path;

/** A child process for {@link LockFileRemovalTest}: opens a store's lock file, says so, closes it when its input ends. */
public final class LockFileHolder {
    private LockFileHolder() {
    }

    public static void main(String[] args) throws IOException {
        try (LockFile lockFile = LockFile.open(Path.of(args[0]), 8)) {
            System.out.println("open " + lockFile.path());
            System.out.flush();
            System.in.readAllBytes();
        }
    }
}
