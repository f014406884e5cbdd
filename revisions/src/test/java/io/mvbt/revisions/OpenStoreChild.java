package io.mvbt.revisions;

import java.nio.file.Path;

/** Tries to open a store and prints the outcome: "opened" or the exception's simple name and message. */
public final class OpenStoreChild {
    private OpenStoreChild() {
    }

    public static void main(String[] args) {
        try (Store store = Store.open(Path.of(args[0]))) {
            System.out.println("opened at revision " + store.revision());
        } catch (RuntimeException e) {
            System.out.println(e.getClass().getSimpleName() + ": " + e.getMessage());
        }
    }
}
