// SPDX-License-Identifier: Apache-2.0
package io.mvbt.bench;

/** How durable a commit is: matched across stores as closely as they allow. */
public enum SyncMode {
    /** Commit without fsync: a process crash loses nothing, a power cut only recent commits. */
    NOSYNC,
    /** One fsync (or fdatasync) per commit. */
    SYNC;

    public static SyncMode parse(String s) {
        return switch (s.toLowerCase(java.util.Locale.ROOT)) {
            case "nosync" -> NOSYNC;
            case "sync" -> SYNC;
            default -> throw new IllegalArgumentException("durability is nosync or sync, not " + s);
        };
    }

    public String label() {
        return name().toLowerCase(java.util.Locale.ROOT);
    }
}
