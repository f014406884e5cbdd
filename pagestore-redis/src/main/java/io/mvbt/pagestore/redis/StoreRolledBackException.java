// SPDX-License-Identifier: Apache-2.0
package io.mvbt.pagestore.redis;

import io.mvbt.CorruptionException;

/**
 * A store on Redis holds an older state than one this process has seen, or than the application
 * said it must hold ({@link RedisStoreOptions#knownRevision}), or its meta hash disagrees with
 * itself about which meta is the newest (a meta slot deleted or put back): opening it, or
 * following it, would silently lose commits. Nothing was written.
 */
public final class StoreRolledBackException extends CorruptionException {
    private static final long serialVersionUID = 1L;

    StoreRolledBackException(String message) {
        super(-1, message);
    }
}
