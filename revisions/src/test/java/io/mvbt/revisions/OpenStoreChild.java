// SPDX-License-Identifier: Apache-2.0
package io.mvbt.revisions;

import java.nio.file.Path;

/**
 * Tries to open a store (read-only if the second argument is {@code read-only}) and prints the
 * outcome: "opened" or the exception's simple name and message.
 */
public final class OpenStoreChild {
    private OpenStoreChild() {
    }

    public static void main(String[] args) {
        Path path = Path.of(args[0]);
        boolean readOnly = args.length > 1 && args[1].equals("read-only");
        try (Store store = readOnly ? Store.openReadOnly(path) : Store.open(path)) {
            System.out.println("opened at revision " + store.revision());
        } catch (RuntimeException e) {
            System.out.println(e.getClass().getSimpleName() + ": " + e.getMessage());
        }
    }
}
