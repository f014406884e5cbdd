// SPDX-License-Identifier: Apache-2.0
package io.mvbt.tools;

import java.util.function.BiConsumer;

/** One history implementation under {@code mvbt history bench}: what INN's history API asks of it. */
interface HistoryBenchEngine extends AutoCloseable {
    /** Name in the report. */
    String name();

    /** Stores an article in one commit; false if the hash was present. */
    boolean write(byte[] hash, long arrived, long posted, long expires, byte[] token);

    /** Makes every commit durable. */
    void sync();

    /** Closes, then opens again for reading only. */
    void reopenReadOnly();

    /** Whether the hash is present. */
    boolean check(byte[] hash);

    /** The token of the article under the hash, or null. */
    byte[] lookupToken(byte[] hash);

    /** Passes every entry's hash and token (null if remembered) in hash order; returns the count. */
    long walk(BiConsumer<byte[], byte[]> visitor);

    /** Bytes on disk. */
    long footprint();

    @Override
    void close();
}
