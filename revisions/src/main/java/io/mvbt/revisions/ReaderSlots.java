// SPDX-License-Identifier: Apache-2.0
package io.mvbt.revisions;

import io.mvbt.pagestore.PageStore;

/**
 * Claims and releases slots of the reader registry, each with a span of the page store
 * ({@link PageStore#beginSpan}), so that a store that evicts pages keeps those looked up through
 * the slot's snapshot or checkpoint until the slot goes back.
 */
final class ReaderSlots {
    private final ReaderRegistry registry;
    private final PageStore pages;
    private final long[] spans;

    ReaderSlots(ReaderRegistry registry, PageStore pages) {
        this.registry = registry;
        this.pages = pages;
        this.spans = new long[registry.capacity()];
    }

    int claim(long kind) {
        int slot = registry.claim(kind);
        spans[slot] = pages.beginSpan();
        return slot;
    }

    void release(int slot) {
        long span = spans[slot];
        registry.release(slot);
        pages.endSpan(span);
    }
}
