// SPDX-License-Identifier: Apache-2.0
package io.mvbt.revisions;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.time.Duration;

import io.mvbt.MvbtException;
import io.mvbt.pagestore.redis.RedisEndpoint;
import io.mvbt.pagestore.redis.RedisPageStore;
import io.mvbt.pagestore.redis.RedisStoreOptions;

/**
 * A SYNC writer in its own JVM for {@link RedisFencingTest}, reaching its Redis server through a
 * {@link PausingRelay}: it commits the base round and prints "based"; on a line "go" it commits
 * round 'A' and stops itself (SIGSTOP) right before the first page of that commit goes on to
 * Redis, printing "paused" first. Let go on (SIGCONT), it prints "committed" or
 * "refused EXCEPTION" and exits. Arguments: the server's port, store name, lease milliseconds.
 */
public final class RedisStaleWriterChild {
    public static void main(String[] args) throws Exception {
        RedisStoreOptions options = RedisStoreOptions.defaults().leaseTime(Duration.ofMillis(Long.parseLong(args[2])));
        try (PausingRelay relay = new PausingRelay(Integer.parseInt(args[0]))) {
            Store store = Store.open(RedisPageStore.open(RedisEndpoint.parse("127.0.0.1:" + relay.port()), args[1],
                    options), StoreOptions.defaults().durability(Durability.SYNC));
            try {
                RedisFencingTest.commitRound(store, 'a');
                System.out.println("based");
                System.out.flush();
                BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
                if (!"go".equals(in.readLine())) {
                    return;
                }
                relay.pauseAt(("mvbt:" + args[1] + ":p:").getBytes(StandardCharsets.UTF_8), () -> {
                    System.out.println("paused");
                    System.out.flush();
                });
                try {
                    RedisFencingTest.commitRound(store, 'A');
                    System.out.println("committed");
                } catch (MvbtException e) {
                    System.out.println("refused " + e.toString().replace('\n', ' '));
                }
                System.out.flush();
            } finally {
                try {
                    store.close();
                } catch (MvbtException e) {
                    // It lost its lease: its last checkpoint is refused.
                }
            }
        }
    }
}
