// SPDX-License-Identifier: Apache-2.0
package io.mvbt.pagestore.redis;

import io.mvbt.StorageException;

/**
 * The writer's lease on a store in Redis ran out or was taken over: this writer may not commit
 * any more (its store fails and must be reopened, which waits for the lease again).
 */
public class LeaseLostException extends StorageException {
    private static final long serialVersionUID = 1L;

    public LeaseLostException(String message) {
        super(message);
    }
}
