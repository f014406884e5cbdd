// SPDX-License-Identifier: Apache-2.0
package io.mvbt.revisions;

import java.nio.file.Path;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.io.TempDir;

import io.mvbt.testkit.RedisServers;

/** For test classes that share one Redis server and one 3-master cluster, started before their tests and stopped after. */
abstract class RedisTestServers {
    @TempDir
    static Path dir;
    static RedisServers single;
    static RedisServers cluster;

    @BeforeAll
    static void startRedis() throws Exception {
        single = RedisServers.single(dir.resolve("single"));
        cluster = RedisServers.cluster(dir.resolve("cluster"), 3);
    }

    @AfterAll
    static void stopRedis() {
        if (single != null) {
            single.close();
        }
        if (cluster != null) {
            cluster.close();
        }
    }
}
