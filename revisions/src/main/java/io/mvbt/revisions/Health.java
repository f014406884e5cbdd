// SPDX-License-Identifier: Apache-2.0
package io.mvbt.revisions;

import java.nio.channels.ClosedChannelException;

import io.mvbt.StorageException;
import io.mvbt.StoreFailedException;

/**
 * Whether the store may still write: the first write or sync that failed, and the first damage
 * {@link Store#check} found. A failed fsync is never retried as if it worked (the kernel may have
 * dropped the pages it could not write), so after one the store refuses writes until it is
 * reopened; after damage it writes nothing but the checkpoints of commits already made, since a
 * free map that calls a page in use free would hand that page to the next write.
 */
final class Health {
    private volatile Throwable failure;
    private volatile String damage;

    /** The first write or sync that failed, or null. */
    Throwable failure() {
        return failure;
    }

    /** The first problem {@link Store#check} found, or null. */
    String damage() {
        return damage;
    }

    /** Throws if a write or sync failed; {@code where} names the store. */
    void checkUnfailed(String where) {
        Throwable f = failure;
        if (f != null) {
            throw new StoreFailedException("store " + where + " failed earlier and refuses writes until reopened: "
                    + f.getMessage(), f);
        }
    }

    /** Throws if a write or sync failed, or if damage was found; {@code where} names the store. */
    void checkWritable(String where) {
        checkUnfailed(where);
        String d = damage;
        if (d != null) {
            throw new StoreFailedException("check() found store " + where + " damaged (" + d + "); it refuses "
                    + "writes until reopened, so that none lands on a page the damage calls free (copyTo saves "
                    + "what can be read)");
        }
    }

    void damaged(String problem) {
        if (damage == null) {
            damage = problem;
        }
    }

    void failed(Throwable t) {
        if (failure == null) {
            failure = t;
        }
    }

    /** Runs a sync; if it fails, the store refuses further writes. */
    void sync(Runnable sync) {
        sync(sync, "syncing the pages failed");
    }

    /** As {@link #sync(Runnable)}, for any step toward durability; {@code what} names its failure. */
    void sync(Runnable sync, String what) {
        try {
            sync.run();
        } catch (StorageException e) {
            throw syncFailed(e, what);
        }
    }

    /** A step toward durability failed: the store refuses further writes. Returns the exception to throw. */
    StoreFailedException syncFailed(StorageException e, String what) {
        failed(e);
        // An interrupt that closed the channel is no disk failure, and is not reported as one.
        return new StoreFailedException((channelClosed(e) ? "" : what + "; ")
                + "the store refuses further writes until it is reopened: " + e.getMessage(), e);
    }

    /**
     * A write (or a growth of the file) that found the file's channel closed: an interrupt of a
     * thread doing file I/O closes it for good, so no later write could succeed either, and the
     * store refuses writes until it is reopened. Any other failure (a full disk) leaves it
     * writable: the transaction aborts.
     */
    RuntimeException writeFailed(StorageException e) {
        if (!channelClosed(e)) {
            return e;
        }
        failed(e);
        return new StoreFailedException("the store refuses further writes until it is reopened: " + e.getMessage(), e);
    }

    private static boolean channelClosed(StorageException e) {
        return e.getCause() instanceof ClosedChannelException;
    }
}
