// SPDX-License-Identifier: Apache-2.0
package io.mvbt.apacheds;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Policy;
import com.github.benmanes.caffeine.cache.stats.CacheStats;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import java.util.function.Function;

/**
 * A cache that keeps nothing. {@code AbstractBTreePartition} caches entry DNs, parent-and-RDN
 * pairs and alias targets by entry id across all readers; with searches on snapshots a reader of
 * an older revision would put what it read back into a cache newer readers share (a renamed
 * entry's old DN). The RDN index answers the same in a descent or two on the reader's own
 * snapshot, so these caches are replaced with this one.
 */
final class NoCache<K, V> implements Cache<K, V> {
    @Override
    public V getIfPresent(Object key) {
        return null;
    }

    @Override
    public V get(K key, Function<? super K, ? extends V> mapping) {
        return mapping.apply(key);
    }

    @Override
    public Map<K, V> getAllPresent(Iterable<?> keys) {
        return Map.of();
    }

    @Override
    public Map<K, V> getAll(Iterable<? extends K> keys,
            Function<Iterable<? extends K>, Map<K, V>> mapping) {
        return mapping.apply(keys);
    }

    @Override
    public void put(K key, V value) {
    }

    @Override
    public void putAll(Map<? extends K, ? extends V> map) {
    }

    @Override
    public void invalidate(Object key) {
    }

    @Override
    public void invalidateAll(Iterable<?> keys) {
    }

    @Override
    public void invalidateAll() {
    }

    @Override
    public long estimatedSize() {
        return 0;
    }

    @Override
    public CacheStats stats() {
        return CacheStats.empty();
    }

    @Override
    public ConcurrentMap<K, V> asMap() {
        return new ConcurrentHashMap<>();
    }

    @Override
    public void cleanUp() {
    }

    @Override
    public Policy<K, V> policy() {
        throw new UnsupportedOperationException("a cache that keeps nothing has no policy");
    }
}
