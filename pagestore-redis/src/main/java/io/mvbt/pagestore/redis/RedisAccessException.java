// SPDX-License-Identifier: Apache-2.0
package io.mvbt.pagestore.redis;

import io.mvbt.StorageException;

/**
 * Redis refused the user a store signs in as: a wrong password, no password where one is needed
 * ({@code WRONGPASS}, {@code NOAUTH}), or an ACL that denies a command or key the store needs
 * ({@code NOPERM}): a reader's credentials used to take the writer lease, say. Nothing was
 * changed by the refused command.
 */
public final class RedisAccessException extends StorageException {
    private static final long serialVersionUID = 1L;

    RedisAccessException(String message, Throwable cause) {
        super(message, cause);
    }
}
