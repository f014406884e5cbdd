// SPDX-License-Identifier: Apache-2.0
/** Pages on Redis or Redis Cluster, shared by a writer and readers on other hosts. */
module io.mvbt.pagestore.redis {
    requires transitive io.mvbt.pagestore;
    requires redis.clients.jedis;

    exports io.mvbt.pagestore.redis;
}
