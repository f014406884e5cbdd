// SPDX-License-Identifier: Apache-2.0
package io.mvbt.pagestore.redis;

import java.util.concurrent.ConcurrentHashMap;

/**
 * The newest meta this process has seen of each store on Redis, by store name: published by its
 * writer here, or read by any reader or writer here. A store found older than that was rolled
 * back. A store of another id under the name (one deleted and made again) starts afresh.
 */
final class SeenHeads {
    private static final ConcurrentHashMap<String, MetaHead> NEWEST = new ConcurrentHashMap<>();

    private SeenHeads() {
    }

    /** The newest meta of store {@code name} seen so far, or null. */
    static MetaHead newest(String name) {
        return NEWEST.get(name);
    }

    /** Store {@code name}'s meta hash held {@code head}. */
    static void saw(String name, MetaHead head) {
        NEWEST.merge(name, head, (old, now) -> old.storeId() != now.storeId() || now.sequence() > old.sequence() ? now : old);
    }
}
