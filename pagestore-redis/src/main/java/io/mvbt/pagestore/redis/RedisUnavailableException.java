// SPDX-License-Identifier: Apache-2.0
package io.mvbt.pagestore.redis;

import io.mvbt.StorageException;

/**
 * A Redis node did not answer, or answered that it cannot serve now (a cluster without a master
 * for a slot, a replica not yet promoted, too few replicas holding the writes), for longer than
 * the store waits ({@link RedisStoreOptions#failoverWait}). A writer's store refuses further
 * writes until it is reopened: what it sent may or may not be in Redis, and a reopened writer
 * finds out from the meta.
 */
public final class RedisUnavailableException extends StorageException {
    private static final long serialVersionUID = 1L;
    private final String node;

    RedisUnavailableException(String message, String node, Throwable cause) {
        super(message, cause);
        this.node = node;
    }

    /** The node ({@code host:port}) that failed, or null where it is not known. */
    public String node() {
        return node;
    }
}
