// SPDX-License-Identifier: Apache-2.0
package io.mvbt.revisions;

import java.time.Duration;

import javax.crypto.spec.SecretKeySpec;

import io.mvbt.MvbtException;
import io.mvbt.pagestore.redis.RedisEndpoint;
import io.mvbt.pagestore.redis.RedisPageStore;
import io.mvbt.pagestore.redis.RedisStoreOptions;
import io.mvbt.pagestore.redis.SealingKeys;

/**
 * Opens a store on Redis in a JVM that has seen nothing of it, for {@link RedisRollbackTest}, and
 * prints "opened REVISION", or "refused EXCEPTION". Arguments: endpoint, store name, "reader" or
 * "writer", "sealed" or "plain", the revision the application knows of, or -1.
 */
public final class RedisOpenChild {
    public static void main(String[] args) {
        RedisStoreOptions options = RedisStoreOptions.defaults().leaseWait(Duration.ofSeconds(10));
        if (args[3].equals("sealed")) {
            options = options.sealWith(sealingKeys());
        }
        long known = Long.parseLong(args[4]);
        if (known >= 0) {
            options = options.knownRevision(known);
        }
        RedisEndpoint endpoint = RedisEndpoint.parse(args[0]);
        try (Store store = Store.open(args[2].equals("writer") ? RedisPageStore.open(endpoint, args[1], options)
                : RedisPageStore.openReader(endpoint, args[1], options), StoreOptions.defaults())) {
            System.out.println("opened " + store.revision());
        } catch (MvbtException e) {
            System.out.println("refused " + e.toString().replace('\n', ' '));
        }
    }

    static SealingKeys sealingKeys() {
        return SealingKeys.of("k1", new SecretKeySpec(new byte[32], "AES"));
    }
}
