// SPDX-License-Identifier: Apache-2.0
package io.mvbt.bench.peers;

import java.nio.file.Path;
import java.util.Locale;

import io.mvbt.bench.KvStore;
import io.mvbt.bench.SyncMode;

/** The stores the harness compares, by the names {@code --peers} takes. */
public enum Peer {
    MVBT("mvbt"),
    /** mvbt with {@code StoreOptions.shadowDirectory(/dev/shm)}; only when named. */
    MVBT_SHADOW("mvbt-shadow"),
    /** mvbt with {@code StoreOptions.redoLog(true)}; only when named. */
    MVBT_REDO("mvbt-redo"),
    MVBT_REDIS("mvbt-redis"),
    LMDB("lmdb"),
    ROCKSDB("rocksdb"),
    SQLITE("sqlite"),
    MVSTORE("mvstore"),
    XODUS("xodus"),
    SKIPLIST("skiplist");

    private final String id;

    Peer(String id) {
        this.id = id;
    }

    public String id() {
        return id;
    }

    public static Peer parse(String s) {
        String want = s.trim().toLowerCase(Locale.ROOT);
        for (Peer p : values()) {
            if (p.id.equals(want)) {
                return p;
            }
        }
        throw new IllegalArgumentException("unknown peer '" + s
                + "'; known: mvbt, mvbt-shadow, mvbt-redo, mvbt-redis, lmdb, rocksdb, sqlite, mvstore, xodus, skiplist");
    }

    /** The peers a run compares unless {@code --peers} names them: all but the variants of mvbt's options. */
    public static java.util.List<Peer> defaults() {
        return java.util.Arrays.stream(values()).filter(p -> p != MVBT_SHADOW && p != MVBT_REDO).toList();
    }

    /** Opens (creating) the store in {@code dir}, an empty directory. */
    public KvStore open(Path dir, SyncMode mode) {
        return switch (this) {
            case MVBT -> new MvbtPeer(dir, mode);
            case MVBT_SHADOW -> MvbtPeer.shadowed(dir, mode);
            case MVBT_REDO -> MvbtPeer.logged(dir, mode);
            case MVBT_REDIS -> MvbtRedisPeer.open(dir, mode);
            case LMDB -> new LmdbPeer(dir, mode);
            case ROCKSDB -> new RocksPeer(dir, mode);
            case SQLITE -> new SqlitePeer(dir, mode);
            case MVSTORE -> new MvStorePeer(dir, mode);
            case XODUS -> new XodusPeer(dir, mode);
            case SKIPLIST -> new SkipListPeer();
        };
    }

    /** The store's settings for {@code mode}, printed beside its results. */
    public String settings(SyncMode mode) {
        return switch (this) {
            case MVBT -> MvbtPeer.settings(mode);
            case MVBT_SHADOW -> MvbtPeer.settings(mode) + "; the writer's pages in a shadow in " + MvbtPeer.SHADOWS
                    + " until their checkpoint";
            case MVBT_REDO -> MvbtPeer.settings(mode) + "; a redo log: a sync writes the log, not the pages";
            case MVBT_REDIS -> MvbtRedisPeer.settings(mode);
            case LMDB -> LmdbPeer.settings(mode);
            case ROCKSDB -> RocksPeer.settings(mode);
            case SQLITE -> SqlitePeer.settings(mode);
            case MVSTORE -> MvStorePeer.settings(mode);
            case XODUS -> XodusPeer.settings(mode);
            case SKIPLIST -> SkipListPeer.settings();
        };
    }
}
