// SPDX-License-Identifier: Apache-2.0
/**
 * Pages: the exceptions every layer throws ({@code io.mvbt}), the page store interfaces a backend
 * implements ({@code io.mvbt.pagestore}), and, for the store only, pages in a mapped file or
 * memory with the lock file beside them ({@code io.mvbt.pagestore.local}).
 */
module io.mvbt.pagestore {
    requires transitive org.agrona.core;
    // Page memory is read through sun.misc.Unsafe (through Agrona and directly): no JVM flag needed.
    requires transitive jdk.unsupported;

    exports io.mvbt;
    exports io.mvbt.pagestore;
    exports io.mvbt.pagestore.local to io.mvbt.revisions;
}
